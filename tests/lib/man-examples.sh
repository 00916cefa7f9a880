#!/bin/bash
# man-examples.sh: the examples of the man pages (docs/man/), as the
# tests run them.  Used by the Makefile (the programs' sources), the host
# test host.man_examples_marked and the guest test man.man_examples_run.
#
#   man-examples.sh list PAGE...      one line per example of each page's
#                                     EXAMPLES section: "PAGE KIND NAME
#                                     [WORD...]", KIND session or source
#   man-examples.sh source PAGE NAME  the program source NAME, as text
#   man-examples.sh session PAGE NAME the session NAME, as text
#   man-examples.sh check PAGE...     every .EX block of each page's
#                                     EXAMPLES is a marked session or
#                                     source, and the page has at least one
#
# In the roff source, a session is an .EX/.EE block preceded by the
# comment line
#
#   .\" example: NAME [WORD...]
#
# (an ".in +4n" between them is allowed).  Its lines are commands, after a
# prompt "# " (real root) or "$ " (the test user) and set in bold
# (\fB...\fP), each followed by the output it prints; a line "..." stands
# for any number of lines.  The first prompt says who runs the session;
# later prompts are what the reader would see (a "# " after "$ unshare
# -Urm" is root of that user namespace).  WORDs are what the session
# needs from the guest test: "store", the store /srv/store holding a copy
# of the shared image as /srv/store/busybox.  A program source is the
# man-pages convention: an .EX/.EE block between
#
#   .\" SRC BEGIN (NAME.c)
#   .\" SRC END
#
# Roff escapes are turned into text; one that is not known here is an
# error (an example must not run other than it reads).
set -euo pipefail

die() {
	echo "man-examples.sh: error: $*" >&2
	exit 1
}

