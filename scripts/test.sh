#!/bin/bash
# test.sh BIN_DIR: run every test suite and report (what `make test` runs
# after building).  Host suites run here, once; guest suites run on each
# kernel base of the run (KERNEL alone, else TEST_KERNELS, else
# scripts/lib.sh's DEFAULT_TEST_KERNELS), in one boot per base; the
# debug-kernel suites run on the debug build of one base, DEBUG_KERNEL
# (scripts/lib.sh's debug_kernel).  SUITES=a,b limits the run to those
# suites.
#
# While a guest boots, the run does work that needs no guest in the
# background at low priority: the next kernel's build, and the host suites
# once the test kernels are built (before_boot).  Under TCG a guest keeps
# about 1.25 of the machine's 2 cores busy; the rest would idle.
#
# The multi-node suites (those with a tests/SUITE/nodes file: cluster.)
# boot two guests of the cluster image on one base (scripts/lib.sh's
# cluster_kernel; scripts/cluster.sh), after the other guest suites.
#
# Guest results are named SUITE@BASE.NAME and steps step.NAME@BASE, so a
# failure says on which kernel (tests/lib/runner.sh --kernel); host
# results stay host.NAME.
#
# Results: $SHIFTBIND_OUT/results.tap, the failures' diagnostics on
# stdout, and the summary line "N passed, N failed, N skipped" last.
# $SHIFTBIND_OUT/durations.txt lists the steps and test files by wall
# time, slowest first: where a run's minutes went.
set -uo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

readonly TESTS=$SHIFTBIND_ROOT/tests
readonly HOST_SUITES=(host)

bin=${1:-}

# Every directory of tests/ is a suite, except the shared library, the
# container probe's source, the host suites, after-reboot/, and soak/
# (make boot-soak's, many boots of it alone).
guest_suites() {
	local dir name
	for dir in "$TESTS"/*/; do
		name=$(basename "$dir")
		case $name in lib | probe | host | after-reboot | soak) continue ;; esac
		echo "$name"
	done
}

# The kernel variant a guest suite boots (scripts/kernel.sh): the word in
# tests/SUITE/kernel, "test" without one.  Each variant is its own boot.
suite_kernel() {
	cat "$TESTS/$1/kernel" 2>/dev/null || echo test
}

# Tests that check, on a second boot of the same disk, what the first
# boot left: tests/after-reboot/SUITE/ (results are "SUITE@BASE.NAME",
# like the first boot's).
reboot_suites() {
	local dir
	for dir in "$TESTS"/after-reboot/*/; do
		[ -d "$dir" ] && basename "$dir"
	done
}

# step NAME CMD...: one step of getting a guest to run the suites
# (kernel, selftests, image, boot, and their debug-kernel twins; NAME is
# "kernel@6.1" and the like, the base it is for).  CMD's
# stderr is shown as it comes and kept in out/step-NAME.log, its stdout is
# passed on.  A failure becomes the result "not ok - step.NAME" with the
# step's reason, so the summary names what broke instead of only listing
# suites without results; the caller runs nothing that needs the step.
step() {
	local name=$1 status=0 start=$SECONDS
	shift
	{ "$@" 2>&1 1>&3 | tee "$SHIFTBIND_OUT/step-$name.log" >&2; } 3>&1 || status=$?
	echo "# took $((SECONDS - start)) step.$name" >>"$SHIFTBIND_OUT/steps.results"
	[ "$status" -eq 0 ] && return 0
	harness_failure "step.$name" "$SHIFTBIND_OUT/step-$name.log"
	log "step '$name' failed (exit $status); its log: $SHIFTBIND_OUT/step-$name.log"
	return "$status"
}

# harness_failure NAME LOG: record a failed step with its reason, the
# lines of LOG that say "error:" (every script's die()), else its end.
harness_failure() {
	local reason lines
	reason=$(grep 'error:' "$2" || true)
	[ -n "$reason" ] || reason=$(tail -n 10 "$2")
	[ -n "$reason" ] || reason="failed without a message"
	mapfile -t lines <<<"$reason"
	{
		echo "not ok - $1"
		printf '#   %s\n' "${lines[@]}"
	} >>"$SHIFTBIND_OUT/harness.results"
}

# build_kernel BASE VARIANT: kernel.sh's build of one base, refused for a
# base whose series lists no patches (Debian's kernel under our name).
build_kernel() {
	require_series "$1"
	KERNEL=$1 "$SHIFTBIND_ROOT/scripts/kernel.sh" build "$2"
}

