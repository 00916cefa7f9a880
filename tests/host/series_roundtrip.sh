#!/bin/bash
# The developer loop is lossless, for the series of each kernel under test
# (kernels_under_test): kernel-patches/BASE/ -> git tree (one commit per
# patch, `KERNEL=BASE make kernel-tree`) -> kernel-patches/BASE/
# (`make kernel-export`) reproduces the series byte for byte, and making
# that scratch tree leaves the developer's own dev tree branch where it
# was.  A kernel whose series is missing or empty fails (series_of).
. "$(dirname "$0")/../lib/testlib.sh"

kernel=$SHIFTBIND_TESTS/../scripts/kernel.sh
cache=${SHIFTBIND_CACHE:-/var/cache/shiftbind}
mkdir -p "$cache/tmp"
SCRATCH=$(mktemp -d "$cache/tmp/roundtrip.XXXXXX")
worktrees=() # "REPO TREE" of each dev tree made here
cleanup() {
	local entry
	for entry in "${worktrees[@]}"; do
		git -C "${entry%% *}" worktree remove --force "${entry#* }" 2>/dev/null || true
		git -C "${entry%% *}" for-each-ref --format='%(refname:short)' \
			"refs/heads/shiftbind-${entry##*/}-*" | xargs -r git -C "${entry%% *}" branch -q -D
	done
	rm -rf "$SCRATCH"
}
trap cleanup EXIT

# series_files DIR: the series file and the patches in DIR, sorted.
series_files() {
	find "$1" -maxdepth 1 -type f \( -name series -o -name '*.patch' \) -printf '%f\n' | sort
}

# roundtrip BASE: BASE's series through a dev tree and back.
roundtrip() {
	local base=$1 names patches repo tree out file dev_branch
	tree=$SCRATCH/tree-$base
	out=$SCRATCH/exported-$base
	names=$(series_of "$base")
	patches=$SHIFTBIND_TESTS/../kernel-patches/$base
	repo=$(KERNEL=$base "$kernel" source-tree)
	worktrees+=("$repo $tree")
	dev_branch=$(git -C "$repo" rev-parse -q --verify refs/heads/shiftbind || true)
	KERNEL=$base assert_status 0 "$kernel" dev-tree "$tree"
	assert_eq "$dev_branch" "$(git -C "$repo" rev-parse -q --verify refs/heads/shiftbind || true)" \
		"the $base dev tree's branch after a scratch tree was made"
	assert_eq "$(grep -c . <<<"$names")" "$(git -C "$tree" rev-list --count base..HEAD)" \
		"commits in the $base dev tree"
	KERNEL=$base assert_status 0 "$kernel" export "$tree" "$out"

	for file in series $names; do
		cmp "$patches/$file" "$out/$file" ||
			fail "$base: round trip changed $file: $(diff -u "$patches/$file" "$out/$file" | head -n 20)"
	done
	assert_eq "$(series_files "$patches")" "$(series_files "$out")" "files of the $base series"
}

kernels=$(kernels_under_test)
for base in $kernels; do
	roundtrip "$base"
done
echo "the series round-trips through a dev tree on kernels: ${kernels//$'\n'/ }"