# blocks PAGE: the page's EXAMPLES blocks, one record each, as awk
# prints them: "@@ KIND NAME [WORD...]" then the block's raw roff lines,
# then "@@end".  KIND is session, source or unmarked.
blocks() {
	local page=$1
	[ -r "$page" ] || die "cannot read the man page '$page'"
	awk -v page="$page" '
	function fail(msg) {
		printf "man-examples.sh: error: %s:%d: %s\n", page, NR, msg >"/dev/stderr"
		err = 1
		exit 1
	}
	/^\.SH / {
		section = $0
		sub(/^\.SH +/, "", section)
		gsub(/"/, "", section)
		next
	}
	section != "EXAMPLES" { next }
	inblock && /^\.EE/ { print "@@end"; inblock = 0; kind = ""; next }
	inblock { print; next }
	/^\.\\" example: / {
		if (kind != "") fail("example marker after another marker, before its .EX")
		line = $0
		sub(/^\.\\" example: */, "", line)
		if (line !~ /^[a-z0-9][a-z0-9-]*( [a-z=0-9-]+)*$/)
			fail("bad example marker \"" $0 "\": expected .\\\" example: NAME [WORD...]")
		kind = "session"; name = line; next
	}
	/^\.\\" SRC BEGIN \(/ {
		if (kind != "") fail("SRC BEGIN after another marker, before its .EX")
		name = $0
		sub(/^\.\\" SRC BEGIN \(/, "", name); sub(/\)$/, "", name)
		if (name !~ /^[a-z0-9_-]+\.c$/) fail("bad SRC BEGIN \"" $0 "\": expected .\\\" SRC BEGIN (NAME.c)")
		kind = "source"; next
	}
	/^\.\\" SRC END/ { next }
	/^\.in / { next }
	/^\.EX/ {
		if (kind == "") { print "@@ unmarked line" NR; inblock = 1; next }
		print "@@ " kind " " name
		inblock = 1
		next
	}
	kind != "" { fail("a " kind " marker not followed by .EX (found \"" $0 "\")") }
	END {
		if (err) exit 1
		if (inblock) fail("unterminated .EX block")
	}
	' "$page"
}

# unescape: roff text of an .EX block (stdin) as it reads (stdout).
unescape() {
	awk '
	{
		out = ""; s = $0
		while ((i = index(s, "\\")) > 0) {
			out = out substr(s, 1, i - 1)
			s = substr(s, i + 1)
			if (s ~ /^f[BIRP]/) { s = substr(s, 3); continue }
			if (s ~ /^-/) { out = out "-"; s = substr(s, 2); continue }
			if (s ~ /^e/) { out = out "\\"; s = substr(s, 2); continue }
			if (s ~ /^&/) { s = substr(s, 2); continue }
			if (s ~ /^ /) { out = out " "; s = substr(s, 2); continue }
			if (s ~ /^\(aq/ || s ~ /^\[aq\]/) { out = out "\047"; s = substr(s, s ~ /^\(/ ? 4 : 5); continue }
			if (s ~ /^\(dq/ || s ~ /^\[dq\]/) { out = out "\""; s = substr(s, s ~ /^\(/ ? 4 : 5); continue }
			if (s ~ /^\(ga/ || s ~ /^\[ga\]/) { out = out "`"; s = substr(s, s ~ /^\(/ ? 4 : 5); continue }
			if (s ~ /^\(ti/ || s ~ /^\[ti\]/) { out = out "~"; s = substr(s, s ~ /^\(/ ? 4 : 5); continue }
			if (s ~ /^\(ha/ || s ~ /^\[ha\]/) { out = out "^"; s = substr(s, s ~ /^\(/ ? 4 : 5); continue }
			printf "man-examples.sh: error: unknown roff escape \"\\%s\" in \"%s\"\n", substr(s, 1, 4), $0 >"/dev/stderr"
			exit 1
		}
		print out s
	}'
}

# block PAGE KIND NAME: the raw lines of one block.
block() {
	local page=$1 kind=$2 name=$3 out
	out=$(blocks "$page" | awk -v want="@@ $kind $name" '
		$0 == "@@end" { on = 0 }
		on { print }
		index($0, want) == 1 && (length($0) == length(want) || substr($0, length(want) + 1, 1) == " ") { on = 1; found = 1 }
		END { exit !found }') ||
		die "$page has no $kind example named '$name' (see: $0 list $page)"
	printf '%s\n' "$out"
}

cmd_list() {
	local page
	for page in "$@"; do
		blocks "$page" | awk -v page="$page" '/^@@ (session|source) / { sub(/^@@ /, ""); print page " " $0 }'
	done
}

cmd_check() {
	local page out status=0 n
	for page in "$@"; do
		out=$(blocks "$page") || { status=1; continue; }
		if grep -q '^@@ unmarked' <<<"$out"; then
			echo "$page: the .EX block of EXAMPLES at line $(sed -n 's/^@@ unmarked line//p' <<<"$out" | paste -sd, -) has no '.\\\" example: NAME' or '.\\\" SRC BEGIN (NAME.c)' marker: mark it so that man.man_examples_run runs it" >&2
			status=1
		fi
		n=$(grep -c '^@@ \(session\|source\) ' <<<"$out" || true)
		if [ "$n" -eq 0 ]; then
			echo "$page: no example that the tests run: its EXAMPLES section needs at least one block marked '.\\\" example: NAME' (tests/lib/man-examples.sh)" >&2
			status=1
		fi
		# Every block must turn into text.
		while read -r kind name; do
			block "$page" "$kind" "$name" | unescape >/dev/null || {
				echo "$page: the $kind '$name' has a roff escape the extractor does not know" >&2
				status=1
			}
		done < <(grep '^@@ \(session\|source\) ' <<<"$out" | awk '{ print $2, $3 }')
	done
	return "$status"
}

main() {
	local cmd=${1:-}
	[ $# -gt 0 ] && shift
	case $cmd in
	list) [ $# -gt 0 ] || die "usage: $0 list PAGE..."; cmd_list "$@" ;;
	check) [ $# -gt 0 ] || die "usage: $0 check PAGE..."; cmd_check "$@" ;;
	source | session)
		[ $# -eq 2 ] || die "usage: $0 $cmd PAGE NAME"
		block "$1" "$cmd" "$2" | unescape
		;;
	*) die "usage: $0 list|check|source|session ... (see the comment at the top of $0)" ;;
	esac
}

main "$@"
