#!/bin/bash
# A container without a user namespace starts normally with the hook
# registered, and the hook says it had nothing to do.
. "$(dirname "$0")/../lib/testlib.sh"
require_guest
scratch_dir

make_bundle "$SCRATCH/c" "$SHARED_IMAGE" none none /bin/probe stat /etc/shadow
with_hook "$SCRATCH/c"
assert_status 0 crun_run "$SCRATCH/c" e2e-nouserns
assert_eq "0:42 0640 /etc/shadow" "$OUTPUT" "owner without a user namespace"
assert_contains "nothing to do" "$(cat "$SCRATCH/c/hook.stderr")" "hook's stderr"
