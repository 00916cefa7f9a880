#!/bin/bash
# `shiftbind disallow --revoke` takes a delegated user's access back at
# once: a shift the user's namespace made before, still mounted there,
# refuses every access from then on (EACCES, with the kernel's reason),
# a file it opened for writing before writes nothing more, and no new
# shift is made.  Plain `shiftbind disallow` leaves the old shift working
# (e2e.disallow_revokes); this is the way to end it too.
. "$(dirname "$0")/../lib/testlib.sh"
require_guest
scratch_dir

dmesg_before=$(dmesg | wc -l)
# The user's namespace: a shift, a file opened for writing through it,
# then (after the revocation) a write, a read, a creation, a new shift.
user_shift_store e2e-revoke-live
user_shift_start "
	exec 3>>$USER_WORK/old/root/held || exit 1
	echo before >&3" "
	/bin/echo after >&3; echo \"write through the open file: \$?\"
	cat $USER_WORK/old/etc/passwd >/dev/null; echo \"read: \$?\"
	touch $USER_WORK/old/made-after-revoke; echo \"create: \$?\"
	shiftbind shift $STORE/busybox $USER_WORK/new; echo \"new shift: \$?\""
store=$STORE

assert_status 0 shiftbind disallow --revoke "$store"
assert_contains "revoked every shift made through it" "$OUTPUT" "what disallow --revoke says"
user_shift_finish
out=$USER_OUT
assert_contains "write through the open file: 1" "$out" "a write through a file opened before"
assert_contains "read: 1" "$out" "a read through the revoked shift"
assert_contains "create: 1" "$out" "a creation through the revoked shift"
assert_contains "new shift: 1" "$out" "a new shift"
assert_contains "Permission denied" "$out" "the errno the user sees (EACCES)"
assert_contains "real root withdrew the allow-shift mark of this mount" "$out" "the new shift's reason"

assert_eq "before" "$(cat "$store/busybox/root/held")" "the held file on disk"
[ ! -e "$store/busybox/made-after-revoke" ] || fail "a file was created after the revocation"
assert_match "shift: access refused for [a-z]+\[[0-9]+\] on inode [0-9]+: real root revoked the shift of this mount" \
	"$(dmesg | tail -n "+$((dmesg_before + 1))")" "kernel's reason"
