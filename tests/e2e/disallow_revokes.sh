#!/bin/bash
# `shiftbind disallow` takes the delegation back from every copy of the
# store, even the private one of a user namespace made before: a new
# shift there is refused with the kernel's reason.  A shift made before
# stays until it is unmounted (shiftbind(8)), and writes through it still
# land as real root.
. "$(dirname "$0")/../lib/testlib.sh"
require_guest
scratch_dir

# The user's namespace: a shift, then (after the disallow) a second one.
user_shift_store e2e-revoke
user_shift_start "" "
	shiftbind shift $STORE/busybox $USER_WORK/new; echo \"second shift: \$?\"
	stat -c '%u:%g %n' $USER_WORK/old/
	touch $USER_WORK/old/made-after-disallow"
store=$STORE work=$USER_WORK

assert_status 0 shiftbind disallow "$store"
! grep -q " $store .*allow-shift" /proc/self/mountinfo ||
	fail "mountinfo still shows a mark: $(grep " $store " /proc/self/mountinfo)"
user_shift_finish
out=$USER_OUT
assert_contains "real root withdrew the allow-shift mark of this mount" "$out" "kernel's reason"
assert_contains "second shift: 1" "$out" "the second shift's status"
assert_contains "0:0 $work/old/" "$out" "the shift made before the disallow"
assert_eq "0:0" "$(stat -c '%u:%g' "$store/busybox/made-after-disallow")" "a write through the old shift"
