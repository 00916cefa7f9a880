#!/bin/bash
# prepare-store, run by real root over a tree others may change while it
# runs, touches nothing outside the store: symbolic links swapped in and
# out of a layer's directories and of the metadata, over and over while
# it walks again and again, never lead it outside (no user.overlay.opaque appears on the
# 55 opaque directories outside, a 0600 file outside stays 0600), what
# changed under it is skipped and reported, and a directory chain deeper
# than the walk goes is skipped and reported, not a failure.
. "$(dirname "$0")/../lib/testlib.sh"
. "$(dirname "$0")/podmanlib.bash"
podman_test_setup prepared
podman_store_unshare


outside=$SCRATCH/outside
mkdir -p "$outside"
for i in $(seq 1 55); do
	mkdir "$outside/d$i"
	"$PROBE" setxattr "$outside/d$i" trusted.overlay.opaque y >/dev/null
done
echo secret >"$SCRATCH/secret"
chmod 0600 "$SCRATCH/secret"

diff=$(find "$PODMAN_STORE/overlay" -mindepth 2 -maxdepth 2 -name diff -print -quit)
[ -n "$diff" ] || fail "no layer in $PODMAN_STORE/overlay"
# The store is shared by the other tests of this boot: leave it as found.
trap 'rm -rf "$diff/tmp/swap" "$diff/tmp/swap.real" "$diff/tmp/deep" \
	"$PODMAN_STORE/overlay-images/swapfile"; user_podman_fresh; podman_store_unshare; rm -rf "$SCRATCH"' EXIT
mkdir -p "$diff/tmp/swap/inner" "$diff/tmp/deep"
"$PROBE" setxattr "$diff/tmp/swap/inner" trusted.overlay.opaque y >/dev/null
: >"$PODMAN_STORE/overlay-images/swapfile"
# A chain of 150 directories, past the walk's 128.
(cd "$diff/tmp/deep" && for _ in $(seq 1 150); do mkdir d && cd d || exit 1; done)

# The swapper: a directory and a file, each in turn a symlink outside,
# over and over while prepare-store runs, until both have done at least
# six rounds (a bound on time, whatever the machine's speed); each round
# of swaps is a line of $swaps.
swaps=$SCRATCH/swaps
swapper() {
	while [ ! -e "$SCRATCH/stop" ]; do
		mv "$diff/tmp/swap" "$diff/tmp/swap.real"
		ln -s "$outside" "$diff/tmp/swap"
		rm "$diff/tmp/swap"
		mv "$diff/tmp/swap.real" "$diff/tmp/swap"
		ln -sfn "$SCRATCH/secret" "$PODMAN_STORE/overlay-images/swapfile"
		rm -f "$PODMAN_STORE/overlay-images/swapfile"
		: >"$PODMAN_STORE/overlay-images/swapfile"
		echo >>"$swaps"
	done
}
swapper &
swapper_pid=$!
swap_rounds() { [ -e "$swaps" ] && wc -l <"$swaps" || echo 0; }
runs=0
while [ "$runs" -lt 6 ] || [ "$(swap_rounds)" -lt 6 ]; do
	kill -0 "$swapper_pid" 2>/dev/null || fail "the swapper stopped after $(swap_rounds) rounds"
	assert_status 0 shiftbind prepare-store "$PODMAN_STORE"
	runs=$((runs + 1))
done
touch "$SCRATCH/stop"
wait "$swapper_pid" || fail "the swapper failed"

for i in $(seq 1 55); do
	"$PROBE" getxattr "$outside/d$i" user.overlay.opaque >/dev/null &&
		fail "prepare-store set user.overlay.opaque on $outside/d$i, outside the store"
done
assert_eq "600" "$(stat -c %a "$SCRATCH/secret")" "the file outside the store"
assert_status 0 shiftbind prepare-store "$PODMAN_STORE"
assert_contains "deeper than the walk goes" "$OUTPUT" "the deep chain, reported"
assert_contains "entries skipped, listed above" "$OUTPUT" "prepare-store's summary"
assert_eq "user.overlay.opaque: 1 bytes" "$("$PROBE" getxattr "$diff/tmp/swap/inner" user.overlay.opaque)" \
	"the store's own opaque directory, marked"
