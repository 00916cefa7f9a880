#!/bin/bash
# An image outside any store marked allow-shift (a copy on the root file
# system): the hook refuses with the advertised message naming the
# container, the rootfs and the fix (`shiftbind allow <store>`), crun
# does not start the container, and the host's mount table is unchanged.
. "$(dirname "$0")/../lib/testlib.sh"
require_guest
scratch_dir

store=/var/lib/hook-unmarked-$$
image=$store/busybox
mkdir -p "$store"
cp -a "$SHARED_IMAGE" "$image"
trap 'rm -rf "$store" "$SCRATCH"' EXIT

id=hook-unmarked-$$
before=$(mount_table)
make_bundle "$SCRATCH/c" "$image" "0 100000 65536" "0 100000 65536" /bin/probe id
with_hook "$SCRATCH/c"
status=0
out=$(crun_run "$SCRATCH/c" "$id" 2>&1) || status=$?
[ "$status" -ne 0 ] || fail "container started on an unmarked store: $out"
[[ $out != *uid=* ]] || fail "the container's process ran: $out"
assert_contains "shiftbind-hook: createRuntime: container $id: rootfs $image is not in a store marked allow-shift; run: shiftbind allow <store>" \
	"$(cat "$SCRATCH/c/hook.stderr")" "hook's message"
assert_eq "$before" "$(mount_table)" "host mount table after the refusal"
crun list -q | grep -qx "$id" && fail "crun still lists container $id"
exit 0
