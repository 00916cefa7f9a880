#!/bin/bash
# `shiftbind allow` refuses a store at or below a system directory however
# it is reached (issue 25, point 8a), before the kernel is asked, and
# --force lets it by:
#   - a bind mount of a subdirectory of a system directory (/usr/share,
#     /etc/default, /var/lib/dpkg), a directory below such a bind, and a
#     bind of a bind: the place in the filesystem decides, not the path
#   - a directory below /run or /var/lib, reached by its path
#   - --suid-host does not change any of it (it skips the set-ID check,
#     which comes after); --force does: what stops it then is the host
#     path's check (host.hook_cli_allow), / being no nodev mount, or the
#     kernel probe (a directory below /run, nodev on Debian)
#   - the control: a bind of a directory outside them passes (it reaches
#     the configfd probe: the host's kernel has none)
. "$(dirname "$0")/../lib/testlib.sh"
. "$(dirname "$0")/hook/lib.sh"
require_root
scratch_dir

build_oci_hook all
cli=$BUILD/shiftbind
nokernel="shiftbind allow: $NO_CONFIGFD"
# What --force lets through to, on a path that / reaches (not nodev).
past_force="any local user can open its images' device nodes through"
why="a mark lends every file under the store to the containers' root; keep the images in a directory of their own outside the system directories (under /srv, see shiftbind(8)) and mark that, or give --force (allow.conf: force) to lend it anyway"

store_base sysdirs
mkdir -p "$BASE/usrshare" "$BASE/etcdefault" "$BASE/dpkg" "$BASE/twice" "$BASE/images" \
	"$BASE/elsewhere/images"
mount --bind /usr/share "$BASE/usrshare"
mount --bind /etc/default "$BASE/etcdefault"
mount --bind /var/lib/dpkg "$BASE/dpkg"
mount --bind "$BASE/usrshare" "$BASE/twice"
mount --bind "$BASE/elsewhere/images" "$BASE/images"
run_dir=$(mktemp -d /run/shiftbind-store.XXXXXX)
lib_dir=$(mktemp -d /var/lib/shiftbind-store.XXXXXX)
chmod 0755 "$run_dir" "$lib_dir"
trap 'remove_store_base; rmdir "$run_dir" "$lib_dir"' EXIT
before=$(cat /proc/self/mountinfo)

# refused MESSAGE PATH: allow PATH and allow --suid-host PATH both exit 1
# with exactly MESSAGE; allow --force --suid-host PATH gets past it, to
# the device-node check of the host paths or to the kernel.
refused() {
	local want="shiftbind allow: $1" path=$2
	assert_status 1 "$cli" allow "$path"
	assert_eq "$want" "$OUTPUT" "shiftbind allow $path"
	assert_status 1 "$cli" allow --suid-host "$path"
	assert_eq "$want" "$OUTPUT" "shiftbind allow --suid-host $path"
	assert_status 1 "$cli" allow --force --suid-host "$path"
	[[ $OUTPUT == "$nokernel" || $OUTPUT == *"$past_force"* ]] ||
		fail "shiftbind allow --force --suid-host $path: want \"$nokernel\" or \"...$past_force...\", got: $OUTPUT"
}

refused "refusing to mark \`$BASE/usrshare\` allow-shift: it is /usr/share, below /usr (the host's programs and libraries), reached through a bind mount, and $why" \
	"$BASE/usrshare"
refused "refusing to mark \`$BASE/usrshare/doc\` allow-shift: it is /usr/share/doc, below /usr (the host's programs and libraries), reached through a bind mount, and $why" \
	"$BASE/usrshare/doc"
refused "refusing to mark \`$BASE/twice\` allow-shift: it is /usr/share, below /usr (the host's programs and libraries), reached through a bind mount, and $why" \
	"$BASE/twice"
refused "refusing to mark \`$BASE/etcdefault\` allow-shift: it is /etc/default, below /etc (the host's configuration and secrets), reached through a bind mount, and $why" \
	"$BASE/etcdefault"
refused "refusing to mark \`$BASE/dpkg\` allow-shift: it is /var/lib/dpkg, below /var/lib (every service's state), reached through a bind mount, and $why" \
	"$BASE/dpkg"
refused "refusing to mark \`$run_dir\` allow-shift: it is below /run (the host's runtime state), and $why" \
	"$run_dir"
refused "refusing to mark \`$lib_dir\` allow-shift: it is below /var/lib (every service's state), and $why" \
	"$lib_dir"
refused "refusing to mark \`/var/lib\` allow-shift: it is a system directory (every service's state), and $why" \
	/var/lib

# The control: a bind, but of a directory that is no system directory's.
assert_status 1 "$cli" allow "$BASE/images"
assert_eq "$nokernel" "$OUTPUT" "shiftbind allow of a bind outside the system directories"

assert_eq "$before" "$(cat /proc/self/mountinfo)" "mount table after the refused commands"
echo "system directories refused however they are reached"
