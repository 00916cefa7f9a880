#!/bin/bash
# shiftbind allow, disallow and apply-config (release build) on the host,
# whose kernel has no configfd.  Every refusal of a store comes before the
# kernel is asked, so each is seen here with its exact message; a store
# that passes them all reaches the configfd probe instead ("this kernel
# has no configfd"), which shows that each check can pass as well as fail:
#   - the path: "/", /etc, below /usr, a bind of /etc elsewhere (and
#     --force, which lets those through and nothing else), a symbolic
#     link last or on the way, "..", not a directory, missing
#   - set-ID programs: a store that a suid mount reaches (the system
#     directories on /, a suid bind of the store's directory) is refused
#     unless --suid-host; one on a nosuid tmpfs passes
#   - device nodes: a store that a mount without nodev reaches (/, a dev
#     bind of the store's directory) is refused, --suid-host or not
#   - the directories on the way: owned by a user, writable by others,
#     by the group, sticky 1777; the store itself owned by a user
#   - --owner: unknown user, bad range, out of range, overlap, 17 owners
#     (16 pass), the retired --ro/--nosuid
#   - disallow: a symbolic link, no mount point, a mount without a mark
#   - the mount table is the same afterwards
# allow.conf: host.allow_conf_bad_line_isolated.
. "$(dirname "$0")/../lib/testlib.sh"
. "$(dirname "$0")/hook/lib.sh"
require_root
scratch_dir

build_oci_hook all
cli=$BUILD/shiftbind
nokernel="this kernel has no configfd"

store_base allow
base=$BASE
mkdir -p "$base/good/sub" "$base/etcbind" "$base/mounted" \
	"$base/open/store" "$base/group/store" "$base/sticky/store" "$base/other/store" \
	"$base/user/store" "$base/mine" "$base/suidbind" "$base/devstore" "$base/devbind"
chmod 0777 "$base/open"
chmod 0775 "$base/group"
chmod 1777 "$base/sticky"
chmod 0757 "$base/other"
chown 4321 "$base/user" "$base/mine"
ln -s good "$base/link"
touch "$base/file"
mount --bind /etc "$base/etcbind"
mount --bind "$base/mounted" "$base/mounted"
mount --bind "$base/good/sub" "$base/suidbind"
mount -o remount,bind,suid "$base/suidbind"
mount --bind "$base/devstore" "$base/devbind"
mount -o remount,bind,dev "$base/devbind"
before=$(cat /proc/self/mountinfo)

# refused PATTERN ARG...: `shiftbind ARG...` exits 1 saying PATTERN, and
# never reaches the kernel probe.
refused() {
	local want=$1
	shift
	assert_status 1 "$cli" "$@"
	assert_contains "$want" "$OUTPUT" "shiftbind $*"
	[[ $OUTPUT != *"$nokernel"* ]] || fail "shiftbind $* reached the kernel probe: $OUTPUT"
}
# passes ARG...: every check passes and the missing kernel is named.
passes() {
	assert_status 1 "$cli" "$@"
	assert_eq "shiftbind ${1}: $NO_CONFIGFD" \
		"$OUTPUT" "shiftbind $*"
}

# Why a system directory is refused, and what to do: after every reason.
force_hint="and a mark lends every file under the store to the containers' root; keep the images in a directory of their own outside the system directories (under /srv, see shiftbind(8)) and mark that, or give --force (allow.conf: force) to lend it anyway"

# The control: a store that passes, absolute, relative, with a trailing
# slash, with every option.
passes allow "$base/good"
(cd "$base" && passes allow good/)
passes allow --rw --suid --owner root --owner 1001 --owner 100000-165535 "$base/good"

# System directories, below them, and binds of them; --force lets them by
# (binds of their subdirectories, /run and /var/lib:
# host.allow_refuses_system_subdirs).
refused "refusing to mark \`/\` allow-shift: it is a system directory (the whole file system), $force_hint" \
	allow /
refused "refusing to mark \`/etc\` allow-shift: it is a system directory (the host's configuration and secrets), $force_hint" \
	allow /etc
refused "refusing to mark \`/var\` allow-shift: it is a system directory (the host's variable data)" \
	allow /var
refused "refusing to mark \`/usr/share\` allow-shift: it is below /usr (the host's programs and libraries), $force_hint" \
	allow /usr/share
refused "refusing to mark \`$base/etcbind\` allow-shift: it is /etc (the host's configuration and secrets), reached through a bind mount, $force_hint" \
	allow "$base/etcbind"
suid_risk="any local user can run its images' set-user-ID programs as real root through"
refused "refusing to mark \`$base/etcbind\`: $suid_risk \`/etc\` (mount " \
	allow --force "$base/etcbind"
refused "refusing to mark \`/etc\`: $suid_risk \`/etc\` (mount " allow --force /etc
refused "not nosuid), whether it is marked or not; put the store on a nosuid mount first (a filesystem of its own mounted nosuid, or a bind of it onto itself: \`mount -o bind,nosuid,nodev /usr/share /usr/share\` and the same in /etc/fstab), or accept the risk with --suid-host" \
	allow --force /usr/share
# --suid-host accepts the set-ID risk; / is not nodev either.
dev_risk="any local user can open its images' device nodes through"
refused "refusing to mark \`$base/etcbind\`: $dev_risk \`/etc\` (mount " \
	allow --force --suid-host "$base/etcbind"
