#!/bin/bash
# The confined hook can do only the shift it prepared (issue 25: under
# the hook's filter, a process with its credentials re-marked a store
# for owner 65534 from inside a container's mount namespace, and the
# host's mark changed).  hook-confined-attacker (tests/hook/src) does
# what the hook does before confining, with the hook's own code: as real
# root it joins a container's mount namespace (a user namespace mapped
# 0 100000 65536 whose root bound the shared image, as crun binds a
# rootfs), prepares the shift of that bind, and installs the hook's
# filter.  Then, as an exploit would, it tries against a marked store:
#   - a new mark for owner 65534, and disallow-shift (configfd_open);
#   - the prepared configfd turned into a mark (allow-shift, an owner),
#     pointed at the store, used for CMD_CREATE, and its shift run from
#     an fd number the filter does not reserve;
#   - clearing read-only and nosuid (mount_setattr), cloning the store
#     (open_tree), moving it (move_mount), fsopen, fspick, a read-write
#     remount, an unmount, a new socket;
# every one gets EPERM, the store's mount options (its mark, its owners,
# ro) are unchanged, and the prepared shift then works, in the
# container's namespace only.  The control: the same program with the
# same credentials, without the filter, does re-mark the store for
# 65534, which this test sees.
. "$(dirname "$0")/../lib/testlib.sh"
. "$(dirname "$0")/hooklib.bash"
require_guest
scratch_dir

attacker=$SHIFTBIND_GUEST_LIB/hook-confined-attacker
store=/srv/hook-attack-$$
refusing_store "$store"
SLEEPER=
trap 'kill "$SLEEPER" 2>/dev/null || true; remove_image_store; rm -rf "$SCRATCH"' EXIT

# mount_options PATH [MOUNTINFO]: the options of the mount at PATH.
mount_options() {
	awk -v p="$1" '$5 == p { print $6 }' "${2:-/proc/self/mountinfo}"
}

before=$(mount_options "$store")
assert_match '^ro,.*(^|,)allow-shift(=[0-9:-]+)?(,|$)' "$before" "the store's mount before"

# The container: a user namespace mapped 0 100000 65536 owning a mount
# namespace, where its root (nsenter sets uid 0 there) binds the image,
# as crun's child binds the rootfs.
chmod 0711 "$SCRATCH"
mkdir "$SCRATCH/target"
userns_sleeper "0 100000 65536" "0 100000 65536" --mount --propagation private
assert_status 0 nsenter -t "$SLEEPER" -U -m mount --bind "$SHARED_IMAGE" "$SCRATCH/target"
[ -n "$(mount_options "$SCRATCH/target" "/proc/$SLEEPER/mountinfo")" ] ||
	fail "no bind of $SHARED_IMAGE in the container's mount namespace"

# Confined: every attempt refused by the filter, then the prepared shift.
assert_status 0 "$attacker" "$SLEEPER" "$SCRATCH/target" "$store"
assert_eq "open-store-read-only: ok
mark: EPERM
unmark: EPERM
prepared-configfd-retarget: EPERM
prepared-configfd-allow-shift: EPERM
prepared-configfd-owner: EPERM
prepared-configfd-create: EPERM
other-fd-reconfigure: EPERM
mount_setattr: EPERM
open_tree: EPERM
move_mount: EPERM
fsopen: EPERM
fspick: EPERM
remount: EPERM
umount2: EPERM
socket: EPERM
prepared-shift: ok" "$OUTPUT" "what the confined hook's credentials could do"
assert_eq "$before" "$(mount_options "$store")" "the store's mount after the confined attempts"
assert_match '(^|,)shift(,|$)' "$(mount_options "$SCRATCH/target" "/proc/$SLEEPER/mountinfo")" \
	"the prepared shift, in the container's mount namespace"
[[ ! $(mount_options "$IMAGE_STORE") =~ (^|,)shift(,|$) ]] ||
	fail "the host's $IMAGE_STORE is shifted: $(mount_options "$IMAGE_STORE")"

# Control: the same, unconfined, re-marks the store for 65534.
assert_status 0 "$attacker" --unconfined --only mark "$SLEEPER" "$SCRATCH/target" "$store"
assert_eq "open-store-read-only: ok
mark: ok" "$OUTPUT" "the unconfined control"
assert_match '(^|,)allow-shift=65534(,|$)' "$(mount_options "$store")" \
	"the store's mount after the unconfined control (before: $before)"
