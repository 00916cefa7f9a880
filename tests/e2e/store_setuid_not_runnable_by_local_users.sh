#!/bin/bash
# No local user runs an image's setuid-root program as real root from the
# store's host path, in any state of the mark: not yet marked (the boot
# before shiftbind-allow, a failed apply), marked `--suid` (set-ID bits
# for the containers' shifts only: shift-suid), and after `disallow` and
# umount.  The guest's stores live under /srv, a nosuid bind from
# /etc/fstab.  Meanwhile a container on the store still runs the program
# as its own root.  A store that a suid mount reaches is refused, leaving
# nothing mounted; with --suid-host (and the store on a nodev bind of
# itself: a dev mount is refused, --suid-host or not) it is marked, and
# the risk the refusal names is real: the program then runs as real root.
. "$(dirname "$0")/../lib/testlib.sh"
require_guest
scratch_dir

image_store e2e-suid
prog=$STORE/busybox/bin/probe-suid
exposed=/e2e-suid-host-$$
cleanup() {
	remove_image_store
	while mountpoint -q "$exposed"; do umount "$exposed" || break; done
	rm -rf "$exposed" "$SCRATCH"
}
trap cleanup EXIT

# local_user_runs WHO STATE: WHO runs the program from the host path and
# keeps its own ids.
local_user_runs() {
	local uid
	uid=$(id -u "$1")
	assert_status 0 runuser -u "$1" -- "$prog" id
	assert_eq "uid=$uid gid=$(id -g "$1") euid=$uid egid=$(id -g "$1")" "$OUTPUT" \
		"$prog run by $1 from the host path, $2"
}

assert_eq "0:0 4755" "$(stat -c '%u:%g %a' "$prog")" "the image's setuid-root program"
for who in nobody "$TEST_USER"; do local_user_runs "$who" "before the mark"; done

assert_status 0 shiftbind allow --suid --owner 0 --owner "$TEST_USER" "$STORE"
assert_contains "marked $STORE allow-shift, read-only, nosuid, shift-suid" "$OUTPUT" "shiftbind allow --suid"
assert_contains "ignored (nosuid) on the host path" "$OUTPUT" "shiftbind allow --suid"
for who in nobody "$TEST_USER"; do local_user_runs "$who" "while marked --suid"; done

# The container's root runs it, through its shift (crun's default
# no_new_privs would ignore the bit).
make_bundle "$SCRATCH/c" "$STORE/busybox" "0 100000 65536" "0 100000 65536" /bin/probe-suid id
run_as_user "$SCRATCH/c" 1000 1000
jq '.process.noNewPrivileges = false' "$SCRATCH/c/config.json" >"$SCRATCH/c/config.json.new"
mv "$SCRATCH/c/config.json.new" "$SCRATCH/c/config.json"
with_hook "$SCRATCH/c"
assert_status 0 crun_run "$SCRATCH/c" e2e-suid-$$
assert_eq "uid=1000 gid=1000 euid=0 egid=1000" "$OUTPUT" "the program run by uid 1000 in a shifted container"

assert_status 0 shiftbind disallow "$STORE"
while mountpoint -q "$STORE"; do umount "$STORE"; done
for who in nobody "$TEST_USER"; do local_user_runs "$who" "after disallow and umount"; done

# A store on the root filesystem, which is suid: refused, nothing mounted.
mkdir -m 0711 "$exposed"
cp -a "$SHARED_IMAGE" "$exposed/busybox"
assert_status 1 shiftbind allow --suid "$exposed"
assert_contains "refusing to mark \`$exposed\`: any local user can run its images' set-user-ID programs as real root through \`$exposed\`" \
	"$OUTPUT" "the refusal"
assert_contains "or accept the risk with --suid-host" "$OUTPUT" "the refusal's remedy"
mountpoint -q "$exposed" && fail "the refused store was mounted: $(grep " $exposed " /proc/self/mountinfo)"
# --suid-host accepts the set-ID risk only: the root filesystem opens
# device nodes too, which nothing accepts.
assert_status 1 shiftbind allow --suid-host "$exposed"
assert_contains "refusing to mark \`$exposed\`: any local user can open its images' device nodes through \`$exposed\`" \
	"$OUTPUT" "the device-node refusal"
mountpoint -q "$exposed" && fail "the refused store was mounted: $(grep " $exposed " /proc/self/mountinfo)"
mount --bind "$exposed" "$exposed"
mount -o remount,bind,nodev "$exposed"
assert_status 0 shiftbind allow --suid-host "$exposed"
assert_contains "honoured (suid-host: as real root, for every local user) on the host path" \
	"$OUTPUT" "shiftbind allow --suid-host"
assert_status 0 runuser -u nobody -- "$exposed/busybox/bin/probe-suid" id
assert_eq "uid=65534 gid=65534 euid=0 egid=65534" "$OUTPUT" \
	"the program run by nobody from a --suid-host store (the risk the refusal names)"
