#!/bin/bash
# A container without a user namespace: the hook registered at createRuntime
# does nothing, says so, exits 0, and the container starts and sees the
# image as it is on disk.
. "$(dirname "$0")/../lib/testlib.sh"
require_guest
scratch_dir

id=hook-nouserns-$$
make_bundle "$SCRATCH/c" "$SHARED_IMAGE" none none /bin/probe stat "${OWNER_PATHS[@]}"
with_hook "$SCRATCH/c"
assert_eq null "$(jq -c '.linux.namespaces[] | select(.type == "user")' "$SCRATCH/c/config.json" | jq -sc 'first')" \
	"user namespace entry in config.json"
assert_status 0 crun_run "$SCRATCH/c" "$id"
assert_eq "$REAL_OWNERS" "$OUTPUT" "owners without a user namespace"

stderr=$(cat "$SCRATCH/c/hook.stderr")
assert_contains "shiftbind-hook: createRuntime: container $id: no user namespace in config.json: nothing to do" \
	"$stderr" "hook's stderr"
[[ $stderr != *shifted* ]] || fail "hook shifted something: $stderr"
[[ $stderr != *error* ]] || fail "hook reported an error: $stderr"
