#!/bin/bash
# Rootless podman's own `-v SRC:DST:idmap`, podman and crun unmodified
# (Debian 12's 4.3.1 and 1.8.1, Debian 13's 5.4.2 and 1.21): podman
# hands the option to crun, which idmaps SRC with the container's user
# namespace from inside podman's rootless namespace.  On the guest's
# marked store (delegated to the test user) the volume shows the store's
# real owners; on a store no mark covers, the container fails with
# crun's mount_setattr error, as on mainline.
#
# The container has a mapping of its own here (--uidmap), as
# `-v ...:idmap` needs on podman 5: there the option becomes the mount's
# own mapping, taken from the container's (libpod's
# parseIDMapMountOption), and a container in podman's rootless namespace
# itself (the default) has none, so podman 5 drops the option and binds
# SRC plainly: its real-root files show as nobody, on any kernel.
# Podman 4 passed the bare option to crun, which idmapped SRC with the
# rootless namespace: both are checked, each on its own podman.
. "$(dirname "$0")/../lib/testlib.sh"
. "$(dirname "$0")/podmanlib.bash"
podman_test_setup
unmarked=/srv/e2e-volume-unmarked-$$
trap 'user_podman_fresh; podman_store_unshare; rm -rf "$unmarked" "$SCRATCH"' EXIT
mkdir -p "$unmarked"
cp -a "$SHARED_IMAGE" "$unmarked/busybox"
assert_status 0 as_user shiftbind podman-setup "$PODMAN_STORE"

img_paths=(/img /img/bin/sh /img/etc/shadow /img/home/user/file)
real_img_owners="0:0 0755 /img
0:0 0777 /img/bin/sh
0:42 0640 /img/etc/shadow
1000:1000 0644 /img/home/user/file"
own_map=(--uidmap 0:1:65536 --gidmap 0:1:65536)

assert_status 0 user_run "${own_map[@]}" -v "$SHARED_IMAGE:/img:idmap" localhost/busybox-shared \
	/bin/probe stat "${img_paths[@]}"
assert_eq "$real_img_owners" "$OUTPUT" "owners in a volume podman idmaps from the marked store (--uidmap)"

assert_status 0 user_run -v "$SHARED_IMAGE:/img:idmap" localhost/busybox-shared \
	/bin/probe stat "${img_paths[@]}"
if podman_at_least 5.0; then
	assert_eq "65534:65534 0755 /img" "$(head -n 1 <<<"$OUTPUT")" \
		"the volume of podman 5's :idmap without a mapping of the container's own (a plain bind)"
else
	assert_eq "$real_img_owners" "$OUTPUT" "owners in a volume podman 4 idmaps with its rootless namespace"
fi

status=0
out=$(user_run "${own_map[@]}" -v "$unmarked/busybox:/img:idmap" localhost/busybox-shared \
	/bin/probe stat /img 2>&1) || status=$?
[ "$status" -ne 0 ] || fail "podman idmapped a volume no mark covers: $out"
# crun 1.8.1 names the mount's source, crun 1.21 its destination.
assert_match "mount_setattr \`($unmarked/busybox|/img)\`: Operation not permitted" "$out" \
	"crun's error through podman on an unmarked store"
