#!/bin/bash
# No kernel memory leaked by the suite's fuzzing.  It runs last (by name):
# kmemleak's baseline was taken before the first fuzz test of this boot
# (fuzzlib.bash: automatic scans off, what leaked before kept aside and
# cleared), so two scans now, more than 5 s apart (kmemleak reports only
# objects older than that), must find nothing.  Any report fails the
# test, even one without configfd or mount code in its backtrace: after
# the baseline, a leak is the fuzzing's or needs a person to say it is
# not.  The test says how many reports involve configfd or mounts.
. "$(dirname "$0")/../lib/testlib.sh"
. "$(dirname "$0")/fuzzlib.bash"

# Backtrace frames of the series and of the mount code it drives.
readonly OURS_RE='configfd|bind_|fs_configfd|filesystem_|mount_|mnt|_tree|fs_context|fc_log|namespace'

[ -w "$KMEMLEAK" ] || skip "no $KMEMLEAK (not the debug kernel?)"
fuzz_begin kmemleak_clean
# Alone (no other fuzz test ran in this boot), fuzz a little first.
if [ ! -s "$FUZZ_STATE/runs" ]; then
	run_fuzzer "a short run for kmemleak" --seed "$FUZZ_SEED" --calls 20000 --threads 2
	run_fuzzer "a short run for kmemleak, user namespace" --seed "$FUZZ_SEED" \
		--calls 20000 --threads 2 --userns
fi

echo scan >"$KMEMLEAK"
sleep 6
echo scan >"$KMEMLEAK"
report=$(<"$KMEMLEAK")
[ -n "$report" ] || exit 0

objects=$(grep -c 'unreferenced object' <<<"$report")
# One line per object: its size, its task, the first frames of its allocation.
summary=$(awk '
	/unreferenced object/ { if (obj) print obj; size = $0
		sub(/.*\(size /, "", size); sub(/\).*/, "", size)
		obj = size " bytes"; frames = 0; next }
	/comm "/ { c = $0; sub(/.*comm "/, "", c); sub(/".*/, "", c); obj = obj ", " c; next }
	/\[<[0-9a-f]+>\]/ && frames < 5 { f = $2; sub(/\+.*/, "", f)
		if (f !~ /^(__)?(kmalloc|kmem_cache|kvasprintf|kasprintf|memdup|slab|alloc_pages|kvmalloc)/) {
			obj = obj (frames++ ? " < " : ": ") f } }
	END { if (obj) print obj }' <<<"$report")
ours=$(grep -c -E "$OURS_RE" <<<"$summary")
echo "--- the unreferenced objects (size, task: allocated in < called from ...):"
head -n 20 <<<"$summary"
echo "--- the fuzz runs of this boot ($(grep -c 'unreferenced object' "$FUZZ_STATE/kmemleak-baseline") objects were suspected before them, not counted):"
cat "$FUZZ_STATE/runs"
fail "kmemleak: $objects unreferenced objects after the fuzzing ($ours with configfd or mount code where they were allocated); reproduce: one of the runs above, then 'echo scan >$KMEMLEAK' twice, 6 s apart, and read it"
