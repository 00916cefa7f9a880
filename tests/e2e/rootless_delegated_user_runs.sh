#!/bin/bash
# A store delegates to the users real root names: the test user's rootless
# container on a store marked for it sees the image's real owners; once
# real root marks the store for itself only, the same container is
# refused, and the hook passes on the kernel's reason.
. "$(dirname "$0")/../lib/testlib.sh"
require_guest
scratch_dir

image_store e2e-delegated
store=$STORE
bundle=$(rootless_bundle "$store/busybox" /bin/probe stat "${OWNER_PATHS[@]}")
cleanup() {
	remove_image_store
	rm -rf "$bundle" "$SCRATCH"
}
trap cleanup EXIT
with_hook "$bundle" --rootless

assert_status 0 shiftbind allow --owner 0 --owner "$TEST_USER" "$store"
assert_contains "$TEST_USER" "$OUTPUT" "the owners allow says it delegated to"
assert_status 0 crun_run_as "$TEST_USER" "$bundle" e2e-delegated-$$
assert_eq "$REAL_OWNERS" "$OUTPUT" "owners in the delegated user's container"

assert_status 0 shiftbind allow --owner 0 "$store"
status=0
out=$(crun_run_as "$TEST_USER" "$bundle" e2e-undelegated-$$ 2>&1) || status=$?
[ "$status" -ne 0 ] || fail "the container started on a store no longer delegated to $TEST_USER: $out"
assert_contains "allow-shift does not delegate to the owner of the caller's user namespace" \
	"$(cat "$bundle/hook.stderr")" "hook's message"
