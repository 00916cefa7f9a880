#!/bin/bash
# bench.sh BIN_DIR: what `make bench` runs after building.  Boots the guest
# once, on the test kernel of the base KERNEL (kernel.sh's; default
# scripts/lib.sh's DEFAULT_KERNEL), in bench mode (bench/guest.sh measures), then
# turns its records into:
#   $SHIFTBIND_OUT/bench.json          medians, every sample, the goals
#   $SHIFTBIND_OUT/bench-samples.jsonl the guest's raw records
#   $SHIFTBIND_OUT/bench-table.md      the result tables
#   docs/benchmarks-BASE.svg           start time vs image size
#   docs/benchmarks.md                 the results section of that base,
#                                      replaced (appended on its first run)
# and prints the tables.  docs/benchmarks.md says what is measured and how.
#
# Environment: BENCH_TRIALS (chown copies and steady state, default 5),
# BENCH_START_TRIALS (the other starts and the hooks, default twice
# BENCH_TRIALS), BENCH_SIZES (entries, default 1000,10000,100000),
# BENCH_CHURN (files created and unlinked, default 10000),
# BENCH_CONTROL_ROUNDS (rounds against a plain bind in one process, default 6),
# BENCH_SCRATCH_SIZE (the scratch disk, default 8G), BENCH_DOCS=0 (leave
# docs/ alone, for trial runs), and run-guest.sh's GUEST_*.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

readonly TRIALS=${BENCH_TRIALS:-5}
readonly START_TRIALS=${BENCH_START_TRIALS:-$((2 * TRIALS))}
readonly SIZES=${BENCH_SIZES:-1000,10000,100000}
readonly CHURN=${BENCH_CHURN:-10000}
readonly CONTROL_ROUNDS=${BENCH_CONTROL_ROUNDS:-6}
readonly SCRATCH_SIZE=${BENCH_SCRATCH_SIZE:-8G}
readonly BENCH_DIR=$SHIFTBIND_ROOT/bench
readonly DOCS=$SHIFTBIND_ROOT/docs
readonly BASE=${KERNEL:-$DEFAULT_KERNEL}
# One results section per kernel base, so that the bases' runs stand side
# by side (ratios within a run compare; absolute times across runs less).
readonly RESULTS_BEGIN="<!-- bench-results@$BASE:begin (scripts/bench.sh rewrites this section) -->"
readonly RESULTS_END="<!-- bench-results@$BASE:end -->"
readonly PLOT=benchmarks-$BASE.svg
scratch= # the scratch disk image, removed on exit

check_params() {
	[[ $TRIALS =~ ^[1-9][0-9]*$ ]] || die "BENCH_TRIALS='$TRIALS': expected a positive number"
	{ [[ $START_TRIALS =~ ^[1-9][0-9]*$ ]] && [ "$START_TRIALS" -ge "$TRIALS" ]; } ||
		die "BENCH_START_TRIALS='$START_TRIALS': expected a number of at least BENCH_TRIALS ($TRIALS)"
	[[ $CHURN =~ ^[1-9][0-9]*$ ]] || die "BENCH_CHURN='$CHURN': expected a positive number"
	[[ $CONTROL_ROUNDS =~ ^[1-9][0-9]*$ ]] ||
		die "BENCH_CONTROL_ROUNDS='$CONTROL_ROUNDS': expected a positive number"
	[[ $SIZES =~ ^[1-9][0-9]*(,[1-9][0-9]*)*$ ]] ||
		die "BENCH_SIZES='$SIZES': expected entry counts separated by commas, e.g. 1000,10000,100000"
	[ "$TRIALS" -ge 5 ] || log "warning: BENCH_TRIALS=$TRIALS; the results want at least 5"
}

