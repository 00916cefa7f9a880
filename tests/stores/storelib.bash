# shellcheck shell=bash
# Helpers of the stores suite: one crun scenario on an image store of each
# filesystem a site may keep images on.  Sourced after testlib.sh.
#
# Which filesystems can be idmapped (hence marked allow-shift and
# shifted) depends on the kernel, not on shiftbind: tmpfs since 6.3,
# squashfs since 6.2, erofs and ext4 on every kernel the series is for.
# The kernel refuses to mark any other, naming it; so does the CLI.

# store_on_image_file FSTYPE: $STORE, the shared image (busybox/) packed
# into an erofs or squashfs image file on the guest's ext4, as a site
# keeps one on a shared filesystem, and mounted read-only by real root
# through a loop device, the way each node of a cluster mounts it.  The
# EXIT trap unmounts and removes it.
store_on_image_file() {
	local fstype=$1 src
	src=$SCRATCH/src
	mkdir -p "$src"
	chmod 0711 "$src"
	cp -a "$SHARED_IMAGE" "$src/busybox"
	IMAGE_FILE=$SCRATCH/store.$fstype
	case $fstype in
	erofs) mkfs.erofs "$IMAGE_FILE" "$src" ;;
	squashfs) mksquashfs "$src" "$IMAGE_FILE" -noappend -quiet ;;
	*) fail "store_on_image_file: no image file of type $fstype" ;;
	esac >"$SCRATCH/mkfs.log" 2>&1 ||
		fail "packing the image as $fstype failed: $(cat "$SCRATCH/mkfs.log")"
	STORE=/srv/$fstype-store-$$
	mkdir -p "$STORE"
	trap store_cleanup EXIT
	mount -t "$fstype" -o loop,ro,nosuid,nodev "$IMAGE_FILE" "$STORE" ||
		fail "mounting $IMAGE_FILE ($fstype) read-only on $STORE failed"
}

# store_on_tmpfs: $STORE, a tmpfs holding a copy of the shared image.
store_on_tmpfs() {
	STORE=/srv/tmpfs-store-$$
	mkdir -p "$STORE"
	trap store_cleanup EXIT
	mount -t tmpfs -o mode=0711,size=64m,nosuid,nodev tmpfs-store "$STORE" ||
		fail "mounting a tmpfs on $STORE failed"
	cp -a "$SHARED_IMAGE" "$STORE/busybox"
}

store_cleanup() {
	remove_image_store
	rm -rf "$SCRATCH"
}

# assert_mark_refused FSTYPE: `shiftbind allow` of $STORE fails, says
# that FSTYPE cannot be idmapped, and leaves no mark.
assert_mark_refused() {
	assert_status 1 shiftbind allow "$STORE"
	assert_contains "$1 does not support idmapped mounts" "$OUTPUT" \
		"why allow refused a $1 store"
	if grep -q " $STORE .*allow-shift" /proc/self/mountinfo; then
		fail "a refused allow left a mark on $STORE: $(grep " $STORE " /proc/self/mountinfo)"
	fi
}

# run_shifted_container ID: a rootful container (0 -> 100000) with
# shiftbind-hook on $STORE/busybox prints the owners of OWNER_PATHS and
# tries to create /new; its output is in $OUTPUT.
run_shifted_container() {
	make_bundle "$SCRATCH/c" "$STORE/busybox" "0 100000 65536" "0 100000 65536" \
		/bin/sh -c "/bin/probe stat ${OWNER_PATHS[*]}; /bin/probe create /new; true"
	with_hook "$SCRATCH/c"
	assert_status 0 crun_run "$SCRATCH/c" "$1"
}
