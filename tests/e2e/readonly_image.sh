#!/bin/bash
# A store marked as `shiftbind allow` marks by default, read-only and
# nosuid: a shifted container reads
# its real owners, cannot write (EROFS), and cannot remount its root
# read-write even with CAP_SYS_ADMIN, because real root's read-only flag
# is locked in the container's user namespace.
. "$(dirname "$0")/../lib/testlib.sh"
require_guest
scratch_dir

image_store ro-store
store=$STORE
cleanup() {
	remove_image_store
	rm -rf "$SCRATCH"
}
trap cleanup EXIT
assert_status 0 shiftbind allow "$store"
assert_contains "read-only" "$OUTPUT" "what allow says it marked"

make_bundle "$SCRATCH/c" "$store/busybox" "0 100000 65536" "0 100000 65536" \
	/bin/sh -c '/bin/probe stat /etc/shadow; /bin/probe create /new; /bin/probe remount-rw /; true'
grant_capability "$SCRATCH/c" CAP_SYS_ADMIN
with_hook "$SCRATCH/c"
assert_status 0 crun_run "$SCRATCH/c" e2e-readonly
assert_contains "0:42 0640 /etc/shadow" "$OUTPUT" "read through the read-only shift"
assert_contains "create /new: errno=EROFS" "$OUTPUT" "write to the read-only image"
assert_contains "remount-rw /: errno=EPERM" "$OUTPUT" "read-write remount from inside"
[ ! -e "$store/busybox/new" ] || fail "a file appeared in the read-only image"