# A fresh ext4 for the images and the chown copies: a sparse file, made
# here in a second (the guest has mkfs too, but not the time to spare).
# The inode tables are written now, so no lazy init runs in the guest
# during the measurements.  An inode per 4 KiB: the images, their podman
# imports and podman's copies are about a million small files.
make_scratch_disk() {
	check_free_space "$SHIFTBIND_CACHE/run" 3000
	scratch=$SHIFTBIND_CACHE/run/bench-scratch-$$.img
	rm -f "$scratch"
	truncate -s "$SCRATCH_SIZE" "$scratch"
	mkfs.ext4 -q -F -L shiftbind-bench -i 4096 -E lazy_itable_init=0,lazy_journal_init=0 \
		"$scratch" >/dev/null || die "mkfs.ext4 of the scratch disk $scratch failed"
}

host_info() {
	jq -n --arg cpu "$(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo)" \
		--argjson cpus "$(nproc)" --arg kernel "$(uname -r)" \
		--arg qemu "$(qemu-system-x86_64 --version | head -n 1)" \
		--argjson mem_mib "$(awk '/^MemTotal:/ { print int($2 / 1024) }' /proc/meminfo)" \
		--arg load "$1" --arg load_after "$(cut -d' ' -f1-3 /proc/loadavg)" \
		'{cpu_model: $cpu, cpus: $cpus, kernel: $kernel, qemu: $qemu, mem_mib: $mem_mib,
		  loadavg_before: $load, loadavg_after: $load_after}'
}

# check_records FILE: the guest ran to its end record, without an error.
check_records() {
	local error
	error=$(jq -r 'select(.type == "error") | "step \"\(.step)\", exit status \(.status)"' "$1")
	if [ -n "$error" ] || ! jq -e 'select(.type == "end")' "$1" >/dev/null; then
		grep -E '^(FAIL|bench|[a-z-]+:)' "$GUEST_CONSOLE" | tail -n 20 >&2 || true
		die "the benchmark failed in the guest (${error:-no end record}); console log: $GUEST_CONSOLE"
	fi
}

plot() {
	local data=$SHIFTBIND_OUT/bench-start.dat subtitle
	jq -r '.detail.podman.start as $podman
		| .detail.start | to_entries | sort_by(.key | tonumber)[]
		| .key as $size
		| [($size | tonumber)]
		  + (.value as $m | ["plain", "userns", "shift", "idmap-mount", "chown-copy"]
		     | map($m[.] | .median, .min, .max))
		  + ($podman[$size] as $m | ["shiftbind", "fuse-overlayfs", "podman-copy"]
		     | map($m[.] | .median, .min, .max)) | @tsv' "$1" >"$data"
	subtitle=$(jq -r '"kernel \(.kernel), \(.accel | ascii_upcase); median of \(.start_trials) rounds, chown-copy and podman-copy \(.trials); bars: fastest to slowest"' "$1")
	gnuplot -e "datafile='$data'; outfile='$2'; subtitle='$subtitle'" "$BENCH_DIR/plot.gp" ||
		die "gnuplot failed on $data; see its messages above"
}

# update_docs TABLE: replace the results section of BASE in
# docs/benchmarks.md, or append one after the last section of another
# base on BASE's first run.
update_docs() {
	local doc=$DOCS/benchmarks.md
	grep -qxF "$RESULTS_BEGIN" "$doc" || add_results_section "$doc"
	grep -qxF "$RESULTS_END" "$doc" ||
		die "$doc has '$RESULTS_BEGIN' but not '$RESULTS_END' after it; restore that line"
	awk -v begin="$RESULTS_BEGIN" -v end="$RESULTS_END" -v table="$1" '
		$0 == begin { print; while ((getline line < table) > 0) print line; skip = 1; next }
		$0 == end { skip = 0 }
		!skip' "$doc" >"$doc.new"
	mv "$doc.new" "$doc"
}

