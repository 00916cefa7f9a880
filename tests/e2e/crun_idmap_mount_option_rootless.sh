#!/bin/bash
# crun's own idmapped mounts, crun unmodified (Debian's 1.8.1), rootless,
# on the guest's marked store: a bind of the store's image carrying
# crun's "idmap" option shows the store's real owners in the container;
# an "idmap=uids=...;gids=..." mapping of its own shows them through that
# mapping; the same bundle on a store no mark covers fails as it does on
# mainline, with crun's mount_setattr error.
#
# crun makes the idmapped mount from its own process (open_tree +
# mount_setattr, crun's src/libcrun/linux.c), so it needs to be root of a
# user namespace that owns its mount namespace, as it is under rootless
# podman: here `unshare --map-auto --map-root-user --mount`, whose ids
# 0..65535 are the user (0) and its subordinate ids (1..65535, a second
# extent).  The bundle's mappings are in that namespace's ids, one
# extent of the container's map inside one of the namespace's (the
# kernel refuses a map that spans two: EPERM writing gid_map).  The mark delegates the store to the test
# user (the guest's allow.conf), the owner of that namespace and of the
# ones crun makes in it.
. "$(dirname "$0")/../lib/testlib.sh"
require_guest
scratch_dir

unmarked=/srv/e2e-idmap-unmarked-$$
bundle=$(su "$TEST_USER" -s /bin/sh -c 'mktemp -d /tmp/idmap.XXXXXX')
trap 'rm -rf "$bundle" "$unmarked" "$SCRATCH"' EXIT
mkdir -p "$unmarked"
cp -a "$SHARED_IMAGE" "$unmarked/busybox"

data_paths=(/data /data/bin/sh /data/etc/shadow /data/home/user/file)

# The container's rootfs: the user's own copy of the image (crun makes
# the mount point /data in it as the namespace's root).
rootfs=$bundle/rootfs
cp -a "$SHARED_IMAGE" "$rootfs"
mkdir "$rootfs/data"
chown -R "$TEST_USER:" "$rootfs"

# idmap_bundle SOURCE OPTION: the bundle, SOURCE bound at /data with
# OPTION, running probe stat on /data.
idmap_bundle() {
	make_bundle "$bundle" "$rootfs" "0 0 1,1 1 65535" "0 0 1,1 1 65535" \
		/bin/probe stat "${data_paths[@]}"
	jq --arg src "$1" --arg opt "$2" \
		'.mounts += [{destination: "/data", type: "bind", source: $src,
			      options: ["bind", $opt]}]' \
		"$bundle/config.json" >"$bundle/config.json.new"
	mv "$bundle/config.json.new" "$bundle/config.json"
	chown -R "$TEST_USER:" "$bundle"
}

# rootless_crun ID: the test user's crun in its own user and mount namespace.
rootless_crun() {
	su "$TEST_USER" -s /bin/sh -c \
		"cd /tmp && exec unshare --map-auto --map-root-user --mount \
			crun --root /tmp/$TEST_USER-crun-idmap --cgroup-manager=disabled \
			run -b '$bundle' '$1'"
}

idmap_bundle "$SHARED_IMAGE" idmap
assert_status 0 rootless_crun e2e-idmap-$$
assert_eq "0:0 0755 /data
0:0 0777 /data/bin/sh
0:42 0640 /data/etc/shadow
1000:1000 0644 /data/home/user/file" "$OUTPUT" \
	"owners through crun's idmap of the marked store (the container's own mapping)"

# Real root's 0 only, to the namespace's 1000: the rest is nobody's.
idmap_bundle "$SHARED_IMAGE" "idmap=uids=0-1000-1;gids=0-1000-1"
assert_status 0 rootless_crun e2e-idmap-own-$$
assert_eq "1000:1000 0755 /data
1000:1000 0777 /data/bin/sh
1000:65534 0640 /data/etc/shadow
65534:65534 0644 /data/home/user/file" "$OUTPUT" \
	"owners through an idmap= mapping of its own"

idmap_bundle "$unmarked/busybox" idmap
status=0
out=$(rootless_crun e2e-idmap-unmarked-$$ 2>&1) || status=$?
[ "$status" -ne 0 ] || fail "crun's idmap of a store no mark covers succeeded: $out"
assert_contains "mount_setattr" "$out" "crun's error on an unmarked store"
assert_contains "Operation not permitted" "$out" "crun's error on an unmarked store"
