#!/bin/bash
# Unmodified crun, rootless as podman runs it (inside the user's rootless
# user and mount namespace, `podman unshare`), asks the kernel for an
# idmapped mount of a store image: the OCI mount option "idmap", which
# crun makes with open_tree(OPEN_TREE_CLONE) + mount_setattr
# (MOUNT_ATTR_IDMAP) and the container's user namespace, nested in the
# user's.  On an unmarked store the kernel refuses it as mainline does
# and the container does not start; once real root marks the store for
# the test user, the same bundle starts and shows the store's real
# owners at /data, with no hook and no copy.
. "$(dirname "$0")/../lib/testlib.sh"
. "$(dirname "$0")/podmanlib.bash"
require_guest
scratch_dir

image_store e2e-crun-idmap
bundle=$(su "$TEST_USER" -s /bin/sh -c 'mktemp -d /tmp/crun-idmap.XXXXXX')
cleanup() {
	remove_image_store
	rm -rf "$bundle" "$SCRATCH"
	user_podman_fresh
}
trap cleanup EXIT
# The container's own root: a copy of the image that the user owns; its
# user namespace maps the 65536 ids of the user's rootless namespace.
make_bundle "$bundle" rootfs "0 0 65536" "0 0 65536" \
	/bin/probe stat /data/etc/shadow /data/bin/sh /data/home/user/file
cp -a "$SHARED_IMAGE" "$bundle/rootfs"
jq --arg src "$STORE/busybox" '.mounts += [{destination: "/data", type: "bind",
	source: $src, options: ["rbind", "idmap"]}]' "$bundle/config.json" >"$bundle/config.json.new"
mv "$bundle/config.json.new" "$bundle/config.json"
chown -R "$TEST_USER:" "$bundle"

# rootless_crun ID: crun run as root of the user's rootless namespace.
rootless_crun() {
	user_podman unshare crun --root "/tmp/$TEST_USER-crun-idmap" \
		--cgroup-manager=disabled run -b "$bundle" "$1"
}

status=0
out=$(rootless_crun e2e-crun-idmap-unmarked-$$ 2>&1) || status=$?
[ "$status" -ne 0 ] || fail "the idmap mount of an unmarked store worked rootless: $out"
assert_contains "mount_setattr \`$STORE/busybox\`: Operation not permitted" "$out" \
	"crun's error on an unmarked store"

assert_status 0 shiftbind allow --owner 0 --owner "$TEST_USER" "$STORE"
# A new rootless namespace, which copies the host's mounts with the mark.
user_podman_fresh
assert_status 0 rootless_crun e2e-crun-idmap-$$
assert_eq "0:42 0640 /data/etc/shadow
0:0 0777 /data/bin/sh
1000:1000 0644 /data/home/user/file" "$OUTPUT" "the store's owners at /data, idmapped by crun"