refused "refusing to mark \`/etc\`: $dev_risk \`/etc\` (mount " allow --force --suid-host /etc
refused "not nodev), whether it is marked or not, with the mode the image gives them or the owner of a read-write shift sets; put the store on a nodev mount first (a filesystem of its own mounted nodev, or a bind of it onto itself: \`mount -o bind,nosuid,nodev /usr/share /usr/share\` and the same in /etc/fstab)" \
	allow --force --suid-host /usr/share

# Another mount of the store's filesystem that is not nosuid reaches it.
refused "refusing to mark \`$base/good/sub\`: $suid_risk \`$base/suidbind\` (mount " \
	allow "$base/good/sub"
passes allow --suid-host "$base/good/sub"

# Another mount of the store's filesystem that is not nodev reaches it.
refused "refusing to mark \`$base/devstore\`: $dev_risk \`$base/devbind\` (mount " \
	allow "$base/devstore"
refused "refusing to mark \`$base/devstore\`: $dev_risk \`$base/devbind\` (mount " \
	allow --suid-host "$base/devstore"

# Links: none is followed, neither last nor on the way; no "..".
refused "\`$base/link\` is a symbolic link: the store is resolved without following links, so that what is checked is what is marked; name it by its real path" \
	allow "$base/link"
refused "\`$base/link\` is a symbolic link" allow "$base/link/sub"
refused "\`$base/link\` is a symbolic link" allow --force "$base/link"
refused "\`$base/good/../good\`: \"..\" in the path; name the store without it" \
	allow "$base/good/../good"
refused "\`$base/file\` is not a directory" allow "$base/file"
refused "open \`$base/nope\`: No such file or directory" allow "$base/nope/store"

# Who could swap the store: the directories on the way and the store itself.
refused "\`$base/open\` (on the way to \`$base/open/store\`) is writable by its group and others (mode 0777): they could replace the store; chmod go-w it or choose a store whose directories only root can write" \
	allow "$base/open/store"
refused "\`$base/open\` (on the way to \`$base/open/store\`) is writable by its group and others" \
	allow --force "$base/open/store"
refused "\`$base/group\` (on the way to \`$base/group/store\`) is writable by its group (mode 0775)" \
	allow "$base/group/store"
refused "\`$base/other\` (on the way to \`$base/other/store\`) is writable by others (mode 0757)" \
	allow "$base/other/store"
refused "\`$base/sticky\` (on the way to \`$base/sticky/store\`) is writable by its group and others (mode 1777)" \
	allow "$base/sticky/store"
refused "\`$base/user\` (on the way to \`$base/user/store\`) is owned by uid 4321, not root: that user could replace the store; make root own it (chown root) or choose a store whose directories are all root's" \
	allow "$base/user/store"
refused "\`$base/mine\` is owned by uid 4321, not root" allow "$base/mine"
refused "is writable by its group and others (mode 1777)" allow /tmp/anything

# --owner, checked before the path.
refused "shiftbind allow: --owner no-such-user-x: no such user in /etc/passwd (give a uid or a range FIRST-LAST for users it does not list)" \
	allow --owner no-such-user-x "$base/good"
refused "shiftbind allow: --owner 10-5: the range ends before it starts (write FIRST-LAST, FIRST <= LAST)" \
	allow --owner 10-5 "$base/good"
refused "shiftbind allow: --owner 1-: not a uid, a range FIRST-LAST or a user name" \
	allow --owner 1- "$base/good"
refused "shiftbind allow: --owner 4294967295: uid out of range (0 to 4294967294)" \
	allow --owner 4294967295 "$base/good"
refused "shiftbind allow: --owner 0: overlaps 0, given before: list each uid once" \
	allow --owner root --owner 0 "$base/good"
owners=()
for i in $(seq 1 16); do owners+=(--owner "$((1000 + i))"); done
passes allow "${owners[@]}" "$base/good"
refused "shiftbind allow: --owner 2000: more than 16 owners; a mark lists at most 16 (join uids into ranges FIRST-LAST)" \
	allow "${owners[@]}" --owner 2000 "$base/good"
assert_status 2 "$cli" allow --ro "$base/good"
assert_contains "Usage: shiftbind allow [--rw] [--suid] [--suid-host] [--owner WHO]... [--group NAME]... [--force] PATH" "$OUTPUT"
assert_status 2 "$cli" allow --nosuid "$base/good"
assert_status 2 "$cli" allow --owner

# disallow: the same resolution; only a marked mount root has a mark to withdraw.
refused "\`$base/link\` is a symbolic link" disallow "$base/link"
refused "\`$base/good\` is not a mount point, so it carries no mark of its own; name the marked store (\`shiftbind status\` lists them)" \
	disallow "$base/good"
refused "\`$base/mounted\` is not marked allow-shift (or its mark was withdrawn already): nothing to withdraw (\`shiftbind status\` lists the marks; --revoke takes back the shifts of a withdrawn mark)" \
	disallow "$base/mounted"
# --revoke: a withdrawn mark is not in mountinfo, so the kernel decides.
refused "\`$base/link\` is a symbolic link" disallow --revoke "$base/link"
passes disallow --revoke "$base/mounted"
assert_status 2 "$cli" disallow
assert_status 2 "$cli" disallow --revoke
assert_status 2 "$cli" disallow --rw "$base/good"

assert_eq "$before" "$(cat /proc/self/mountinfo)" "mount table after the refused commands"
echo "allow and disallow refusals checked"
