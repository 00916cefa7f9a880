#!/bin/bash
# Every man page's EXAMPLES is run by man.man_examples_run: each page of
# docs/man has an EXAMPLES section whose every .EX block is a session
# marked '.\" example: NAME' or a program between '.\" SRC BEGIN (NAME.c)'
# and '.\" SRC END' (tests/lib/man-examples.sh), so that no page and no
# example drops out of the guest test unnoticed.  The pages whose
# examples are not run yet are listed below, each with why; a listed page
# that passes must leave the list.  Each session starts with a command,
# needs only what the guest test knows, and each program compiles.
#
# The extractor first runs on made-up pages, one fault each, and must
# refuse each, naming it: a checker that passes everything would make the
# real pages' pass worthless.
. "$(dirname "$0")/../lib/testlib.sh"
scratch_dir

top=$(cd "$SHIFTBIND_TESTS/.." && pwd)
extract=$SHIFTBIND_TESTS/lib/man-examples.sh

# Pages whose examples the guest test does not run yet, and why.
declare -A not_run=(
)

# page NAME BODY: a made-up page NAME.7 whose EXAMPLES section is BODY.
page() {
	printf '.TH %s 7\n.SH NAME\n%s \\- test\n.SH DESCRIPTION\nText.\n.PP\n.EX\nnot an example\n.EE\n.SH EXAMPLES\n%s\n.SH SEE ALSO\n.BR man (1)\n' \
		"$1" "$1" "$2" >"$SCRATCH/$1.7"
	echo "$SCRATCH/$1.7"
}

good=$(page good '.\" example: first-one store
.in +4n
.EX
# \fBecho \[aq]a\-b\[aq] \[dq]c\[dq]\fP
a-b "c"
\&...
.EE
.in
.SS Program source
.\" SRC BEGIN (prog.c)
.EX
int main(void) { return 0; } /* \e */
.EE
.\" SRC END')
assert_status 0 "$extract" check "$good"
assert_eq "$good session first-one store
$good source prog.c" "$("$extract" list "$good")" "list of a good page"
assert_eq "# echo 'a-b' \"c\"
a-b \"c\"
..." "$("$extract" session "$good" first-one)" "a session as text"
assert_eq 'int main(void) { return 0; } /* \ */' "$("$extract" source "$good" prog.c)" "a program as text"

bad=$(page unmarked '.PP
.in +4n
.EX
# \fBtrue\fP
.EE
.in')
assert_status 1 "$extract" check "$bad"
assert_contains "the .EX block of EXAMPLES at line 13 has no" "$OUTPUT" "an unmarked example"

bad=$(page none '.PP
No example.')
assert_status 1 "$extract" check "$bad"
assert_contains "no example that the tests run" "$OUTPUT" "a page without a marked example"

bad=$(page escape '.\" example: odd
.EX
# \fBecho \(em\fP
.EE')
assert_status 1 "$extract" check "$bad"
assert_contains 'unknown roff escape "\(em' "$OUTPUT" "an escape the extractor does not know"

bad=$(page dangling '.\" example: dangling
.PP
.EX
# \fBtrue\fP
.EE')
assert_status 1 "$extract" check "$bad"
assert_contains "a session marker not followed by .EX" "$OUTPUT" "a marker away from its block"

bad=$(page badname '.\" example: Bad_Name
.EX
# \fBtrue\fP
.EE')
assert_status 1 "$extract" check "$bad"
assert_contains "bad example marker" "$OUTPUT" "a marker whose name is not NAME"

# The real pages.
problems=()
for page in "$top"/docs/man/*.[1-8]; do
	name=${page##*/}
	if [ -n "${not_run[$name]:-}" ]; then
		"$extract" check "$page" >/dev/null 2>&1 &&
			problems+=("$name: its examples are all marked now: remove it from not_run in $0")
		continue
	fi
	out=$("$extract" check "$page" 2>&1) || { problems+=("$out"); continue; }
	while read -r _ kind ex words; do
		case $kind in
		session)
			first=$("$extract" session "$page" "$ex" | head -n 1)
			[[ $first == '# '* || $first == '$ '* ]] ||
				problems+=("$name: session '$ex' starts with '$first', not with a command ('# ' or '\$ ' and the command in bold)")
			for word in $words; do
				[ "$word" = store ] ||
					problems+=("$name: session '$ex' needs '$word', which man.man_examples_run does not provide (tests/lib/man-examples.sh lists the words)")
			done
			;;
		source)
			"$extract" source "$page" "$ex" >"$SCRATCH/$ex"
			cc -fsyntax-only -Wall -Wextra -Werror "$SCRATCH/$ex" >"$SCRATCH/cc.log" 2>&1 ||
				problems+=("$name: its program $ex does not compile: $(head -n 5 "$SCRATCH/cc.log")")
			;;
		esac
	done < <("$extract" list "$page")
done
for name in "${!not_run[@]}"; do
	[ -f "$top/docs/man/$name" ] || problems+=("not_run names $name, which docs/man does not have: remove it from $0")
done
if [ "${#problems[@]}" -gt 0 ]; then
	printf '%s\n' "${problems[@]}" >&2
	fail "${#problems[@]} problem(s) with the man pages' examples"
fi
