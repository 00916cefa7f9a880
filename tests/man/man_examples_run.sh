#!/bin/bash
# The man pages' EXAMPLES, run as they read: every session of every page
# (tests/lib/man-examples.sh), page by page in order, each by the user its
# first prompt names ("# " real root, "$ " the test user, with Debian's
# default PATH and LANG=C), its commands fed to one shell so that a
# command like "unshare -Urm" takes the lines after it, up to "exit".
# Each command's output (stdout and stderr) must be the output the page
# shows, line for line ("..." standing for any lines); a command shown
# without output must print nothing and exit 0.  The page's programs
# (".\" SRC BEGIN (NAME.c)") were built from the page by the Makefile and
# are in the sessions' working directory.  What a page's sessions leave
# (mounts, marks, files in /srv, /mnt and the test user's home) is
# removed before the next page.
. "$(dirname "$0")/../lib/testlib.sh"
require_guest

readonly MAN_DIR=$SHIFTBIND_GUEST_LIB/man
readonly PROGRAMS=$SHIFTBIND_GUEST_LIB/man-examples
readonly EXTRACT=$SHIFTBIND_TESTS/lib/man-examples.sh
readonly STORE=/srv/store
readonly USER_HOME=/home/$TEST_USER
readonly SEP=$'\036'
WORK=$(mktemp -d)
failures=()

[ -d "$MAN_DIR" ] || fail "no man pages in $MAN_DIR: rootfs-builder/build-image.sh installs docs/man there"

# snapshot: the mount points and the entries of the directories examples
# may add to, to undo a page's sessions.
snapshot() {
	awk '{ print $5 }' /proc/self/mountinfo | sort -u >"$WORK/mounts.$1"
	find /srv /mnt "$USER_HOME" -mindepth 1 -maxdepth 1 | sort >"$WORK/entries.$1"
}

# undo_page: unmount what the page mounted (the deepest first; unmounting
# a marked mount withdraws its mark) and remove what it created.
undo_page() {
	local mnt entry
	snapshot after
	while read -r mnt; do
		for _ in 1 2 3 4; do
			umount "$mnt" 2>/dev/null || break
		done
		! awk -v m="$mnt" '$5 == m { found = 1 } END { exit !found }' /proc/self/mountinfo ||
			fail "cannot unmount $mnt, which an example mounted: $(umount "$mnt" 2>&1)"
	done < <(comm -13 "$WORK/mounts.before" "$WORK/mounts.after" | sort -r)
	while read -r entry; do
		rm -rf -- "$entry"
	done < <(comm -13 "$WORK/entries.before" "$WORK/entries.after")
}

# need_store: /srv/store, root's and listable by nobody else, with a copy
# of the shared image (real root's files, a file of uid 1000, a setuid
# program), unmarked.
need_store() {
	[ -e "$STORE" ] && return 0
	install -d -m 0711 "$STORE"
	cp -a "$SHARED_IMAGE" "$STORE/busybox"
}

# parse SESSION_FILE: "$WORK/cmd.N" (the command) and "$WORK/out.N" (the
# output shown) for each command N, and the count in $ncmds; $who is root
# or user, after the first prompt.
parse() {
	local line n=0
	who=
	rm -f "$WORK"/cmd.* "$WORK"/out.*
	while IFS= read -r line; do
		case $line in
		'# '* | '$ '*)
			n=$((n + 1))
			[ -n "$who" ] || { [ "${line:0:1}" = '#' ] && who=root || who=user; }
			printf '%s\n' "${line:2}" >"$WORK/cmd.$n"
			: >"$WORK/out.$n"
			;;
		*)
			[ "$n" -gt 0 ] || fail "$page: example '$name': output before the first command: '$line'"
			printf '%s\n' "$line" >>"$WORK/out.$n"
			;;
		esac
	done <"$1"
	ncmds=$n
	[ "$ncmds" -gt 0 ] || fail "$page: example '$name' has no command (a line '# CMD' or '\$ CMD')"
}

# script: the commands, each followed by a line that prints a separator,
# its exit status and its number (read by whichever shell is reading then).
script() {
	local i
	for ((i = 1; i <= ncmds; i++)); do
		cat "$WORK/cmd.$i"
		printf 'printf "\\n%s%%s %s\\n" "$?"\n' "$SEP" "$i"
	done
}

# run_session: the script in one shell of $who, in the programs' directory;
# its output in $WORK/actual.
run_session() {
	local shell=(env -i "PATH=$1" HOME="$2" USER="$3" LOGNAME="$3" SHELL=/bin/bash LANG=C
		bash --noprofile --norc -s)
	if [ "$who" = root ]; then
		script | (cd "$PROGRAMS" && timeout 300 "${shell[@]}") >"$WORK/actual" 2>&1 || true
	else
		script | (cd "$PROGRAMS" && timeout 300 runuser -u "$TEST_USER" -- "${shell[@]}") \
			>"$WORK/actual" 2>&1 || true
	fi
}

