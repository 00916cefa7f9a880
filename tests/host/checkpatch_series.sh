#!/bin/bash
# Every patch of the series of each kernel under test (kernels_under_test)
# is clean under that kernel's own `scripts/checkpatch.pl --strict`: no
# error, warning or check; and every file the series adds has a maintainer
# in that kernel's MAINTAINERS.  A kernel whose series is missing or empty
# fails (series_of).
#
# checkpatch's FILE_PATH_CHANGES ("does MAINTAINERS need updating?") fires
# for any patch that adds a file without touching MAINTAINERS, even when
# an existing entry covers it; get_maintainer.pl answers that question
# exactly, so it replaces the heuristic here.
. "$(dirname "$0")/../lib/testlib.sh"
scratch_dir

kernel=$SHIFTBIND_TESTS/../scripts/kernel.sh
# checkpatch's SPDX check runs python3 with Debian's ply and git modules.
export PATH=/usr/bin:/bin:$PATH

# checkpatch_clean BASE TREE PATCH...: checkpatch of each patch of BASE in
# its patched source TREE, one per core at a time (each takes seconds and
# a series has dozens); prints the reports in series order, fails when
# there are any.
checkpatch_clean() {
	local base=$1 tree=$2 reports=$SCRATCH/checkpatch-$1 patch dirty=0
	shift 2
	mkdir -p "$reports"
	printf '%s\0' "$@" | (cd "$tree" && xargs -0 -n 1 -P "$(nproc)" sh -c '
		perl scripts/checkpatch.pl --strict --quiet --ignore FILE_PATH_CHANGES \
			"$0/$2" >"$1/$2.report" 2>&1 || echo "(checkpatch exit status $?)" >>"$1/$2.report"
	' "$SHIFTBIND_TESTS/../kernel-patches/$base" "$reports")
	for patch in "$@"; do
		[ -f "$reports/$patch.report" ] || fail "checkpatch of $base/$patch left no report"
		[ -s "$reports/$patch.report" ] || continue
		printf '%s/%s:\n%s\n' "$base" "$patch" "$(cat "$reports/$patch.report")"
		dirty=1
	done
	return "$dirty"
}

# files_added BASE PATCH...: the files BASE's patches add, "+++ b/PATH"
# right after "new file mode".
files_added() {
	local base=$1
	shift
	(cd "$SHIFTBIND_TESTS/../kernel-patches/$base" && awk '/^new file mode/ { n = 1; next }
		n && /^\+\+\+ b\// { sub(/^\+\+\+ b\//, ""); print; n = 0 }' "$@") | sort -u
}

# maintained BASE TREE PATCH...: every file the patches add, but a
# .gitignore, has the shiftbind developers as maintainers in TREE.
maintained() {
	local base=$1 tree=$2 added file owners
	shift 2
	added=$(files_added "$base" "$@")
	[ -n "$added" ] || fail "found no added files in the $base series; is the parser broken?"
	for file in $added; do
		case $file in */.gitignore) continue ;; esac
		owners=$(cd "$tree" && perl scripts/get_maintainer.pl --no-git --no-rolestats \
			--no-git-fallback -f "$file" 2>/dev/null)
		assert_contains "shiftbind developers" "$owners" "maintainers of $file in the $base tree"
	done
}

kernels=$(kernels_under_test)
dirty=()
for base in $kernels; do
	names=$(series_of "$base")
	mapfile -t patches <<<"$names"
	tree=$(KERNEL=$base "$kernel" source-tree)
	checkpatch_clean "$base" "$tree" "${patches[@]}" || dirty+=("$base")
	maintained "$base" "$tree" "${patches[@]}"
done
[ "${#dirty[@]}" -eq 0 ] || fail "checkpatch --strict is not clean on the patches above (kernels: ${dirty[*]})"
echo "checkpatch --strict clean and every added file maintained, on kernels: ${kernels//$'\n'/ }"