# prepare_kernel BASE VARIANT: the step building BASE's kernel of VARIANT
# when stale ("kernel@BASE", "debug-kernel@BASE"); prints its image.
prepare_kernel() {
	local base=$1 variant=$2 name=kernel
	[ "$variant" = test ] || name=$variant-kernel
	step "$name@$base" build_kernel "$base" "$variant" &&
		KERNEL=$base "$SHIFTBIND_ROOT/scripts/kernel.sh" image "$variant"
}

# What this run made of each base: its test kernel's image (and whether
# that step passed), its guest image (with its selftests), or that a step
# of it failed.
declare -A test_kernel=() kernel_built=() guest_image=() guest_release_of=() prepared=()

# prepare_test_kernel BASE: test_kernel[BASE], BASE's test kernel (step
# kernel@BASE), built once per run: used by every boot of BASE and by the
# host suites, which check its packages (host.deb_contents).
prepare_test_kernel() {
	local base=$1
	case ${kernel_built[$base]:-} in
	ok) return 0 ;;
	failed) return 1 ;;
	esac
	kernel_built[$base]=failed
	background_build_started["$base test"]=1
	await_background_build "$base" test
	test_kernel[$base]=$(prepare_kernel "$base" test) || return 1
	kernel_built[$base]=ok
}

# prepare_guest BASE: the test kernel, selftests and guest image of BASE
# (steps kernel@BASE, selftests@BASE, image@BASE) and the Debian release
# of that image (guest_release), once per run however many boots need
# them: a failed step is one result, not one per boot.
prepare_guest() {
	local base=$1 kselftests
	case ${prepared[$base]:-} in
	ok) return 0 ;;
	failed) return 1 ;;
	esac
	prepared[$base]=failed
	prepare_test_kernel "$base" &&
		kselftests=$(step "selftests@$base" env KERNEL="$base" "$SHIFTBIND_ROOT/scripts/kselftests.sh") &&
		guest_image[$base]=$(step "image@$base" env KERNEL="$base" \
			"$SHIFTBIND_ROOT/rootfs-builder/build-image.sh" "$bin" "$kselftests") &&
		guest_release_of[$base]=$(guest_release "$base") ||
		return 1
	prepared[$base]=ok
}

# The kernels the run boots, "BASE VARIANT" in the order it needs them
# (main), which of them were started, and the background jobs.
kernel_plan=()
declare -A background_build_started=() background_build_pid=()
host_suites_pid=

# background_build BASE VARIANT: build that kernel (and a test kernel's
# selftests, after its guest release's debootstrap when not cached yet:
# mostly waiting on the mirror) in the background at the lowest CPU
# priority, into out/background-VARIANT@BASE.log.  await_background_build waits for it
# before the step that needs it, which then finds the build up to date;
# if it failed, the step builds it again and reports the failure as its
# own.  When the run has host suites, the job first makes the Debian
# packages of the test kernels built so far (host.deb_contents checks
# them, and would otherwise make them itself), not in the way of the
# boot that waits for this build.
background_build() {
	local base=$1 variant=$2 log
	log=$SHIFTBIND_OUT/background-$variant@$base.log
	log "building the $base $variant kernel in the background, at low priority, while the guest runs (log: $log)"
	(
		start=$SECONDS
		for built in "${!kernel_built[@]}"; do
			[ "${kernel_built[$built]}" = ok ] || continue
			package_in_background "$built" || true # host.deb_contents says why
		done
		# A failed debootstrap is retried, and reported, by image@BASE
		# (and cluster-image@BASE).
		if [ "$variant" = test ] && ! { release=$(guest_release "$base") &&
			nice -n 19 "$SHIFTBIND_ROOT/rootfs-builder/debootstrap.sh" "$release" >/dev/null; }; then
			log "the debootstrap of $base's guest release failed; the image@$base step tries it again"
		fi
		if [ "$variant" = test ] && [ "$base" = "$cluster_base" ] && ! { release=$(guest_release "$base") &&
			nice -n 19 "$SHIFTBIND_ROOT/rootfs-builder/debootstrap.sh" "$release" cluster >/dev/null; }; then
			log "the debootstrap of $base's cluster guest failed; the cluster-image@$base step tries it again"
		fi
		require_series "$base" &&
			KERNEL=$base nice -n 19 "$SHIFTBIND_ROOT/scripts/kernel.sh" build "$variant" &&
			if [ "$variant" = test ]; then
				KERNEL=$base nice -n 19 "$SHIFTBIND_ROOT/scripts/kselftests.sh" >/dev/null
			fi
		status=$?
		echo "# took $((SECONDS - start)) background-$variant@$base" >>"$SHIFTBIND_OUT/steps.results"
		exit "$status"
	) </dev/null >"$log" 2>&1 &
	background_build_pid["$base $variant"]=$!
}