# matches EXPECTED_FILE ACTUAL_FILE: whether the lines match, a line "..."
# of EXPECTED standing for any number of lines.
matches() {
	awk '
	NR == FNR { want[++ne] = $0; next }
	{ got[++na] = $0 }
	function m(i, j,    k) {
		if (i > ne) return j > na
		if (want[i] == "...") {
			for (k = j; k <= na + 1; k++) if (m(i + 1, k)) return 1
			return 0
		}
		return j <= na && want[i] == got[j] && m(i + 1, j + 1)
	}
	END { exit !m(1, 1) }' "$1" "$2"
}

# check_session: split $WORK/actual at the separators and compare each
# command's output and status with the page's.
check_session() {
	local i status got want
	awk -v sep="$SEP" -v dir="$WORK" '
	BEGIN { n = 1; printf "" >(dir "/got.1") }
	{
		line = $0
		while ((k = index(line, sep)) > 0) {
			# The separator printf starts with a newline: drop it.
			pre = substr(line, 1, k - 1)
			if (pre != "") printf "%s", pre >>(dir "/got." n)
			rest = substr(line, k + 1)
			split(rest, f, " ")
			print f[1] >(dir "/status." f[2])
			n = f[2] + 1
			printf "" >(dir "/got." n)
			line = ""
			next
		}
		print line >>(dir "/got." n)
	}' "$WORK/actual"
	for ((i = 1; i <= ncmds; i++)); do
		cmd=$(cat "$WORK/cmd.$i")
		if ! [ -f "$WORK/status.$i" ]; then
			failures+=("$page, example '$name': the session stopped before '$cmd' finished (timeout, or a shell that exited early); its whole output:
$(cat "$WORK/actual")")
			return
		fi
		status=$(cat "$WORK/status.$i")
		# The newline that starts each separator ends the command's last
		# line, or is a line of its own after output that ended in one.
		sed -i '${/^$/d}' "$WORK/got.$i"
		want=$(cat "$WORK/out.$i")
		got=$(cat "$WORK/got.$i")
		if ! [ -s "$WORK/out.$i" ]; then
			[ ! -s "$WORK/got.$i" ] && [ "$status" -eq 0 ] ||
				failures+=("$page, example '$name': '$cmd' (shown without output) exited $status and printed:
$got")
		elif ! matches "$WORK/out.$i" "$WORK/got.$i"; then
			failures+=("$page, example '$name': '$cmd' (exit $status) printed:
$got
where the page shows:
$want
(the difference, with line ends shown as \$ and other bytes as cat -A shows them:
$(diff <(cat -A "$WORK/out.$i") <(cat -A "$WORK/got.$i") || true))")
		fi
	done
}

programs=0
sessions=0
while read -r page; do
	examples=$("$EXTRACT" list "$page") || fail "listing the examples of $page failed"
	# A page without sessions (host.man_examples_marked lists those not
	# run yet) has no program built either.
	grep -q '^[^ ]* session ' <<<"$examples" || continue
	snapshot before
	while read -r _ kind name words; do
		case $kind in
		source)
			[ -x "$PROGRAMS/${name%.c}" ] ||
				fail "$page: its program ${name%.c} is not in $PROGRAMS: the Makefile builds it from the page (make userspace)"
			programs=$((programs + 1))
			continue
			;;
		esac
		sessions=$((sessions + 1))
		for word in $words; do
			case $word in
			store) need_store ;;
			*) fail "$page: example '$name' needs '$word', which this test does not know (tests/lib/man-examples.sh lists the words)" ;;
			esac
		done
		"$EXTRACT" session "$page" "$name" >"$WORK/session" ||
			fail "extracting example '$name' of $page failed"
		parse "$WORK/session"
		rm -f "$WORK"/got.* "$WORK"/status.*
		run_session "$([ "$who" = root ] && echo /usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin || echo /usr/local/bin:/usr/bin:/bin)" \
			"$([ "$who" = root ] && echo /root || echo "$USER_HOME")" \
			"$([ "$who" = root ] && echo root || echo "$TEST_USER")"
		check_session
	done <<<"$examples"
	undo_page
done < <(find "$MAN_DIR" -maxdepth 1 -type f -name '*.[1-8]' | sort)

rm -rf "$WORK"
[ "$sessions" -gt 0 ] || fail "no example session found in the pages of $MAN_DIR (tests/lib/man-examples.sh list)"
if [ "${#failures[@]}" -gt 0 ]; then
	printf '%s\n\n' "${failures[@]}" >&2
	fail "${#failures[@]} example command(s) of the man pages did not print what the page shows (of $sessions sessions)"
fi
echo "$sessions example sessions of $(find "$MAN_DIR" -maxdepth 1 -type f -name '*.[1-8]' | wc -l) pages ran as shown; $programs programs built from the pages"
