# shellcheck shell=bash
# Helpers of the lxc_* tests (sourced after testlib.sh): unprivileged
# LXC containers of the test user, LXC unmodified (Debian 13's 6.0.4),
# each started with lxc-start in the foreground from a configuration of
# the test's own (no template, no network, no console), running the
# image's /bin/probe.  Not a test: the runner runs only *.sh.
#
# LXC makes an idmapped rootfs (`lxc.rootfs.options = idmap=container`)
# in lxc-start's own process, the parent of the container (conf.c's
# lxc_rootfs_prepare_parent: open_tree(OPEN_TREE_CLONE | AT_RECURSIVE),
# then mount_setattr(MOUNT_ATTR_IDMAP) with the container's user
# namespace).  So that process must be root of a user namespace that owns
# its mount namespace, as crun is under rootless podman: LXC's own
# lxc-usernsexec gives it one, mapping the user's uid and gid to 0 and its
# subordinate ids to 1..COUNT (newuidmap), and the container's lxc.idmap
# then names those ids (u 0 1 COUNT), which LXC writes itself there.  lxc-start run from the user's
# session directly (its parent in the initial user namespace, LXC's usual
# way for an unprivileged container) cannot clone a tree of the initial
# mount namespace, on any kernel (lxc_unprivileged_shared_rootfs shows
# it).

# require_lxc: fail unless the guest has LXC (a missing runtime is a
# failure: a test of it is left out only on a release without it,
# runner.sh's "# not-on-release:").
require_lxc() {
	{ command -v lxc-start && command -v lxc-usernsexec; } >/dev/null ||
		fail "LXC is not installed in the guest (rootfs-builder/packages lists lxc for $(. /etc/os-release && echo "$VERSION_CODENAME")'s guest)"
}

# lxc_version: the guest's LXC's version (6.0.4).
lxc_version() { lxc-start --version; }

# lxc_as_user CMD ARG...: CMD as the test user, from /tmp, with its own
# HOME (LXC keeps nothing there with -P) and LXC's runtime directory.
lxc_as_user() {
	su "$TEST_USER" -s /bin/sh -c 'cd /tmp && exec "$@"' -- sh "$@"
}

# lxc_home: $LXCPATH, the test user's LXC path for this test (lxc-start
# -P), a directory of its own in /tmp that its subordinate ids can walk
# (a chowned copy's container root must reach its rootfs there).  The
# caller removes it (lxc_cleanup).
lxc_home() {
	LXCPATH=$(su "$TEST_USER" -s /bin/sh -c 'mktemp -d /tmp/lxc.XXXXXX')
	chmod 0755 "$LXCPATH"
	read -r LXC_SUBUID LXC_SUBCOUNT < <(subid_range "$TEST_USER" /etc/subuid) || true
	read -r LXC_SUBGID _ < <(subid_range "$TEST_USER" /etc/subgid) || true
	[ -n "$LXC_SUBUID" ] || fail "$TEST_USER has no subordinate uids in /etc/subuid"
	[ -n "$LXC_SUBGID" ] ||
		fail "$TEST_USER has no subordinate gids in /etc/subgid"
}

lxc_cleanup() {
	[ -z "${LXCPATH:-}" ] || rm -rf "$LXCPATH"
}

# lxc_config NAME ROOTFS IDMAP_FIRST [KEY=VALUE...]: $LXCPATH/NAME/config,
# an unprivileged container of ROOTFS (a directory), its ids 0..65535
# mapped to IDMAP_FIRST.. of the user namespace lxc-start runs in; each
# KEY=VALUE is one more line ("lxc.rootfs.options=idmap=container").
lxc_config() {
	local name=$1 rootfs=$2 first=$3 line
	shift 3
	mkdir -p "$LXCPATH/$name"
	{
		echo "lxc.uts.name = $name"
		echo "lxc.idmap = u 0 $first 65536"
		echo "lxc.idmap = g 0 $first 65536"
		echo "lxc.rootfs.path = dir:$rootfs"
		# No network but the container's own loopback, no console, no
		# ttys: the container's output is lxc-start's (-F).
		echo "lxc.net.0.type = empty"
		echo "lxc.console.path = none"
		echo "lxc.tty.max = 0"
		echo "lxc.mount.auto = proc:mixed"
		for line in "$@"; do
			echo "${line%%=*} = ${line#*=}"
		done
	} >"$LXCPATH/$name/config"
	# Not -R: a chowned copy's rootfs may be in there.
	chown "$TEST_USER:" "$LXCPATH/$name" "$LXCPATH/$name/config"
}

