#!/bin/bash
# What a shift would let its owner read (every file of the image as its
# owner: /etc/shadow, root's 0700 home) stays out of reach of a local user
# the mark does not name: its shift is refused, and without one it reads
# only what it could read before.
. "$(dirname "$0")/../lib/testlib.sh"
require_guest
scratch_dir
nobody_workdir

assert_eq "0:42 0640" "$(stat -c '%u:%g %04a' "$SHARED_IMAGE/etc/shadow")" "the image's /etc/shadow"
assert_status 1 as_nobody_in_userns "mkdir $WORK/mnt && shiftbind shift $SHARED_IMAGE $WORK/mnt && cat $WORK/mnt/etc/shadow"
assert_contains "allow-shift does not delegate to the owner of the caller's user namespace" \
	"$OUTPUT" "kernel's reason for the refused shift"
assert_status 1 as_nobody_in_userns "cat $SHARED_IMAGE/etc/shadow"
assert_contains "Permission denied" "$OUTPUT" "reading /etc/shadow directly"
install -d -m 0700 "$SHARED_IMAGE/root/e2e-secret-$$"
trap 'rmdir "$SHARED_IMAGE/root/e2e-secret-$$"; rm -rf "$SCRATCH"' EXIT
assert_status 2 as_nobody_in_userns "ls $SHARED_IMAGE/root/e2e-secret-$$"
assert_contains "Permission denied" "$OUTPUT" "listing a 0700 directory of real root"
