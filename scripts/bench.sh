#!/bin/bash
# bench.sh BIN_DIR: what `make bench` runs after building.  Boots the guest
# once per kernel base, on that base's test kernel (the bases of a test
# run: KERNEL alone when set, else TEST_KERNELS, else both, scripts/lib.sh's
# test_kernels), in bench mode (bench/guest.sh measures), then turns each
# boot's records into:
#   $SHIFTBIND_OUT/bench-BASE.json          medians, every sample, the goals
#   $SHIFTBIND_OUT/bench-samples-BASE.jsonl the guest's raw records
#   $SHIFTBIND_OUT/bench-table-BASE.md      the result tables
#   docs/benchmarks-BASE.svg                start time vs image size
#   docs/benchmarks.md                      the results section of that base,
#                                           replaced (appended on its first run)
# and prints the tables and, last, the goals of every base side by side.
# Each base's ratios are within its own boot: the guests run under TCG,
# and absolute times do not compare across boots.  docs/benchmarks.md says
# what is measured and how.
#
# Environment: BENCH_TRIALS (chown copies and steady state, default 5),
# BENCH_START_TRIALS (the other starts and the hooks, default twice
# BENCH_TRIALS), BENCH_SIZES (entries, default 1000,10000,100000),
# BENCH_CHURN (files created and unlinked, default 10000),
# BENCH_CONTROL_ROUNDS (rounds against a plain bind in one process, default 6),
# BENCH_SCRATCH_SIZE (the scratch disk, default 8G), BENCH_DOCS=0 (leave
# docs/ alone, for trial runs), KERNEL or TEST_KERNELS, and run-guest.sh's
# GUEST_*.
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
scratch= # the scratch disk image, removed on exit

# One results section per kernel base, so that the bases' runs stand side
# by side (ratios within a run compare; absolute times across runs less).
results_begin() { echo "<!-- bench-results@$1:begin (scripts/bench.sh rewrites this section) -->"; }
results_end() { echo "<!-- bench-results@$1:end -->"; }
plot_name() { echo "benchmarks-$1.svg"; }

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

# update_docs BASE TABLE: replace the results section of BASE in
# docs/benchmarks.md, or append one after the last section of another
# base on BASE's first run.
update_docs() {
	local doc=$DOCS/benchmarks.md begin end
	begin=$(results_begin "$1") end=$(results_end "$1")
	grep -qxF "$begin" "$doc" || add_results_section "$doc" "$1"
	grep -qxF "$end" "$doc" ||
		die "$doc has '$begin' but not '$end' after it; restore that line"
	awk -v begin="$begin" -v end="$end" -v table="$2" '
		$0 == begin { print; while ((getline line < table) > 0) print line; skip = 1; next }
		$0 == end { skip = 0 }
		!skip' "$doc" >"$doc.new"
	mv "$doc.new" "$doc"
}

