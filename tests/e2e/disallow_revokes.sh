#!/bin/bash
# `shiftbind disallow` takes the delegation back from every copy of the
# store, even the private one of a user namespace made before: a new
# shift there is refused with the kernel's reason.  A shift made before
# stays until it is unmounted (shiftbind(8)), and writes through it still
# land as real root.
. "$(dirname "$0")/../lib/testlib.sh"
require_guest
scratch_dir

image_store e2e-revoke
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

# The user's namespace: a shift, then (after the disallow) a second one.
runuser -u "$TEST_USER" -- unshare -Urm sh -c "
	shiftbind shift $store/busybox $work/old || exit 1
	touch $work/shifted
	while [ ! -e $work/go ]; do sleep 0.1; done
	shiftbind shift $store/busybox $work/new; echo \"second shift: \$?\"
	stat -c '%u:%g %n' $work/old/
	touch $work/old/made-after-disallow" >"$work/out" 2>&1 &
holder=$!
for _ in $(seq 300); do [ -e "$work/shifted" ] && break; sleep 0.1; done
[ -e "$work/shifted" ] || fail "the user's first shift did not happen: $(cat "$work/out")"

assert_status 0 shiftbind disallow "$store"
! grep -q " $store .*allow-shift" /proc/self/mountinfo ||
	fail "mountinfo still shows a mark: $(grep " $store " /proc/self/mountinfo)"
touch "$work/go"
wait "$holder" || true
holder=
out=$(cat "$work/out")
assert_contains "real root withdrew the allow-shift mark of this mount" "$out" "kernel's reason"
assert_contains "second shift: 1" "$out" "the second shift's status"
assert_contains "0:0 $work/old/" "$out" "the shift made before the disallow"
assert_eq "0:0" "$(stat -c '%u:%g' "$store/busybox/made-after-disallow")" "a write through the old shift"
