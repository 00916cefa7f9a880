#!/bin/bash
# A local user whom real root did not name as an owner of the store's
# mark gets no shift, so it cannot write as real root: as uid 65534 with
# `unshare -Urm` (which any user can run), `shiftbind shift` of the shared
# image is refused with the kernel's reason, and neither through a shift
# nor directly does anything it writes land in the image.
. "$(dirname "$0")/../lib/testlib.sh"
require_guest
scratch_dir
nobody_workdir

assert_status 1 as_nobody_in_userns "mkdir $WORK/mnt && shiftbind shift $SHARED_IMAGE $WORK/mnt && touch $WORK/mnt/planted"
assert_contains "allow-shift does not delegate to the owner of the caller's user namespace" \
	"$OUTPUT" "kernel's reason for the refused shift"
assert_status 1 as_nobody_in_userns "touch $SHARED_IMAGE/planted"
assert_contains "Permission denied" "$OUTPUT" "writing the image directly"
[ ! -e "$SHARED_IMAGE/planted" ] || fail "a file appeared in the shared image"
