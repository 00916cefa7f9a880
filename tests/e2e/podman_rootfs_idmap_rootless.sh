#!/bin/bash
# Rootless podman's own `--rootfs PATH:idmap`, podman unmodified (added in
# podman 4.5; Debian 13's 5.4.2): podman makes the idmapped mount of PATH
# itself, from its rootless user namespace (open_tree, mount_setattr
# MOUNT_ATTR_IDMAP with a user namespace of the container's mapping,
# move_mount), which its documentation says only root can do.  On the
# guest's marked store (delegated to the test user) the container shows
# the image's real owners, with a mapping of its own (--uidmap), with
# --userns=keep-id and with --userns=auto, and nothing of the image is
# copied into the user's storage; on a store no mark covers, podman fails
# with the kernel's EPERM, as on mainline.
#
# The container needs a mapping of its own: without one (the default, a
# container in podman's rootless namespace itself) podman 5.4 writes an
# empty uid_map for the mount's user namespace and fails with EINVAL
# ("write /proc/PID/uid_map: invalid argument"), on any kernel: the test
# checks that error, so that a podman that fixes it is noticed.
#
# Debian 12's podman 4.3.1 has no `:idmap` for --rootfs (4.5 added it):
# the test is not for the bookworm guest (runner.sh leaves it out there),
# and fails on any guest whose podman is older.
# not-on-release: bookworm
. "$(dirname "$0")/../lib/testlib.sh"
. "$(dirname "$0")/podmanlib.bash"
require_guest
require_podman 4.5 "podman run --rootfs PATH:idmap"
# The shared podman store is not used, but the user's podman is
# configured with it (podman fails on a missing additional image store).
podman_test_setup
unmarked=/srv/e2e-rootfs-unmarked-$$
trap 'user_podman_fresh; podman_store_unshare; rm -rf "$unmarked" "$SCRATCH"' EXIT
mkdir -p "$unmarked"
chmod 0711 "$unmarked"
cp -a "$SHARED_IMAGE" "$unmarked/busybox"
# Fresh, the user has no storage yet: 0 KiB.
before=$(user_storage_kib 2>/dev/null || echo 0)

for userns in "--uidmap=0:1:65536 --gidmap=0:1:65536" --userns=keep-id --userns=auto; do
	# shellcheck disable=SC2086 # the options, one a word
	assert_status 0 user_run $userns --rootfs "$SHARED_IMAGE:idmap" /bin/probe stat "${OWNER_PATHS[@]}"
	assert_eq "$REAL_OWNERS" "$(tail -n "${#OWNER_PATHS[@]}" <<<"$OUTPUT")" \
		"owners in a rootless container on the marked store's image (--rootfs :idmap, $userns)"
done
assert_storage_grew_less_than_image "$before" "three --rootfs :idmap containers"

# The default mapping (podman's rootless namespace itself): podman 5.4's
# own failure, before any mount is asked for.
status=0
out=$(user_run --rootfs "$SHARED_IMAGE:idmap" /bin/probe stat / 2>&1) || status=$?
[ "$status" -ne 0 ] || fail "podman 5.4's --rootfs :idmap without a mapping of the container's own ran: $out"
assert_match 'write /proc/[0-9]+/uid_map: invalid argument' "$out" \
	"podman's error for --rootfs :idmap in its rootless namespace's own mapping"

status=0
out=$(user_run --uidmap=0:1:65536 --gidmap=0:1:65536 --rootfs "$unmarked/busybox:idmap" \
	/bin/probe stat / 2>&1) || status=$?
[ "$status" -ne 0 ] || fail "podman idmapped a rootfs no mark covers: $out"
assert_contains "mount_setattr $unmarked/busybox: operation not permitted" "$out" \
	"podman's error on an unmarked store"
