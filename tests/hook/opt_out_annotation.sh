#!/bin/bash
# org.shiftbind.shift=false opts a container out: the hook logs it and
# exits 0, the container starts, and it sees the unshifted image (nobody).
. "$(dirname "$0")/../lib/testlib.sh"
require_guest
scratch_dir

id=hook-optout-$$
make_bundle "$SCRATCH/c" "$SHARED_IMAGE" "0 100000 65536" "0 100000 65536" \
	/bin/probe stat / /etc/shadow
with_hook "$SCRATCH/c"
annotate "$SCRATCH/c" org.shiftbind.shift false
assert_status 0 crun_run "$SCRATCH/c" "$id"
assert_eq "65534:65534 0755 /
65534:65534 0640 /etc/shadow" "$OUTPUT" "owners in the opted-out container"

stderr=$(cat "$SCRATCH/c/hook.stderr")
assert_contains "shiftbind-hook: createRuntime: container $id: org.shiftbind.shift=false: not shifting, nothing to do" \
	"$stderr" "hook's stderr"
[[ $stderr != *shifted* ]] || fail "hook shifted something: $stderr"