# lxc_start_as_user NAME ARG...: the container NAME run by the test user
# from its session, LXC's usual way (lxc-start in the initial user
# namespace; its lxc.idmap names the user's subordinate ids, written by
# newuidmap), running ARG...: the container's output on stdout, LXC's
# errors (what the user sees) in $LXCPATH/NAME.stderr, its log at level
# DEBUG in $LXCPATH/NAME.log.
lxc_start_as_user() {
	local name=$1
	shift
	lxc_as_user lxc-start -P "$LXCPATH" -n "$name" -F -l DEBUG -o "$LXCPATH/$name.log" \
		-- "$@" 2>"$LXCPATH/$name.stderr"
}

# lxc_start_in_userns NAME ARG...: the container NAME run by the test
# user's lxc-start as root of a user and mount namespace of the user's
# (lxc-usernsexec: the user's uid and gid as 0, its subordinate ids as
# 1..COUNT), running ARG...; its output and LXC's as lxc_start_as_user's.
lxc_start_in_userns() {
	local name=$1 uid gid
	shift
	uid=$(id -u "$TEST_USER")
	gid=$(id -g "$TEST_USER")
	# Debian's newuidmap is setuid real root, whom this namespace does
	# not map: LXC would run it (it checks only the setuid bit) and it
	# would refuse ("uid range [0-65536) -> [1-65537) not allowed").
	# Without one on its PATH, LXC writes the container's maps itself
	# (idmap_utils.c's lxc_map_ids), as root of this namespace, which
	# maps the ids it names.
	lxc_as_user lxc-usernsexec -m "u:0:$uid:1" -m "g:0:$gid:1" \
		-m "u:1:$LXC_SUBUID:$LXC_SUBCOUNT" -m "g:1:$LXC_SUBGID:$LXC_SUBCOUNT" -- \
		/usr/bin/env PATH=/usr/sbin:/sbin /usr/bin/lxc-start -P "$LXCPATH" -n "$name" \
		-F -l DEBUG -o "$LXCPATH/$name.log" -- "$@" 2>"$LXCPATH/$name.stderr"
}

# lxc_log NAME: what LXC said on stderr and the end of its log of NAME,
# for a failure's message.
lxc_log() {
	cat "$LXCPATH/$1.stderr" 2>/dev/null || true
	echo "--- the end of $LXCPATH/$1.log:"
	tail -n 30 "$LXCPATH/$1.log" 2>/dev/null || echo "(no LXC log at $LXCPATH/$1.log)"
}

# chowned_copy SRC DST FIRST_UID FIRST_GID: LXC's usual way to give an
# unprivileged container an image real root owns: a copy whose every
# owner is moved to the container's subordinate ids (what the user
# would get unpacking the image in its namespace), made by real root.
chowned_copy() {
	local src=$1 dst=$2 first_uid=$3 first_gid=$4 path uid gid
	cp -a "$src" "$dst"
	while IFS=' ' read -r uid gid path; do
		chown -h "$((uid + first_uid)):$((gid + first_gid))" "$path"
	done < <(find "$dst" -printf '%U %G %p\n')
	# chown clears set-id bits: the copy keeps the image's modes.
	while read -r path; do
		chmod "$(stat -c %a "$src/$path")" "$dst/$path"
	done < <(cd "$src" && find . ! -type l -perm /6000)
}
