#!/bin/bash
# `shiftbind patch-config`, run by root, rewrites no config.json that
# another user chose (issue 47, part 5): the bundle is opened from "/"
# through no symbolic link, every directory on the way must be root's
# (or the caller's) and writable by no one else (an ancestor with the
# sticky bit, as /tmp, excepted), and config.json is read and replaced
# through that one directory fd.
#   - a bundle path that is a user's symbolic link (in root's directory,
#     or in the user's own) to a root-owned 0700 directory with a 0600
#     config.json is refused, and that config.json is byte-identical
#     and the same inode afterwards, with no file added beside it
#   - a bundle in a directory a user owns, in one others can write
#     (0777, no sticky bit), and a bundle directory its group can write
#     are refused, each naming the directory and the remedy
#   - a root-owned bundle in a sticky 1777 directory is still patched,
#     and so is a user's bundle when that user runs patch-config
. "$(dirname "$0")/../lib/testlib.sh"
. "$(dirname "$0")/hook/lib.sh"
require_root
scratch_dir

build_oci_hook all
cli=$BUILD/shiftbind
user=65534 # nobody: a user other than root, whatever the host calls it
chmod 0755 "$SCRATCH"

# bundle DIR MODE: a minimal bundle in DIR (mode MODE, root's) with a
# 0600 config.json.
bundle() {
	install -d -m "$2" "$1"
	jq -n '{ociVersion: "1.0.2", root: {path: "rootfs"},
		process: {args: ["/bin/true"], cwd: "/"}}' >"$1/config.json"
	chmod 0600 "$1/config.json"
}

# The target root keeps private: 0700, config.json 0600.
secret=$SCRATCH/secret
bundle "$secret" 0700
cp "$secret/config.json" "$SCRATCH/secret.orig"
before=$(stat -c '%i %Y %s' "$secret/config.json")
unchanged() {
	cmp -s "$secret/config.json" "$SCRATCH/secret.orig" ||
		fail "$1: root's config.json was rewritten: $(cat "$secret/config.json")"
	assert_eq "$before" "$(stat -c '%i %Y %s' "$secret/config.json")" "$1: config.json's inode, mtime, size"
	assert_eq "config.json" "$(ls -A "$secret")" "$1: the files of root's bundle"
}

# A user's symbolic link, in root's directory.
ln -s "$secret" "$SCRATCH/link"
chown -h "$user:$user" "$SCRATCH/link"
assert_status 1 "$cli" patch-config "$SCRATCH/link"
assert_eq "shiftbind patch-config: refusing bundle \`$SCRATCH/link\`: \`$SCRATCH/link\` is a symbolic link: patch-config follows no link to the bundle, since whoever can change the link would choose which config.json is rewritten; name the bundle by its real path" \
	"$OUTPUT" "a symbolic link as the bundle"
unchanged "a symbolic link as the bundle"
# The same with a trailing slash or "/.", which would make open(2) follow it.
for suffix in / /.; do
	assert_status 1 "$cli" patch-config --rootless "$SCRATCH/link$suffix"
	assert_contains "\`$SCRATCH/link\` is a symbolic link" "$OUTPUT" "the link as $SCRATCH/link$suffix"
	unchanged "the link as $SCRATCH/link$suffix"
done

# The same link in the user's own directory: refused at the directory,
# which the user could also swap later.
install -d -o "$user" -g "$user" -m 0755 "$SCRATCH/home"
ln -s "$secret" "$SCRATCH/home/bundle"
chown -h "$user:$user" "$SCRATCH/home/bundle"
assert_status 1 "$cli" patch-config "$SCRATCH/home/bundle"
assert_eq "shiftbind patch-config: refusing bundle \`$SCRATCH/home/bundle\`: \`$SCRATCH/home\` (on the way to \`$SCRATCH/home/bundle\`) is owned by uid $user, not root: that user could swap the bundle for another directory and choose which config.json is rewritten; run patch-config as that user, or keep the bundle below directories that only root or you can write" \
	"$OUTPUT" "a link in the user's directory"
unchanged "a link in the user's directory"

# A real bundle, root's, in the user's directory: the user could rename
# it away and put a link there between the check and the write.
bundle "$SCRATCH/home/real" 0700
assert_status 1 "$cli" patch-config "$SCRATCH/home/real"
assert_contains "\`$SCRATCH/home\` (on the way to \`$SCRATCH/home/real\`) is owned by uid $user, not root" \
	"$OUTPUT" "a bundle in the user's directory"
# A directory everyone can write, without the sticky bit.
install -d -m 0777 "$SCRATCH/open"
bundle "$SCRATCH/open/b" 0755
cp "$SCRATCH/open/b/config.json" "$SCRATCH/open.orig"
assert_status 1 "$cli" patch-config "$SCRATCH/open/b"
assert_eq "shiftbind patch-config: refusing bundle \`$SCRATCH/open/b\`: \`$SCRATCH/open\` (on the way to \`$SCRATCH/open/b\`) is writable by its group and others (mode 0777): they could swap the bundle for another directory and choose which config.json is rewritten; chmod go-w it (a shared directory such as /tmp needs its sticky bit, chmod +t), or keep the bundle below directories that only root or you can write" \
	"$OUTPUT" "a bundle in a 0777 directory"
cmp -s "$SCRATCH/open/b/config.json" "$SCRATCH/open.orig" || fail "a refused bundle was rewritten"
# The bundle directory itself writable by its group: a sticky bit does
# not help there.
bundle "$SCRATCH/grp" 0775
chmod +t "$SCRATCH/grp"
assert_status 1 "$cli" patch-config "$SCRATCH/grp"
assert_contains "\`$SCRATCH/grp\` is writable by its group (mode 1775)" "$OUTPUT" "a group-writable bundle"

# Root's bundle in a sticky 1777 directory, as in /tmp: patched.
install -d -m 1777 "$SCRATCH/shared"
bundle "$SCRATCH/shared/root" 0700
assert_status 0 "$cli" patch-config "$SCRATCH/shared/root"
assert_eq "$SCRATCH/shared/root/config.json: hook registered at createRuntime" "$OUTPUT" "root's bundle in a sticky directory"
assert_eq "0:0 600" "$(stat -c '%u:%g %a' "$SCRATCH/shared/root/config.json")" "the patched config.json's owner and mode"
jq -e '.hooks.createRuntime == [{path: "/usr/libexec/shiftbind/shiftbind-hook",
	args: ["shiftbind-hook", "createRuntime"], timeout: 10}]' \
	"$SCRATCH/shared/root/config.json" >/dev/null ||
	fail "root's bundle: $(jq -c .hooks "$SCRATCH/shared/root/config.json")"
# A user's own bundle there, patched by that user (the rootless way).
bundle "$SCRATCH/shared/user" 0700
chown -R "$user:$user" "$SCRATCH/shared/user"
assert_status 0 setpriv --reuid="$user" --regid="$user" --clear-groups \
	"$cli" patch-config --rootless "$SCRATCH/shared/user"
assert_eq "$SCRATCH/shared/user/config.json: hook registered at createContainer" "$OUTPUT" "the user's bundle, by the user"
assert_eq "$user:$user 600" "$(stat -c '%u:%g %a' "$SCRATCH/shared/user/config.json")" "the user's config.json"
# ...and by root, refused: that user could swap it.
assert_status 1 "$cli" patch-config --rootless "$SCRATCH/shared/user"
assert_contains "\`$SCRATCH/shared/user\` is owned by uid $user, not root" "$OUTPUT" "the user's bundle, by root"
unchanged "the end"
echo "patch-config follows no link to a bundle and refuses one others can swap"