# package_in_background BASE: BASE's kernel packages (kernel.sh deb, cached),
# when the run has host suites to check them.
package_in_background() {
	[ "${#host_dirs[@]}" -gt 0 ] || return 0
	KERNEL=$1 nice -n 19 "$SHIFTBIND_ROOT/scripts/kernel.sh" deb "$SHIFTBIND_OUT/deb" >/dev/null
}

# await_background_build BASE VARIANT: wait for background_build's job of
# that kernel, if there is one.
await_background_build() {
	local pid=${background_build_pid["$1 $2"]:-}
	[ -n "$pid" ] || return 0
	unset 'background_build_pid["$1 $2"]'
	log "waiting for the background build of the $1 $2 kernel"
	wait "$pid" ||
		log "the background build of the $1 $2 kernel failed (log: $SHIFTBIND_OUT/background-$2@$1.log); building it in the foreground"
}

# before_boot: start the work that needs no guest, to run while this boot
# does: the build of the first kernel of kernel_plan not started yet, and
# the host suites once every test kernel they check is built (they are
# single-threaded: better beside a boot than after the last one).
before_boot() {
	local entry base
	for entry in "${kernel_plan[@]}"; do
		[ -z "${background_build_started[$entry]:-}" ] || continue
		background_build_started[$entry]=1
		# shellcheck disable=SC2086 # "BASE VARIANT"
		background_build $entry
		break
	done
	[ -z "$host_suites_pid" ] || return 0
	for base in "${kernels[@]}"; do
		[ -n "${kernel_built[$base]:-}" ] || return 0
	done
	start_host_suites background
}

# out_file NAME BASE: the per-run output file NAME of BASE's boots (NAME
# with "@BASE" before its extension: guest@6.1.results, console@6.1.log).
out_file() { echo "$SHIFTBIND_OUT/${1%.*}@$2.${1##*.}"; }

# expect BASE DIR...: every test file of these suites that runs on BASE's
# guest release must leave a result of BASE's boots (report.sh --expect;
# the guest's runner leaves out the same files, runner.sh --release).
expect() {
	local base=$1 release
	shift
	release=$(guest_release "$base") || return 1
	"$TESTS/lib/runner.sh" --kernel "$base" --release "$release" --list "$@" \
		>>"$SHIFTBIND_OUT/expected.list"
}

# boot_guest BASE NAME KERNEL_IMAGE RESULTS CONSOLE SUITES: one boot of
# BASE's guest (step NAME@BASE); the guest names its results after BASE,
# and checks it runs BASE's Debian release (smoke.guest_release).
boot_guest() {
	GUEST_RESULTS=$(out_file "$4" "$1") GUEST_CONSOLE=$(out_file "$5" "$1") \
		GUEST_APPEND="shiftbind.kernel=$1 shiftbind.guest_release=${guest_release_of[$1]} ${GUEST_APPEND:-}" \
		step "$2@$1" \
		"$SHIFTBIND_ROOT/scripts/run-guest.sh" test "$3" "${guest_image[$1]}" "$6"
}

# run_test_suites BASE SUITE...: boot BASE's test kernel for these suites,
# then the same disk again for their after-reboot/ checks.
run_test_suites() {
	local base=$1 dirs=() reboot=() suite
	shift
	for suite in "$@"; do dirs+=("$TESTS/$suite"); done
	while read -r suite; do
		selected "$suite" && reboot+=("after-reboot/$suite")
	done < <(reboot_suites)
	expect "$base" "${dirs[@]}"
	[ "${#reboot[@]}" -eq 0 ] || expect "$base" "${reboot[@]/#/$TESTS/}"
	prepare_guest "$base" || return 0
	# Both boots use one disk, so the second sees what the first wrote.
	export GUEST_DISK=$SHIFTBIND_CACHE/run/test-disk-$base-$$.img
	mkdir -p "$SHIFTBIND_CACHE/run"
	rm -f "$GUEST_DISK"
	before_boot
	log "booting the $base guest for suites: $*"
	boot_guest "$base" boot "${test_kernel[$base]}" guest.results console.log \
		"$(IFS=,; echo "$*")" &&
		if [ "${#reboot[@]}" -gt 0 ]; then
			log "booting the same $base disk again for: ${reboot[*]}"
			boot_guest "$base" reboot "${test_kernel[$base]}" guest-reboot.results \
				console-reboot.log "$(IFS=,; echo "${reboot[*]}")"
		fi
	rm -f "$GUEST_DISK"
	unset GUEST_DISK
}

