#!/bin/bash
# Mainline's idmapped-mount API on a local user's own files, with no mark:
# root of uid 65534's `unshare -Urm` idmaps a detached clone of a
# directory uid 65534 owns with its own namespace (as containers/storage
# does for a rootless user's own images) and attaches it.  Through it the
# idmap is of the user's own ids: the user's files are its namespace
# root's, real root's files have no owner (the kernel's 65534), what it
# creates lands on disk as uid 65534, and real root's setuid program
# there cannot be taken over or changed (the view exists only in the
# user's mount namespace).  A directory of real root's, even
# inside the user's own, stays refused with mainline's EPERM.
. "$(dirname "$0")/../lib/testlib.sh"
require_guest
# On ext4 (/var/tmp): the guest's /tmp is tmpfs, which 6.1 cannot idmap.
WORK=$(mktemp -d /var/tmp/e2e-own-ids.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
chmod 0755 "$WORK"
chown nobody:nogroup "$WORK"

own=$WORK/own
install -d -o nobody -g nogroup "$own" "$WORK/view"
install -o nobody -g nogroup -m 0644 /dev/null "$own/mine"
install -o root -g root -m 0644 /dev/null "$own/roots"
install -o root -g root -m 04755 "$PROBE" "$own/su"
install -d -o root -g root -m 0755 "$own/rootdir"

# through CMD: CMD (sh) in uid 65534's namespace, after the idmap of
# $own is attached at $WORK/view (what failed, if that fails).
through() {
	as_nobody_in_userns "out=\$($PROBE idmap-attach $own $WORK/view) || { echo \"\$out\"; exit 1; }; $1"
}

assert_status 0 through "$PROBE stat $WORK/view/mine $WORK/view/roots $WORK/view/su"
assert_eq "0:0 0644 $WORK/view/mine
65534:65534 0644 $WORK/view/roots
65534:65534 4755 $WORK/view/su" "$OUTPUT" "owners through the idmap of the user's own ids"

assert_status 0 through "grep ' $WORK/view ' /proc/self/mountinfo"
assert_match " $WORK/view [^ ]*nodev.* - " "$OUTPUT" "the idmap of the user's own ids is nodev"

assert_status 0 through "$PROBE create $WORK/view/made 04755 && $PROBE chown 0:0 $WORK/view/mine"
assert_eq "0:0 4755 $WORK/view/made" "$(head -n 1 <<<"$OUTPUT")" "a file created through it, seen there"
assert_eq "65534:65534 4755" "$(stat -c '%u:%g %a' "$own/made")" \
	"a file created through it on disk: the user's own id, never real root"

# A file whose owner the idmap does not map cannot change through it:
# notify_change()'s EOVERFLOW for a mode, as on any idmapped mount, and
# chown's EPERM (the caller owns nothing there).
assert_status 1 through "$PROBE chmod 6755 $WORK/view/su"
assert_contains "errno=EOVERFLOW" "$OUTPUT" "chmod of real root's setuid program through it"
assert_status 1 through "$PROBE chown 0:0 $WORK/view/roots"
assert_contains "errno=EPERM" "$OUTPUT" "chown of real root's file through it"
assert_status 1 through "$PROBE open $WORK/view/su rw"
assert_contains "errno=EACCES" "$OUTPUT" "opening real root's setuid program for write through it"
assert_eq "0:0 4755" "$(stat -c '%u:%g %a' "$own/su")" "real root's setuid program on disk"

assert_status 1 as_nobody_in_userns "$PROBE idmap-tree $own/rootdir ."
assert_contains "mount_setattr idmap $own/rootdir: errno=EPERM" "$OUTPUT" \
	"the idmap of a directory of real root's inside the user's own"
assert_status 1 as_nobody_in_userns "$PROBE idmap-tree /etc passwd"
assert_contains "mount_setattr idmap /etc: errno=EPERM" "$OUTPUT" "the idmap of /etc"
