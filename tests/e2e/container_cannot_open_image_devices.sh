#!/bin/bash
# A container whose rootfs the hook shifted owns the image's real-root
# files, but not its device nodes: a shifted mount is nodev, and locked
# so.  A 0600 root char node (1:3) and a block node of the guest's own
# disk, placed in the image by real root, open neither for reading nor
# for writing inside (EACCES, the nodev refusal; the device cgroup would
# say EPERM), while real root opens them through a bind that allows
# devices.
. "$(dirname "$0")/../lib/testlib.sh"
require_guest
scratch_dir

image=$IMAGE_STORE/e2e-devices-$$
cp -a "$SHARED_IMAGE" "$image"
trap 'rm -rf "$image" "$SCRATCH"' EXIT
disk=/dev/vda # the guest's root disk (scripts/run-guest.sh: root=/dev/vda)
mkdir "$image/devices"
mknod -m 0600 "$image/devices/char" c 1 3
mknod -m 0600 "$image/devices/disk" b "$((16#$(stat -c %t "$disk")))" "$((16#$(stat -c %T "$disk")))"
# The nodes work: real root opens them through a bind that allows
# devices (the store's /srv is nodev, as fstab mounts it).
for node in char disk; do
	assert_status 0 unshare -m sh -c "mount --bind '$image/devices' /mnt &&
		mount -o remount,bind,dev /mnt && '$PROBE' open /mnt/$node rw"
done

make_bundle "$SCRATCH/c" "$image" "0 100000 65536" "0 100000 65536" /bin/sh -c '
	for node in char disk; do
		for mode in ro rw; do /bin/probe open /devices/$node $mode; done
	done
	/bin/probe stat /devices/char /devices/disk
	cat /proc/self/mountinfo'
with_hook "$SCRATCH/c"
assert_status 0 crun_run "$SCRATCH/c" e2e-devices
# One refusal each for reading and for writing.
for node in char disk; do
	assert_eq 2 "$(grep -c "^open /devices/$node: errno=EACCES" <<<"$OUTPUT")" \
		"EACCES for opening the image's $node node read-only and read-write; output: $OUTPUT"
done
# The container's root owns them (the shift works) ...
assert_contains "0:0 0600 /devices/char" "$OUTPUT" "owner of the char node inside"
assert_contains "0:0 0600 /devices/disk" "$OUTPUT" "owner of the block node inside"
# ... on a root that is shifted and nodev.
root_line=$(awk '$5 == "/" && $3 ~ /^[0-9]+:[0-9]+$/' <<<"$OUTPUT")
assert_match "[ ,]nodev[ ,]" "$root_line" "options of the container's root"
assert_match ",shift( |,|$)" "$root_line" "options of the container's root"
