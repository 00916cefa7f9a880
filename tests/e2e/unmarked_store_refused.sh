#!/bin/bash
# An image outside any store marked allow-shift: crun refuses to start the
# container, the hook's message names the fix, and nothing is left
# mounted in the host.
. "$(dirname "$0")/../lib/testlib.sh"
require_guest
scratch_dir

image=/var/lib/e2e-unmarked-$$/busybox
mkdir -p "${image%/*}"
cp -a "$SHARED_IMAGE" "$image"
trap 'rm -rf "${image%/*}" "$SCRATCH"' EXIT

before=$(mount_table)
make_bundle "$SCRATCH/c" "$image" "0 100000 65536" "0 100000 65536" /bin/probe id
with_hook "$SCRATCH/c"
status=0
crun_run "$SCRATCH/c" e2e-unmarked >"$SCRATCH/out" 2>&1 || status=$?
[ "$status" -ne 0 ] || fail "container started on an unmarked store: $(cat "$SCRATCH/out")"
assert_contains "shiftbind allow" "$(cat "$SCRATCH/c/hook.stderr")" "hook's message"
assert_eq "$before" "$(mount_table)" "host mount table after the refusal"
