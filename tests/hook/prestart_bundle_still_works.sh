#!/bin/bash
# A bundle registered before createRuntime, with `shiftbind-hook prestart`
# under hooks.prestart (by hand here, as older patch-config and
# crun-rootful.json wrote it), keeps working: crun runs the hook at
# prestart, it acts as at createRuntime, and the image shows its real
# owners.
. "$(dirname "$0")/../lib/testlib.sh"
require_guest
scratch_dir

id=hook-prestart-bundle-$$
make_bundle "$SCRATCH/c" "$SHARED_IMAGE" "0 100000 65536" "0 100000 65536" \
	/bin/probe stat "${OWNER_PATHS[@]}"
jq --arg h /usr/libexec/shiftbind/shiftbind-hook \
	'.hooks = {prestart: [{path: $h, args: ["shiftbind-hook", "prestart"], timeout: 10}]}' \
	"$SCRATCH/c/config.json" >"$SCRATCH/config.json"
mv "$SCRATCH/config.json" "$SCRATCH/c/config.json"
annotate "$SCRATCH/c" run.oci.hooks.stderr "$SCRATCH/c/hook.stderr"

assert_status 0 crun_run "$SCRATCH/c" "$id"
assert_eq "$REAL_OWNERS" "$OUTPUT" "owners inside the container"
assert_contains "shiftbind-hook: prestart: container $id: done: 1 mount(s) shifted" \
	"$(cat "$SCRATCH/c/hook.stderr")" "hook's stderr"
