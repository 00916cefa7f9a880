#!/bin/bash
# Unmodified crun, rootless, asks the kernel for an idmapped mount of a
# store image (the OCI mount option "idmap": open_tree(OPEN_TREE_CLONE) +
# mount_setattr(MOUNT_ATTR_IDMAP) with the container's user namespace).
# On an unmarked store the kernel refuses it as mainline does and the
# container does not start; once real root marks the store for the test
# user, the same bundle starts and shows the store's real owners at
# /data, with no hook and no copy.
. "$(dirname "$0")/../lib/testlib.sh"
require_guest
scratch_dir

image_store e2e-crun-idmap
bundle=$(rootless_bundle "$SHARED_IMAGE" /bin/probe stat /data/etc/shadow /data/bin/sh /data/home/user/file)
cleanup() {
	remove_image_store
	rm -rf "$bundle" "$SCRATCH"
}
trap cleanup EXIT
# The container's own root: a copy of the image that the user owns.
cp -a "$SHARED_IMAGE" "$bundle/rootfs"
jq --arg src "$STORE/busybox" '.root.path = "rootfs"
	| .mounts += [{destination: "/data", type: "bind", source: $src,
		options: ["rbind", "idmap"]}]' "$bundle/config.json" >"$bundle/config.json.new"
mv "$bundle/config.json.new" "$bundle/config.json"

status=0
out=$(crun_run_as "$TEST_USER" "$bundle" e2e-crun-idmap-unmarked-$$ 2>&1) || status=$?
[ "$status" -ne 0 ] || fail "the idmap mount of an unmarked store worked rootless: $out"
assert_contains "Operation not permitted" "$out" "crun's error on an unmarked store"

assert_status 0 shiftbind allow --owner 0 --owner "$TEST_USER" "$STORE"
assert_status 0 crun_run_as "$TEST_USER" "$bundle" e2e-crun-idmap-$$
assert_eq "0:42 0640 /data/etc/shadow
0:0 0777 /data/bin/sh
1000:1000 0644 /data/home/user/file" "$OUTPUT" "the store's owners at /data, idmapped by crun"
