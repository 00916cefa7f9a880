#!/bin/bash
# No setuid-root file for a local user the mark does not name: with its
# shift refused it owns nothing of real root's in the image, so it can
# neither set the setuid bit on a real-root binary nor put a file there.
. "$(dirname "$0")/../lib/testlib.sh"
require_guest
scratch_dir
nobody_workdir

image=$IMAGE_STORE/e2e-setuid-$$
cp -a "$SHARED_IMAGE" "$image"
trap 'rm -rf "$image" "$SCRATCH"' EXIT
mode=$(stat -c '%04a' "$image/bin/probe")
assert_status 1 as_nobody_in_userns "mkdir $WORK/mnt && shiftbind shift $image $WORK/mnt && chmod 4755 $WORK/mnt/bin/probe"
assert_contains "allow-shift does not delegate to the owner of the caller's user namespace" \
	"$OUTPUT" "kernel's reason for the refused shift"
assert_status 1 as_nobody_in_userns "chmod 4755 $image/bin/probe"
assert_contains "Operation not permitted" "$OUTPUT" "chmod u+s of real root's binary"
assert_status 1 as_nobody_in_userns "cp $image/bin/probe $image/bin/planted"
assert_eq "0:0 $mode" "$(stat -c '%u:%g %04a' "$image/bin/probe")" "the binary on disk"
[ ! -e "$image/bin/planted" ] || fail "a file appeared in the image"
