#!/bin/bash
# An unprivileged LXC container of the test user (LXC unmodified, Debian
# 13's 6.0.4) whose rootfs is the shared image of the guest's marked
# store, owned by real root, through LXC's own idmapped rootfs
# (`lxc.rootfs.options = idmap=container`): the image's real owners
# inside, the container's writes landing as its mapping says (its root as
# real root, its uid 1000 as 1000: the mark is read-write), nothing of
# the image copied into the user's LXC path; and the cost beside LXC's
# usual way, a chowned copy of the rootfs (its time and size, and the
# start of each, in the result's note).
#
# lxc-start makes the idmapped rootfs in its own process (lxclib.bash),
# so it runs as root of a user namespace of the test user's
# (lxc-usernsexec, LXC's tool), whose mark the store's allow.conf entry
# names; the container's lxc.idmap names that namespace's ids of the
# user's subordinate ids (u 0 1 65536).  From the user's session
# directly, LXC's usual way, the same configuration fails: its parent,
# in the initial user and mount namespaces, may not clone a tree of them
# (open_tree: EPERM), on any kernel, mark or not.
#
# Debian 12's guest has no LXC (rootfs-builder/packages).
# not-on-release: bookworm
. "$(dirname "$0")/../lib/testlib.sh"
. "$(dirname "$0")/lxclib.bash"
require_guest
require_lxc
lxc_home
written=()
cleanup() {
	lxc_cleanup
	rm -f "${written[@]}"
}
trap cleanup EXIT

# seconds_since START: seconds since START (an $EPOCHREALTIME), two decimals.
seconds_since() {
	local now=${EPOCHREALTIME/[.,]/} then=${1/[.,]/}
	local hundredths=$(((now - then) / 10000))
	printf '%d.%02d' $((hundredths / 100)) $((hundredths % 100))
}

# userns_run NAME WHAT ARG...: the container NAME, started in the user's
# own user namespace, runs ARG...; its output in $OUTPUT; fail saying
# WHAT with LXC's log unless it succeeds.
userns_run() {
	local name=$1 what=$2 status=0
	shift 2
	OUTPUT=$(lxc_start_in_userns "$name" "$@") || status=$?
	[ "$status" -eq 0 ] || fail "$what: lxc-start exited $status: $OUTPUT
$(lxc_log "$name")"
}

# From the user's session, LXC's usual way: refused before any mark is
# looked at.
lxc_config session "$SHARED_IMAGE" "$LXC_SUBUID" lxc.rootfs.options=idmap=container
status=0
out=$(lxc_start_as_user session /bin/probe stat /) || status=$?
[ "$status" -ne 0 ] ||
	fail "lxc-start from the user's session made an idmapped rootfs of the initial mount namespace: $out"
assert_contains "Operation not permitted - Failed to create detached mount" "$(cat "$LXCPATH/session.log")" \
	"LXC's log of an idmapped rootfs from the user's session (open_tree's clone)"

# In the user's own user namespace: the shared image, its real owners.
before=$(du -sk "$LXCPATH" | cut -f1)
lxc_config shared "$SHARED_IMAGE" 1 lxc.rootfs.options=idmap=container
start=$EPOCHREALTIME
userns_run shared "the test user's LXC container on the marked store's shared image" \
	/bin/probe stat "${OWNER_PATHS[@]}"
shared_start=$(seconds_since "$start")
assert_eq "$REAL_OWNERS" "$(tail -n "${#OWNER_PATHS[@]}" <<<"$OUTPUT")" \
	"owners in the unprivileged LXC container on the marked store's image (idmap=container)"

# Its writes: the container's root as real root, its uid 1000 as 1000.
written+=("$SHARED_IMAGE/root/lxc-$$" "$SHARED_IMAGE/home/user/lxc-$$")
userns_run shared "a write of the container's root" /bin/probe create "/root/lxc-$$"
assert_contains "0:0 " "$(tail -n 1 <<<"$OUTPUT")" "in the container, the owner of the file its root wrote"
assert_eq "0:0" "$(stat -c %u:%g "$SHARED_IMAGE/root/lxc-$$")" \
	"on disk, the owner of a file the container's root wrote"
lxc_config writer "$SHARED_IMAGE" 1 lxc.rootfs.options=idmap=container \
	lxc.init.uid=1000 lxc.init.gid=1000
userns_run writer "a write of the container's uid 1000" /bin/probe create "/home/user/lxc-$$"
assert_contains "1000:1000 " "$(tail -n 1 <<<"$OUTPUT")" "in the container, the owner of the file its uid 1000 wrote"
assert_eq "1000:1000" "$(stat -c %u:%g "$SHARED_IMAGE/home/user/lxc-$$")" \
	"on disk, the owner of a file the container's uid 1000 wrote"
rm -f "${written[@]}"

after=$(du -sk "$LXCPATH" | cut -f1)
image=$(du -sk "$SHARED_IMAGE" | cut -f1)
[ $((after - before)) -lt $((image / 2)) ] ||
	fail "three idmapped containers grew the user's LXC path by $((after - before)) KiB, the image is $image KiB: a copy"

# LXC's usual way: a chowned copy in the user's LXC path, started from
# the user's session with the user's subordinate ids.
start=$EPOCHREALTIME
mkdir "$LXCPATH/copy"
chowned_copy "$SHARED_IMAGE" "$LXCPATH/copy/rootfs" "$LXC_SUBUID" "$LXC_SUBGID"
copy_time=$(seconds_since "$start")
copy_kib=$(du -sk "$LXCPATH/copy/rootfs" | cut -f1)
lxc_config copy "$LXCPATH/copy/rootfs" "$LXC_SUBUID"
start=$EPOCHREALTIME
status=0
out=$(lxc_start_as_user copy /bin/probe stat "${OWNER_PATHS[@]}") || status=$?
copy_start=$(seconds_since "$start")
[ "$status" -eq 0 ] ||
	fail "the test user's LXC container on a chowned copy failed (exit $status): $out
$(lxc_log copy)"
assert_eq "$REAL_OWNERS" "$(tail -n "${#OWNER_PATHS[@]}" <<<"$out")" \
	"owners in the unprivileged LXC container on a chowned copy"

note "LXC $(lxc_version): shared image idmapped, start ${shared_start} s, the user's LXC path +$((after - before)) KiB; chowned copy: ${copy_time} s to make, ${copy_kib} KiB, start ${copy_start} s (image: $(find "$SHARED_IMAGE" | wc -l) entries, $image KiB)"