# run_debug_suites BASE SUITE...: build BASE's debugging kernel (KASAN,
# lockdep, kmemleak, failslab: configs/kernel-debug.config) and boot it on
# a fresh copy of BASE's guest image for these suites, with a kernel log
# large enough that a burst of reports cannot push out a test's marker.
run_debug_suites() {
	local base=$1 dirs=() suite kernel
	shift
	for suite in "$@"; do dirs+=("$TESTS/$suite"); done
	expect "$base" "${dirs[@]}"
	log "building the $base debug kernel for suites: $*"
	background_build_started["$base debug"]=1
	prepare_guest "$base" && await_background_build "$base" debug &&
		kernel=$(prepare_kernel "$base" debug) || return 0
	before_boot
	log "booting the $base debug kernel for suites: $*"
	GUEST_APPEND="log_buf_len=4M ${GUEST_APPEND:-}" \
		boot_guest "$base" debug-boot "$kernel" guest-debug.results \
		console-debug.log "$(IFS=,; echo "$*")" || true
}

# run_cluster_suites SUITE...: the multi-node suites, on the two cluster
# guests of cluster_base (scripts/cluster.sh), from the cluster image
# (build-image.sh, GUEST_VARIANT=cluster: step cluster-image@BASE); node1
# runs the suites (step cluster-boot@BASE; results guest-cluster@BASE,
# consoles console-node1@BASE.log and console-node2@BASE.log).
run_cluster_suites() {
	local base=$cluster_base dirs=() suite image release
	[ -n "$base" ] || return 0
	for suite in "$@"; do dirs+=("$TESTS/$suite"); done
	expect "$base" "${dirs[@]}"
	prepare_test_kernel "$base" &&
		release=$(guest_release "$base") &&
		image=$(step "cluster-image@$base" env KERNEL="$base" GUEST_VARIANT=cluster \
			"$SHIFTBIND_ROOT/rootfs-builder/build-image.sh" "$bin") || return 0
	before_boot
	log "booting the two cluster guests on $base for suites: $*"
	GUEST_RESULTS=$(out_file guest-cluster.results "$base") \
		GUEST_CONSOLE=$(out_file console-node1.log "$base") \
		NODE2_RESULTS=$(out_file node2.results "$base") \
		NODE2_CONSOLE=$(out_file console-node2.log "$base") \
		NODE2_LOG=$(out_file run-node2.log "$base") \
		GUEST_TIMEOUT=${GUEST_TIMEOUT:-1800} \
		GUEST_APPEND="shiftbind.kernel=$base shiftbind.guest_release=$release ${GUEST_APPEND:-}" \
		step "cluster-boot@$base" "$SHIFTBIND_ROOT/scripts/cluster.sh" \
		"${test_kernel[$base]}" "$image" "$(IFS=,; echo "$*")" || true
}

# write_durations RESULTS...: their "# took SECONDS WHAT" lines, slowest
# first, as "SECONDS WHAT" in durations.txt.
write_durations() {
	cat -- "$@" 2>/dev/null | sed -n 's/^# took //p' | sort -rn -k1,1 \
		>"$SHIFTBIND_OUT/durations.txt" || true
	log "where the time went, slowest first: $SHIFTBIND_OUT/durations.txt"
}

selected() {
	[ -z "${SUITES:-}" ] && return 0
	[[ ",$SUITES," == *",$1,"* ]]
}

# The run's kernel bases and host suite directories, and the base of
# the multi-node suites, if they run (main).
kernels=()
host_dirs=()
cluster_base=

# start_host_suites [background]: run the host suites, in the background
# at low priority while a guest boots (before_boot), else here.  They
# check the packages of the run's test kernels, so those are built first
# (a failed build is its step's result, and theirs).
start_host_suites() {
	local base
	[ "${#host_dirs[@]}" -gt 0 ] && [ -z "$host_suites_pid" ] || return 0
	for base in "${kernels[@]}"; do
		prepare_test_kernel "$base" || true
	done
	log "running host suites: ${HOST_SUITES[*]} (checking the series of: ${kernels[*]})${1:+, in the background (log: $SHIFTBIND_OUT/host-suites.log)}"
	# The host's checks of the series (checkpatch, round trip) cover
	# the run's kernels (tests/lib/testlib.sh, kernels_under_test).
	if [ "${1:-}" = background ]; then
		TEST_KERNELS=${kernels[*]} nice -n 10 "$TESTS/lib/runner.sh" --logs "$SHIFTBIND_OUT/logs" \
			"${host_dirs[@]}" >"$SHIFTBIND_OUT/host.results" 2>"$SHIFTBIND_OUT/host-suites.log" </dev/null &
		host_suites_pid=$!
	else
		TEST_KERNELS=${kernels[*]} "$TESTS/lib/runner.sh" --logs "$SHIFTBIND_OUT/logs" \
			"${host_dirs[@]}" >"$SHIFTBIND_OUT/host.results"
		host_suites_pid=finished
	fi
}

