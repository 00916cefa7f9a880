#!/bin/bash
# A patch of the series that no longer applies to its base is refused by
# name, with the way to rebase it, before anything is changed: the
# kernel's source tree keeps the commit it had and its record of which
# series that is, so nothing built from it is taken for the new series
# and the next build with a fixed series starts from where it was.
# Checked for each kernel under test (kernels_under_test), on a scratch
# copy of the project whose last patch with context lines has one
# changed, and a scratch cache whose source repository shares the real
# one's objects (the host suites run once the kernels are built).
. "$(dirname "$0")/../lib/testlib.sh"
scratch_dir

root=$SHIFTBIND_TESTS/..
real_cache=${SHIFTBIND_CACHE:-/var/cache/shiftbind}
project=$SCRATCH/project
export SHIFTBIND_CACHE=$SCRATCH/cache
mkdir -p "$project/kernel-patches" "$SHIFTBIND_CACHE/kernel"
cp -r "$root/scripts" "$root/configs" "$project/"

# first_context_line PATCH: the number of the first line of PATCH that a
# hunk holds as context (none in a patch that only adds files).
first_context_line() {
	awk '/^@@ / { hunk = 1; next } hunk && /^ / { print NR; exit }' "$1"
}

# break_a_patch BASE: the name of the last patch of BASE's series copy
# with context lines, one of which it now misquotes.
break_a_patch() {
	local base=$1 names name line
	names=$(series_of "$base")
	for name in $(tac <<<"$names"); do
		line=$(first_context_line "$project/kernel-patches/$base/$name")
		[ -n "$line" ] || continue
		sed -i "${line}s/^ / shiftbind-test: not in the kernel /" "$project/kernel-patches/$base/$name"
		echo "$name"
		return 0
	done
	fail "no patch of $base has a context line to change"
}

refused_unchanged() {
	local base=$1 srcver real_repo repo patch head
	srcver=$(dpkg-query -W -f='${Version}' "linux-source-$base")
	real_repo=$real_cache/kernel/linux-$srcver
	[ -d "$real_repo/.git" ] ||
		fail "no source repository at $real_repo; build the $base kernel first ('KERNEL=$base make kernel')"
	repo=$SHIFTBIND_CACHE/kernel/linux-$srcver
	# No work tree: the series is applied in a scratch index first.
	git clone -q --shared --no-checkout "$real_repo" "$repo"
	echo "an earlier series" >"$repo/.git/shiftbind-series"
	head=$(git -C "$repo" rev-parse HEAD)

	cp -r "$root/kernel-patches/$base" "$project/kernel-patches/"
	patch=$(break_a_patch "$base")
	KERNEL=$base assert_status 1 "$project/scripts/kernel.sh" source-tree
	assert_contains "error: patch $patch does not apply to linux-source-$base $srcver; rebase it in the dev tree ('KERNEL=$base make kernel-tree', then 'KERNEL=$base make kernel-export')" "$OUTPUT"
	assert_eq "$head" "$(git -C "$repo" rev-parse HEAD)" "the $base source tree's commit"
	assert_eq "an earlier series" "$(cat "$repo/.git/shiftbind-series")" \
		"the $base source tree's record of its series"
}

kernels=$(kernels_under_test)
for base in $kernels; do
	refused_unchanged "$base"
done