# add_results_section DOC: an empty results section of BASE, with its
# plot, after the last results section of any base.
add_results_section() {
	local doc=$1 last
	last=$(grep -n '^<!-- bench-results@.*:end -->$' "$doc" | tail -n 1 | cut -d: -f1)
	[ -n "$last" ] ||
		die "$doc has no results section ('<!-- bench-results@BASE:end -->') to add the one of kernel $BASE after; restore one"
	# The new section goes after the plot that follows the last one.
	awk -v n="$last" -v begin="$RESULTS_BEGIN" -v end="$RESULTS_END" -v plot="$PLOT" -v base="$BASE" '
		{ print }
		NR > n && /^!\[/ && !done {
			print ""
			print "### On kernel base " base
			print ""
			print begin
			print end
			print ""
			print "![Container start time vs image size on kernel base " base ", log-log](" plot ")"
			done = 1
		}' "$doc" >"$doc.new"
	mv "$doc.new" "$doc"
}

main() {
	local bin=${1:?usage: bench.sh BIN_DIR} kernel image load start json
	start=$SECONDS
	require_cmd jq jq
	require_cmd gnuplot gnuplot-nox
	require_cmd mkfs.ext4 e2fsprogs
	check_params
	[ -x "$bin/bench/mkimage" ] || die "missing $bin/bench/mkimage; run 'make bench'"
	load=$(cut -d' ' -f1-3 /proc/loadavg)
	kernel=$(KERNEL=$BASE "$SHIFTBIND_ROOT/scripts/kernel.sh" image test)
	image=$(KERNEL=$BASE "$SHIFTBIND_ROOT/rootfs-builder/build-image.sh" "$bin")
	trap 'rm -f "$scratch"' EXIT
	make_scratch_disk
	mkdir -p "$SHIFTBIND_OUT"

	export GUEST_SCRATCH_DISK=$scratch
	export GUEST_RESULTS=$SHIFTBIND_OUT/bench.results
	export GUEST_CONSOLE=$SHIFTBIND_OUT/bench-console.log
	export GUEST_TIMEOUT=${GUEST_TIMEOUT:-10800}
	export GUEST_APPEND="shiftbind.bench_trials=$TRIALS shiftbind.bench_start_trials=$START_TRIALS shiftbind.bench_sizes=$SIZES shiftbind.bench_churn=$CHURN shiftbind.bench_control_rounds=$CONTROL_ROUNDS ${GUEST_APPEND:-}"
	log "booting the guest: $START_TRIALS rounds ($TRIALS with chown copies) on images of $SIZES entries (progress below; console: $GUEST_CONSOLE)"
	"$SHIFTBIND_ROOT/scripts/run-guest.sh" bench "$kernel" "$image"
	rm -f "$scratch"

	grep -v '^#' "$GUEST_RESULTS" >"$SHIFTBIND_OUT/bench-samples.jsonl"
	check_records "$SHIFTBIND_OUT/bench-samples.jsonl"
	json=$SHIFTBIND_OUT/bench.json
	jq -s --arg accel "$(qemu_accel)" --argjson host "$(host_info "$load")" \
		--argjson run "$(jq -n --argjson s $((SECONDS - start)) --arg date "$(date -u +%Y-%m-%d)" \
			'{wall_s: $s, date: $date}')" \
		-f "$BENCH_DIR/summarize.jq" "$SHIFTBIND_OUT/bench-samples.jsonl" >"$json.new"
	jq -e --argjson sizes "[$SIZES]" -f "$BENCH_DIR/validate.jq" "$json.new" >/dev/null ||
		die "$json.new does not have the expected shape or lacks trials (bench/validate.jq); raw records: $SHIFTBIND_OUT/bench-samples.jsonl"
	mv "$json.new" "$json"

	jq -r -f "$BENCH_DIR/table.jq" "$json" >"$SHIFTBIND_OUT/bench-table.md"
	plot "$json" "$SHIFTBIND_OUT/bench.svg"
	if [ "${BENCH_DOCS:-1}" != 0 ]; then
		cp "$SHIFTBIND_OUT/bench.svg" "$DOCS/$PLOT"
		update_docs "$SHIFTBIND_OUT/bench-table.md"
	fi
	cat "$SHIFTBIND_OUT/bench-table.md"
	echo
	log "wrote $json and the plot $SHIFTBIND_OUT/bench.svg$([ "${BENCH_DOCS:-1}" = 0 ] || echo ", docs/benchmarks.md, docs/$PLOT") in $((SECONDS - start)) s"
}

main "$@"
