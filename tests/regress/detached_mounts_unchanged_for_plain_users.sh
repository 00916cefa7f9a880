#!/bin/bash
# The series' rule for detached mounts handed to another user namespace
# (their flags stay locked) holds only for mounts that lend real root's
# files (an allow-shift mark, or a shift).  Everything mainline allows
# with other detached mounts still works: a read-only detached copy that
# real root makes of a plain directory and hands (by inheritance) to a
# local user's `unshare -Urm` can be made writable there with
# mount_setattr(), attached with move_mount() and remounted read-write;
# a user's own open_tree()/move_mount() in its namespace work too.  The
# same copy of a marked store stays read-only (EPERM).
. "$(dirname "$0")/../lib/testlib.sh"
require_guest
scratch_dir
nobody_workdir

plain=$SCRATCH/plain
store=/srv/regress-detached-$$
mkdir -p "$plain" "$store"
cleanup() {
	while mountpoint -q "$store"; do umount "$store" || break; done
	rm -rf "$store" "$SCRATCH"
}
trap cleanup EXIT

# handed SRC CMD: real root's detached read-only copy of SRC, inherited
# as $TREE_FD by CMD (sh), run as root of uid 65534's `unshare -Urm`.
handed() {
	"$PROBE" clone-tree "$1" setpriv --reuid=65534 --regid=65534 --clear-groups \
		unshare -Urm sh -c "$2"
}

assert_status 0 handed "$plain" "$PROBE setattr-fd \$TREE_FD rw"
assert_contains "rw: ok" "$OUTPUT" "mount_setattr clearing ro on a handed plain copy"
assert_status 0 handed "$plain" "mkdir $WORK/a && $PROBE move-mount \$TREE_FD $WORK/a &&
	$PROBE remount-rw $WORK/a && grep ' $WORK/a ' /proc/self/mountinfo"
assert_contains "remount-rw $WORK/a: ok" "$OUTPUT" "remount of the attached plain copy (its flags are not locked)"
assert_match " $WORK/a rw," "$OUTPUT" "the attached copy in the user's namespace"

# The user's own detached copy, in its own namespace.
assert_status 0 runuser -u nobody -- unshare -Urm sh -c "
	mkdir -p $WORK/src $WORK/b && mount --bind $WORK/src $WORK/src &&
	$PROBE clone-tree $WORK/src sh -c '$PROBE setattr-fd \$TREE_FD rw && $PROBE move-mount \$TREE_FD $WORK/b'"
assert_match "move-mount [0-9]+ $WORK/b: ok" "$OUTPUT" "a user's own open_tree and move_mount"

# A marked store lends real root's files: the same copy stays read-only.
assert_status 0 shiftbind allow "$store"
assert_status 1 handed "$store" "$PROBE setattr-fd \$TREE_FD rw"
assert_contains "errno=EPERM" "$OUTPUT" "mount_setattr clearing ro on a handed copy of a marked store"
assert_status 1 handed "$store" "mkdir -p $WORK/c && $PROBE move-mount \$TREE_FD $WORK/c && $PROBE remount-rw $WORK/c"
assert_contains "remount-rw $WORK/c: errno=EPERM" "$OUTPUT" "remount of the attached copy of a marked store"