# finish_host_suites: the host suites have run (in the background, or now).
finish_host_suites() {
	case $host_suites_pid in
	finished) ;;
	"") start_host_suites ;;
	*)
		log "waiting for the host suites (log: $SHIFTBIND_OUT/host-suites.log)"
		wait "$host_suites_pid" || true
		host_suites_pid=finished
		;;
	esac
}

main() {
	local suite list base debug_base guest=() debug=() cluster=()
	[ -n "$bin" ] || die "usage: test.sh BIN_DIR"
	list=$(test_kernels) || exit 1
	mapfile -t kernels <<<"$list"
	mkdir -p "$SHIFTBIND_OUT"
	rm -f "$SHIFTBIND_OUT"/{host,guest*,harness,steps}.results \
		"$SHIFTBIND_OUT/expected.list" "$SHIFTBIND_OUT"/{step,background}-*.log
	: >"$SHIFTBIND_OUT/harness.results"

	for suite in "${HOST_SUITES[@]}"; do
		selected "$suite" && host_dirs+=("$TESTS/$suite")
	done
	while read -r suite; do
		selected "$suite" || continue
		if [ -f "$TESTS/$suite/nodes" ]; then
			cluster+=("$suite")
			continue
		fi
		case $(suite_kernel "$suite") in
		test) guest+=("$suite") ;;
		debug) debug+=("$suite") ;;
		*) harness_failure "$suite.kernel" <(echo "error: tests/$suite/kernel names an unknown kernel variant; use 'test' or 'debug'") ;;
		esac
	done < <(guest_suites)
	# Checked before the host suites' minutes: a wrong DEBUG_KERNEL ends here.
	if [ "${#debug[@]}" -gt 0 ]; then
		debug_base=$(debug_kernel "${kernels[@]}") || exit 1
	fi
	if [ "${#cluster[@]}" -gt 0 ]; then
		cluster_base=$(cluster_kernel "${kernels[@]}") ||
			{ [ -z "${CLUSTER_KERNEL:-}" ] || exit 1; }
		[ -n "$cluster_base" ] ||
			log "not booting the multi-node suites (${cluster[*]}): their base, $DEFAULT_CLUSTER_KERNEL, is not among this run's kernels (${kernels[*]})"
	fi

	[ "${#host_dirs[@]}" -eq 0 ] ||
		"$TESTS/lib/runner.sh" --list "${host_dirs[@]}" >>"$SHIFTBIND_OUT/expected.list"
	if [ "${#guest[@]}" -gt 0 ]; then
		for base in "${kernels[@]}"; do kernel_plan+=("$base test"); done
	elif [ -n "$cluster_base" ]; then
		kernel_plan+=("$cluster_base test")
	fi
	[ "${#debug[@]}" -eq 0 ] || kernel_plan+=("$debug_base debug")

	if [ "${#guest[@]}" -gt 0 ]; then
		for base in "${kernels[@]}"; do
			run_test_suites "$base" "${guest[@]}"
		done
	fi
	# Beside the rest of the debug kernel's build, which the fuzz boot
	# waits for.
	[ "${#cluster[@]}" -eq 0 ] || run_cluster_suites "${cluster[@]}"
	[ "${#debug[@]}" -eq 0 ] || run_debug_suites "$debug_base" "${debug[@]}"
	finish_host_suites
	wait # a background build whose boot never came (a failed step)

	write_durations "$SHIFTBIND_OUT"/{host,steps}.results "$SHIFTBIND_OUT"/guest*@*.results
	"$SHIFTBIND_ROOT/scripts/report.sh" --expect "$SHIFTBIND_OUT/expected.list" \
		"$SHIFTBIND_OUT/results.tap" "$SHIFTBIND_OUT/host.results" \
		"$SHIFTBIND_OUT"/guest*@*.results "$SHIFTBIND_OUT/harness.results"
}

# Sourced by tests/host/test_names_failed_step.sh for step(); run, it tests.
[ "${BASH_SOURCE[0]}" != "$0" ] || main "$@"
