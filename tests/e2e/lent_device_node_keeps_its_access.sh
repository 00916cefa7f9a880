#!/bin/bash
# Real root's device nodes in a store (here a node of the guest's own
# disk, 0600, as an image could carry) belong, through a delegated user's
# read-write shift, to the user's namespace root; their access is not
# lent with them: chmod 0666 and chown fail (EPERM, with the kernel's
# reason naming the lent uid), from the user's namespace and from its
# host session through /proc/<pid>/root of the process that holds the
# shift.  So a path to the store that honours device nodes (the root
# filesystem bound elsewhere by real root after the mark; `shiftbind
# allow` refuses a store that one reaches before) still opens the disk to
# no local user.  Real root's plain file there changes mode as before.
# (`unshare -Urm` maps one id; chown to another id of a wider mapping,
# and POSIX ACLs: shift@BASE.lent_device_nodes_keep_their_access.)
. "$(dirname "$0")/../lib/testlib.sh"
require_guest
scratch_dir

disk=/dev/vda
[ -b "$disk" ] || fail "$disk, the guest's root disk, is not a block device"
user_shift_store e2e-devnode
node=busybox/root/disk
mknod -m 0600 "$STORE/$node" b "$((16#$(stat -c %t "$disk")))" "$((16#$(stat -c %T "$disk")))"
install -m 0600 /dev/null "$STORE/busybox/root/plain"
# Outside $SCRATCH, which the cleanup removes recursively: this holds a
# bind of the root filesystem, and only rmdir touches it.
rootfs=/e2e-devnode-rootfs-$$
mkdir "$rootfs"
cleanup() {
	umount "$rootfs" 2>/dev/null || true
	rmdir "$rootfs" 2>/dev/null || true
	user_shift_cleanup
}
trap cleanup EXIT
dmesg_before=$(dmesg | wc -l)

user_shift_start "
	echo \$\$ >$USER_WORK/pid
	$PROBE chmod 0666 $USER_WORK/old/root/disk
	$PROBE chown 0:0 $USER_WORK/old/root/disk
	$PROBE chmod 0644 $USER_WORK/old/root/plain" ""
# The path that honours device nodes, made after the mark: the root
# filesystem, which /srv's nodev bind covers, reached from elsewhere.
mount --bind / "$rootfs"
devpath=$rootfs$STORE
assert_status 0 "$PROBE" open "$devpath/$node" r
assert_contains "open $devpath/$node r: ok" "$OUTPUT" "real root opens the disk's node on the dev path"

# The user's host session, through the shift's /proc/<pid>/root.
via_root=/proc/$(cat "$USER_WORK/pid")/root$USER_WORK/old/root/disk
assert_status 0 runuser -u "$TEST_USER" -- "$PROBE" stat "$via_root"
assert_contains "$(id -u "$TEST_USER"):$(id -g "$TEST_USER") " "$OUTPUT" "the user owns the node there"
assert_status 1 runuser -u "$TEST_USER" -- "$PROBE" chmod 0666 "$via_root"
assert_contains "errno=EPERM" "$OUTPUT" "chmod 0666 of the node through /proc/<pid>/root"
user_shift_finish

assert_contains "chmod $USER_WORK/old/root/disk: errno=EPERM" "$USER_OUT" "chmod 0666 in the user's namespace"
assert_contains "chown $USER_WORK/old/root/disk: errno=EPERM" "$USER_OUT" "chown 0:0 in the user's namespace"
assert_eq "0:0 0600" "$(stat -c '%u:%g %04a' "$STORE/$node")" "the node on disk"
assert_eq "0:0 0644" "$(stat -c '%u:%g %04a' "$STORE/busybox/root/plain")" "the plain file on disk"
for who in "$TEST_USER" nobody; do
	assert_status 1 runuser -u "$who" -- "$PROBE" open "$devpath/$node" r
	assert_contains "errno=EACCES" "$OUTPUT" "$who opening the disk's node on the dev path"
done
assert_match "shift: device node access change refused for probe\[[0-9]+\] on disk: the shifted mount lends on-disk uid 0, which its user namespace \(owner uid $(id -u "$TEST_USER")\) does not own" \
	"$(dmesg | tail -n "+$((dmesg_before + 1))")" "kernel's reason"
