#!/bin/bash
# Mainline's idmapped-mount API through the mark: a local user the mark
# does not name gets mainline's answer to open_tree(OPEN_TREE_CLONE) +
# mount_setattr(MOUNT_ATTR_IDMAP) on the guest's store from its own
# `unshare -Urm` (EPERM), and sees real root's files as nobody's; the test user,
# whom the guest's allow.conf delegates the store to, gets an idmapped
# (shifted) clone from the same call, showing the store's real owners.
. "$(dirname "$0")/../lib/testlib.sh"
require_guest
scratch_dir
nobody_workdir

idmap_as() {
	runuser -u "$1" -- unshare -Urm "$PROBE" idmap-tree "$SHARED_IMAGE" bin/sh
}
assert_status 1 idmap_as nobody
assert_contains "mount_setattr idmap $SHARED_IMAGE: errno=EPERM" "$OUTPUT" \
	"the idmap of a user the mark does not name"
assert_status 0 runuser -u nobody -- unshare -Urm "$PROBE" stat "$SHARED_IMAGE/bin/sh"
assert_contains "65534:65534 0777" "$OUTPUT" "real root's file for that user, without the idmap"

assert_status 0 idmap_as "$TEST_USER"
# (Its namespace maps only 0, the user: real root's files are its root's.)
assert_match "^0:0 0777 /proc/self/fd/[0-9]+/bin/sh$" "$OUTPUT" \
	"real root's file through the delegated user's idmapped clone"
