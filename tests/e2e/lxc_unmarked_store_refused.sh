#!/bin/bash
# The unprivileged LXC container of lxc_unprivileged_shared_rootfs, the
# same configuration and the same way of starting it (lxc-start as root
# of the test user's own user namespace, `lxc.rootfs.options =
# idmap=container`), on a copy of the image in a store no mark covers:
# LXC fails to start it, with its own error for the kernel's EPERM (the
# mount_setattr of the rootfs's idmapped clone, as on mainline), and
# nothing of the container is left running or mounted.
#
# Debian 12's guest has no LXC (rootfs-builder/packages).
# not-on-release: bookworm
. "$(dirname "$0")/../lib/testlib.sh"
. "$(dirname "$0")/lxclib.bash"
require_guest
require_lxc
lxc_home
unmarked=/srv/e2e-lxc-unmarked-$$
trap 'lxc_cleanup; rm -rf "$unmarked"' EXIT
mkdir -p "$unmarked"
chmod 0711 "$unmarked"
cp -a "$SHARED_IMAGE" "$unmarked/busybox"
[ -z "$(mark_of "$unmarked")" ] || fail "$unmarked is marked: $(mark_of "$unmarked")"

mounts_before=$(mount_table)
lxc_config unmarked "$unmarked/busybox" 1 lxc.rootfs.options=idmap=container
status=0
out=$(lxc_start_in_userns unmarked /bin/probe stat /) || status=$?
[ "$status" -ne 0 ] ||
	fail "LXC idmapped a rootfs no mark covers, unprivileged: $out"
err=$(cat "$LXCPATH/unmarked.stderr")
log=$(cat "$LXCPATH/unmarked.log")
assert_contains "Operation not permitted - Failed to change mount attributes" "$log" \
	"LXC's log: the kernel's EPERM for the rootfs's idmap (create_detached_idmapped_mount)"
assert_contains "Failed to create detached idmapped mount" "$log" "LXC's log"
assert_contains "The container failed to start" "$err" "lxc-start's error, as the user sees it"
assert_eq "$mounts_before" "$(mount_table)" "the host's mounts after the refused start"
assert_eq "" "$(lxc_as_user lxc-ls -P "$LXCPATH" --running)" "LXC's running containers after the refused start"
# The result's note: LXC's line for the kernel's refusal, as the user sees it.
note "$(grep -m1 'Failed to change mount attributes' <<<"$err" || head -n 1 <<<"$err")"
