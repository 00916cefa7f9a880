#!/bin/bash
# `shiftbind apply-config` reads no allow.conf that someone other than
# root could have written (issue 47, part 5), as sshd's StrictModes
# reads no authorized_keys: the file must be root's and writable by
# neither its group nor others, every directory from / to it root's and
# writable by no one else (one with the sticky bit excepted, as /tmp),
# and no symbolic link on the way.  Otherwise nothing is marked, and the
# message names the file or directory and the remedy.  The host's kernel
# has no configfd: a file that is read shows its line reaching the
# kernel ("this kernel has no configfd"); a refused one shows nothing of
# its lines.  e2e.allow_conf_unsafe_file_refused shows no mark is made.
. "$(dirname "$0")/../lib/testlib.sh"
. "$(dirname "$0")/hook/lib.sh"
require_root
scratch_dir

build_oci_hook all
cli=$BUILD/shiftbind
user=65534
store_base unsafeconf
mkdir "$BASE/store"
before=$(cat /proc/self/mountinfo)
chmod 0755 "$SCRATCH"

# conf FILE: an allow.conf at FILE listing the store, root's and 0644.
conf() {
	printf '%s\n' "$BASE/store" >"$1"
	chown root:root "$1"
	chmod 0644 "$1"
}
read_whole="shiftbind: %s:1: $NO_CONFIGFD"
# refused FILE MESSAGE: apply-config FILE exits 1 saying MESSAGE, and
# no line of the file was tried.
refused() {
	assert_status 1 "$cli" apply-config "$1"
	assert_eq "shiftbind apply-config: refusing $1, nothing marked: $2" "$OUTPUT" "apply-config $1"
}
# read FILE: apply-config FILE reads the file and tries its line.
read_file() {
	assert_status 1 "$cli" apply-config "$1"
	# shellcheck disable=SC2059 # the format is ours
	assert_contains "$(printf "$read_whole" "$1")" "$OUTPUT" "apply-config $1"
}
remedy() { echo "make it root's and writable by root only: chown root:root $1; chmod 644 $1"; }

f=$SCRATCH/allow.conf
conf "$f"
read_file "$f"
# The file a user's.
chown "$user" "$f"
refused "$f" "\`$f\` is owned by uid $user, not root: that user could choose which stores are marked and for whom; $(remedy "$f")"
# Writable by its group, by others, by both.
conf "$f"
chmod 0664 "$f"
refused "$f" "\`$f\` is writable by its group (mode 0664): they could choose which stores are marked and for whom; $(remedy "$f")"
chmod 0646 "$f"
refused "$f" "\`$f\` is writable by others (mode 0646): they could choose which stores are marked and for whom; $(remedy "$f")"
chmod 0666 "$f"
refused "$f" "\`$f\` is writable by its group and others (mode 0666): they could choose which stores are marked and for whom; $(remedy "$f")"
# The remedy the message gives makes it readable.
chown root:root "$f"
chmod 644 "$f"
read_file "$f"

# In a directory a user owns, or that others can write without the
# sticky bit: the file could be replaced.
install -d -o "$user" -m 0755 "$SCRATCH/user"
conf "$SCRATCH/user/allow.conf"
refused "$SCRATCH/user/allow.conf" "\`$SCRATCH/user\` (on the way to \`$SCRATCH/user/allow.conf\`) is owned by uid $user, not root: that user could replace the file and choose which stores are marked and for whom; make it root's (chown root:root it) or keep the file in a directory only root can write"
install -d -m 0777 "$SCRATCH/open"
conf "$SCRATCH/open/allow.conf"
refused "$SCRATCH/open/allow.conf" "\`$SCRATCH/open\` (on the way to \`$SCRATCH/open/allow.conf\`) is writable by its group and others (mode 0777): they could replace the file and choose which stores are marked and for whom; chmod go-w it (a shared directory such as /tmp needs its sticky bit, chmod +t), or keep the file in a directory only root can write"
# With the sticky bit, as /tmp: others cannot replace root's file there.
chmod 1777 "$SCRATCH/open"
read_file "$SCRATCH/open/allow.conf"

# A symbolic link, as the file or on the way.
ln -s allow.conf "$SCRATCH/link.conf"
refused "$SCRATCH/link.conf" "\`$SCRATCH/link.conf\` is a symbolic link: the file is read through no symbolic link, so that the file checked is the file read; name it by its real path"
ln -s "$SCRATCH" "$SCRATCH/dirlink"
refused "$SCRATCH/dirlink/allow.conf" "\`$SCRATCH/dirlink\` is a symbolic link: the file is read through no symbolic link, so that the file checked is the file read; name it by its real path"
# Not a regular file.
mkfifo -m 0644 "$SCRATCH/fifo.conf"
refused "$SCRATCH/fifo.conf" "\`$SCRATCH/fifo.conf\` is not a regular file"

assert_eq "$before" "$(cat /proc/self/mountinfo)" "mount table after apply-config"
echo "allow.conf: read only when root's and writable by root only, below root's directories"