# add_results_section DOC BASE: an empty results section of BASE, with
# its plot, after the last results section of any base.
add_results_section() {
	local doc=$1 base=$2 last
	last=$(grep -n '^<!-- bench-results@.*:end -->$' "$doc" | tail -n 1 | cut -d: -f1)
	[ -n "$last" ] ||
		die "$doc has no results section ('<!-- bench-results@BASE:end -->') to add the one of kernel $base after; restore one"
	# The new section goes after the plot that follows the last one.
	awk -v n="$last" -v begin="$(results_begin "$base")" -v end="$(results_end "$base")" \
		-v plot="$(plot_name "$base")" -v base="$base" '
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

# bench_base BIN_DIR BASE: one boot of BASE's test kernel measures
# everything; its files in $SHIFTBIND_OUT (named above), its section of
# docs/benchmarks.md.
bench_base() {
	local bin=$1 base=$2 kernel image load start json samples table
	start=$SECONDS
	load=$(cut -d' ' -f1-3 /proc/loadavg)
	# Up to date, or built now, as make test does for each base.
	KERNEL=$base "$SHIFTBIND_ROOT/scripts/kernel.sh" build test >&2
	kernel=$(KERNEL=$base "$SHIFTBIND_ROOT/scripts/kernel.sh" image test)
	image=$(KERNEL=$base "$SHIFTBIND_ROOT/rootfs-builder/build-image.sh" "$bin")
	make_scratch_disk

	export GUEST_SCRATCH_DISK=$scratch
	export GUEST_RESULTS=$SHIFTBIND_OUT/bench-$base.results
	export GUEST_CONSOLE=$SHIFTBIND_OUT/bench-console-$base.log
	log "kernel $base: booting the guest: $START_TRIALS rounds ($TRIALS with chown copies) on images of $SIZES entries (progress below; console: $GUEST_CONSOLE)"
	"$SHIFTBIND_ROOT/scripts/run-guest.sh" bench "$kernel" "$image"
	rm -f "$scratch"

	samples=$SHIFTBIND_OUT/bench-samples-$base.jsonl
	grep -v '^#' "$GUEST_RESULTS" >"$samples"
	check_records "$samples"
	json=$SHIFTBIND_OUT/bench-$base.json
	jq -s --arg accel "$(qemu_accel)" --argjson host "$(host_info "$load")" \
		--argjson run "$(jq -n --argjson s $((SECONDS - start)) --arg date "$(date -u +%Y-%m-%d)" \
			'{wall_s: $s, date: $date}')" \
		-f "$BENCH_DIR/summarize.jq" "$samples" >"$json.new"
	jq -e --argjson sizes "[$SIZES]" -f "$BENCH_DIR/validate.jq" "$json.new" >/dev/null ||
		die "$json.new does not have the expected shape or lacks trials (bench/validate.jq); raw records: $samples"
	mv "$json.new" "$json"

	table=$SHIFTBIND_OUT/bench-table-$base.md
	jq -r -f "$BENCH_DIR/table.jq" "$json" >"$table"
	plot "$json" "$SHIFTBIND_OUT/bench-$base.svg"
	if [ "${BENCH_DOCS:-1}" != 0 ]; then
		cp "$SHIFTBIND_OUT/bench-$base.svg" "$DOCS/$(plot_name "$base")"
		update_docs "$base" "$table"
	fi
	cat "$table"
	echo
	log "kernel $base: wrote $json and the plot $SHIFTBIND_OUT/bench-$base.svg$([ "${BENCH_DOCS:-1}" = 0 ] || echo ", docs/benchmarks.md, docs/$(plot_name "$base")") in $((SECONDS - start)) s"
}

# goals_side_by_side BASE...: each goal on every base: the ratio of the
# medians, which decides "met" as in the tables, and the paired one.
goals_side_by_side() {
	local base files=()
	for base; do files+=("$SHIFTBIND_OUT/bench-$base.json"); done
	echo "goal: ratio of medians (paired; met?) on $*"
	jq -rs '(.[0].goals | keys_unsorted) as $keys
		| . as $runs | $keys[]
		| . as $k | "\($k): " + ($runs | map(.goals[$k]
			| "\(.value) (\(.paired // "-"); \(if .met then "met" else "NOT met" end))") | join(", "))' \
		"${files[@]}"
}

main() {
	local bin=${1:?usage: bench.sh BIN_DIR} bases base start=$SECONDS
	require_cmd jq jq
	require_cmd gnuplot gnuplot-nox
	require_cmd mkfs.ext4 e2fsprogs
	check_params
	[ -x "$bin/bench/mkimage" ] || die "missing $bin/bench/mkimage; run 'make bench'"
	bases=$(test_kernels)
	trap 'rm -f "$scratch"' EXIT
	mkdir -p "$SHIFTBIND_OUT"
	export GUEST_TIMEOUT=${GUEST_TIMEOUT:-10800}
	export GUEST_APPEND="shiftbind.bench_trials=$TRIALS shiftbind.bench_start_trials=$START_TRIALS shiftbind.bench_sizes=$SIZES shiftbind.bench_churn=$CHURN shiftbind.bench_control_rounds=$CONTROL_ROUNDS ${GUEST_APPEND:-}"
	for base in $bases; do
		bench_base "$bin" "$base"
	done
	# shellcheck disable=SC2086 # one base a word
	goals_side_by_side $bases
	log "measured kernel base(s) ${bases//$'\n'/ } in $(((SECONDS - start) / 60)) min"
}

main "$@"
