#!/bin/bash
# The developer loop is lossless: kernel-patches/ -> git tree (one commit
# per patch, `make kernel-tree`) -> kernel-patches/ (`make kernel-export`)
# reproduces the series byte for byte.
. "$(dirname "$0")/../lib/testlib.sh"

kernel=$SHIFTBIND_TESTS/../scripts/kernel.sh
patches=$SHIFTBIND_TESTS/../kernel-patches
cache=${SHIFTBIND_CACHE:-/var/cache/shiftbind}
mkdir -p "$cache/tmp"
SCRATCH=$(mktemp -d "$cache/tmp/roundtrip.XXXXXX")
repo=$(dirname "$("$kernel" source-tree)/.git")
cleanup() {
	git -C "$repo" worktree remove --force "$SCRATCH/tree" 2>/dev/null || true
	rm -rf "$SCRATCH"
}
trap cleanup EXIT

assert_status 0 "$kernel" dev-tree "$SCRATCH/tree"
assert_eq "$(grep -c . "$patches/series" || true)" \
	"$(git -C "$SCRATCH/tree" rev-list --count base..HEAD)" "commits in the dev tree"
assert_status 0 "$kernel" export "$SCRATCH/tree" "$SCRATCH/exported"

for file in series $(cat "$patches/series"); do
	cmp "$patches/$file" "$SCRATCH/exported/$file" ||
		fail "round trip changed $file: $(diff -u "$patches/$file" "$SCRATCH/exported/$file" | head -n 20)"
done
assert_eq "$(cd "$patches" && ls -1 series ./*.patch 2>/dev/null | sed 's|^\./||' | sort)" \
	"$(cd "$SCRATCH/exported" && ls -1 series ./*.patch 2>/dev/null | sed 's|^\./||' | sort)" \
	"files of the series"
