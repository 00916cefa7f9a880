#!/bin/bash
# Rootless podman's own `-v SRC:DST:idmap`, podman and crun unmodified
# (Debian's 4.3.1 and 1.8.1): podman hands the option to crun, which
# idmaps SRC with the container's user namespace from inside podman's
# rootless namespace.  On the guest's marked store (delegated to the test
# user) the volume shows the store's real owners; on a store no mark
# covers, the container fails with crun's mount_setattr error, as on
# mainline.
. "$(dirname "$0")/../lib/testlib.sh"
. "$(dirname "$0")/podmanlib.bash"
podman_test_setup
unmarked=/srv/e2e-volume-unmarked-$$
trap 'user_podman_fresh; podman_store_unshare; rm -rf "$unmarked" "$SCRATCH"' EXIT
mkdir -p "$unmarked"
cp -a "$SHARED_IMAGE" "$unmarked/busybox"
assert_status 0 as_user shiftbind podman-setup "$PODMAN_STORE"

img_paths=(/img /img/bin/sh /img/etc/shadow /img/home/user/file)
assert_status 0 user_run -v "$SHARED_IMAGE:/img:idmap" localhost/busybox-shared \
	/bin/probe stat "${img_paths[@]}"
assert_eq "0:0 0755 /img
0:0 0777 /img/bin/sh
0:42 0640 /img/etc/shadow
1000:1000 0644 /img/home/user/file" "$OUTPUT" "owners in a volume podman idmaps from the marked store"

status=0
out=$(user_run -v "$unmarked/busybox:/img:idmap" localhost/busybox-shared \
	/bin/probe stat /img 2>&1) || status=$?
[ "$status" -ne 0 ] || fail "podman idmapped a volume no mark covers: $out"
assert_contains "mount_setattr \`$unmarked/busybox\`: Operation not permitted" "$out" \
	"crun's error through podman on an unmarked store"
