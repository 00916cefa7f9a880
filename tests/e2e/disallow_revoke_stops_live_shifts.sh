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

image_store e2e-revoke-live
store=$STORE
work=$SCRATCH/user
install -d -o "$TEST_USER" -m 0755 "$work" "$work/old" "$work/new"
chmod 0755 "$SCRATCH"
cleanup() {
	[ -z "${holder:-}" ] || kill "$holder" 2>/dev/null || true
	remove_image_store
	rm -rf "$SCRATCH"
}
trap cleanup EXIT
assert_status 0 shiftbind allow --rw --owner "$TEST_USER" "$store"
dmesg_before=$(dmesg | wc -l)

# The user's namespace: a shift, a file opened for writing through it,
# then (after the revocation) a write, a read, a creation, a new shift.
runuser -u "$TEST_USER" -- unshare -Urm sh -c "
	shiftbind shift $store/busybox $work/old || exit 1
	exec 3>>$work/old/root/held || exit 1
	echo before >&3
	touch $work/shifted
	while [ ! -e $work/go ]; do sleep 0.1; done
	/bin/echo after >&3; echo \"write through the open file: \$?\"
	cat $work/old/etc/passwd >/dev/null; echo \"read: \$?\"
	touch $work/old/made-after-revoke; echo \"create: \$?\"
	shiftbind shift $store/busybox $work/new; echo \"new shift: \$?\"" >"$work/out" 2>&1 &
holder=$!
for _ in $(seq 300); do [ -e "$work/shifted" ] && break; sleep 0.1; done
[ -e "$work/shifted" ] || fail "the user's shift did not happen: $(cat "$work/out")"

assert_status 0 shiftbind disallow --revoke "$store"
assert_contains "revoked every shift made through it" "$OUTPUT" "what disallow --revoke says"
touch "$work/go"
wait "$holder" || true
holder=
out=$(cat "$work/out")
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
