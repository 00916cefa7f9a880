#!/bin/bash
# The work of a container start that makes the kernel patch its own text,
# in a loop, for SOAK_SECONDS (default 60): `make boot-soak` boots a
# kernel many times with this alone, to count how often a boot dies of it
# (docs/kernel-bases.md, "The int3 oops under TCG").
#
# crun enables every controller in the cgroups it creates, so each
# container start and stop brings a cpuset online and takes it offline:
# cpuset_inc()/cpuset_dec() flip the static key cpusets_enabled_key, and
# the kernel rewrites every site of it (get_page_from_freelist() and
# __alloc_pages() among them) with text_poke_bp() while the other CPU
# runs those sites.  Here that flip runs without pause (a cpuset cgroup
# made and removed), real rootful and rootless shifted containers start
# beside it, and page allocation never stops (execve, and a tmpfs filled
# and emptied: memory pressure).  The test passes when the guest
# is still alive at the end; an oops panics it (oops=panic), and the host
# finds no result.
. "$(dirname "$0")/../lib/testlib.sh"
require_guest
scratch_dir

readonly SECONDS_TO_RUN=${SOAK_SECONDS:-60}
readonly CGROUP=/sys/fs/cgroup/soak-churn

# The flip, as often as the kernel allows: each pass brings a cpuset
# online and takes it offline (two patches of every site of the key).
# It counts its passes in a file, read at the end.
flip_loop() {
	local passes=0
	while :; do
		mkdir "$CGROUP" && rmdir "$CGROUP" || return 1
		passes=$((passes + 1))
		[ $((passes % 20)) -ne 0 ] || echo "$passes" >"$SCRATCH/flips"
	done
}
# What the other CPU runs meanwhile: execve of a short-lived program and
# page allocation under pressure.
exec_loop() { while :; do "$PROBE" exit 0; done; }
memory_churn() {
	while :; do
		head -c 128M /dev/zero >"$SCRATCH/fill" 2>/dev/null || true
		rm -f "$SCRATCH/fill"
	done
}

cleanup_churn() {
	kill "${workers[@]}" 2>/dev/null || true
	wait "${workers[@]}" 2>/dev/null || true
	rmdir "$CGROUP" 2>/dev/null || true
}
workers=()
trap 'cleanup_churn; rm -rf "$SCRATCH" "${rootless:-}"' EXIT

grep -qw cpuset /sys/fs/cgroup/cgroup.controllers ||
	fail "the kernel has no cpuset controller (CONFIG_CPUSETS): nothing here flips its static key"
echo +cpuset >/sys/fs/cgroup/cgroup.subtree_control
echo 0 >"$SCRATCH/flips"

flip_loop &
workers+=($!)
exec_loop &
workers+=($!)
memory_churn &
workers+=($!)

make_bundle "$SCRATCH/rootful" "$SHARED_IMAGE" "0 100000 65536" "0 100000 65536" \
	/bin/probe stat "${OWNER_PATHS[@]}"
with_hook "$SCRATCH/rootful"
rootless=$(rootless_bundle "$SHARED_IMAGE" /bin/probe id)
with_hook "$rootless" --rootless

containers=0
deadline=$((SECONDS + SECONDS_TO_RUN))
while [ "$SECONDS" -lt "$deadline" ]; do
	kill -0 "${workers[0]}" 2>/dev/null || fail "the cpuset cgroup loop stopped (mkdir or rmdir of $CGROUP failed)"
	assert_status 0 crun_run "$SCRATCH/rootful" "soak-$containers"
	assert_eq "$REAL_OWNERS" "$OUTPUT" "owners in shifted container $containers"
	assert_status 0 crun_run_as "$TEST_USER" "$rootless" "soak-rootless-$containers"
	containers=$((containers + 2))
done
# On the console too, which make boot-soak reads (a passing test's output
# is not among the results).
flips=$(($(cat "$SCRATCH/flips") * 2))
echo "soak: $flips cpuset key flips, $containers containers in ${SECONDS_TO_RUN}s" | tee /dev/kmsg
