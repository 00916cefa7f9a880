#!/bin/bash
# test.sh BIN_DIR: run every test suite and report (what `make test` runs
# after building).  Host suites run here; guest suites run in one boot of
# the guest.  SUITES=a,b limits the run to those suites.
#
# Results: $SHIFTBIND_OUT/results.tap, the failures' diagnostics on
# stdout, and the summary line "N passed, N failed, N skipped" last.
set -uo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

readonly TESTS=$SHIFTBIND_ROOT/tests
readonly HOST_SUITES=(host)

bin=${1:-}

# Every directory of tests/ is a suite, except the shared library, the
# container probe's source, the host suites, and after-reboot/.
guest_suites() {
	local dir name
	for dir in "$TESTS"/*/; do
		name=$(basename "$dir")
		case $name in lib | probe | host | after-reboot) continue ;; esac
		echo "$name"
	done
}

# The kernel variant a guest suite boots (scripts/kernel.sh): the word in
# tests/SUITE/kernel, "test" without one.  Each variant is its own boot.
suite_kernel() {
	cat "$TESTS/$1/kernel" 2>/dev/null || echo test
}

# Tests that check, on a second boot of the same disk, what the first
# boot left: tests/after-reboot/SUITE/ (results are "SUITE.NAME").
reboot_suites() {
	local dir
	for dir in "$TESTS"/after-reboot/*/; do
		[ -d "$dir" ] && basename "$dir"
	done
}

# step NAME CMD...: one step of getting a guest to run the suites
# (kernel, selftests, image, boot, and their debug-kernel twins).  CMD's
# stderr is shown as it comes and kept in out/step-NAME.log, its stdout is
# passed on.  A failure becomes the result "not ok - step.NAME" with the
# step's reason, so the summary names what broke instead of only listing
# suites without results; the caller runs nothing that needs the step.
step() {
	local name=$1 status=0
	shift
	{ "$@" 2>&1 1>&3 | tee "$SHIFTBIND_OUT/step-$name.log" >&2; } 3>&1 || status=$?
	[ "$status" -eq 0 ] && return 0
	harness_failure "step.$name" "$SHIFTBIND_OUT/step-$name.log"
	log "step '$name' failed (exit $status); its log: $SHIFTBIND_OUT/step-$name.log"
	return "$status"
}

# harness_failure NAME LOG: record a failed step with its reason, the
# lines of LOG that say "error:" (every script's die()), else its end.
harness_failure() {
	local reason
	reason=$(grep 'error:' "$2" || true)
	[ -n "$reason" ] || reason=$(tail -n 10 "$2")
	[ -n "$reason" ] || reason="failed without a message"
	{
		echo "not ok - $1"
		sed 's/^/#   /' <<<"$reason"
	} >>"$SHIFTBIND_OUT/harness.results"
}

# The kernel of VARIANT, built when stale: sets $kernel to its image.
prepare_kernel() {
	local variant=$1 name=kernel
	[ "$variant" = test ] || name=$variant-kernel
	step "$name" "$SHIFTBIND_ROOT/scripts/kernel.sh" build "$variant" &&
		kernel=$("$SHIFTBIND_ROOT/scripts/kernel.sh" image "$variant")
}

# The guest image, one for every boot of this run: built, or found in
# the cache, on first use.  Sets $image.
image=
prepare_image() {
	[ -n "$image" ] && return 0
	local kselftests
	kselftests=$(step selftests "$SHIFTBIND_ROOT/scripts/kselftests.sh") &&
		image=$(step image "$SHIFTBIND_ROOT/rootfs-builder/build-image.sh" "$bin" "$kselftests")
}

# boot_guest NAME RESULTS CONSOLE SUITES: one boot of $kernel on $image,
# a step of its own.
boot_guest() {
	GUEST_RESULTS=$2 GUEST_CONSOLE=$3 step "$1" \
		"$SHIFTBIND_ROOT/scripts/run-guest.sh" test "$kernel" "$image" "$4"
}

# run_test_suites SUITE...: boot the test kernel for these suites, then
# the same disk again for their after-reboot/ checks.
run_test_suites() {
	local dirs=() reboot=() suite
	for suite in "$@"; do dirs+=("$TESTS/$suite"); done
	while read -r suite; do
		selected "$suite" && reboot+=("after-reboot/$suite")
	done < <(reboot_suites)
	"$TESTS/lib/runner.sh" --list "${dirs[@]}" >>"$SHIFTBIND_OUT/expected.list"
	[ "${#reboot[@]}" -eq 0 ] || "$TESTS/lib/runner.sh" --list \
		"${reboot[@]/#/$TESTS/}" >>"$SHIFTBIND_OUT/expected.list"
	prepare_kernel test && prepare_image || return 0
	# Both boots use one disk, so the second sees what the first wrote.
	export GUEST_DISK=$SHIFTBIND_CACHE/run/test-disk-$$.img
	mkdir -p "$SHIFTBIND_CACHE/run"
	rm -f "$GUEST_DISK"
	log "booting the guest for suites: $*"
	boot_guest boot "$SHIFTBIND_OUT/guest.results" "$SHIFTBIND_OUT/console.log" \
		"$(IFS=,; echo "$*")" &&
		if [ "${#reboot[@]}" -gt 0 ]; then
			log "booting the same disk again for: ${reboot[*]}"
			boot_guest reboot "$SHIFTBIND_OUT/guest-reboot.results" \
				"$SHIFTBIND_OUT/console-reboot.log" "$(IFS=,; echo "${reboot[*]}")"
		fi
	rm -f "$GUEST_DISK"
	unset GUEST_DISK
}

# run_debug_suites SUITE...: build the debugging kernel (KASAN, lockdep,
# kmemleak, failslab: configs/kernel-debug.config) and boot it on a fresh
# copy of the guest image for these suites, with a kernel log large
# enough that a burst of reports cannot push out a test's marker.
run_debug_suites() {
	local dirs=() suite
	for suite in "$@"; do dirs+=("$TESTS/$suite"); done
	"$TESTS/lib/runner.sh" --list "${dirs[@]}" >>"$SHIFTBIND_OUT/expected.list"
	log "building the debug kernel for suites: $*"
	prepare_kernel debug && prepare_image || return 0
	log "booting the debug kernel for suites: $*"
	GUEST_APPEND="log_buf_len=4M ${GUEST_APPEND:-}" \
		boot_guest debug-boot "$SHIFTBIND_OUT/guest-debug.results" \
		"$SHIFTBIND_OUT/console-debug.log" "$(IFS=,; echo "$*")" || true
}

selected() {
	[ -z "${SUITES:-}" ] && return 0
	[[ ",$SUITES," == *",$1,"* ]]
}

main() {
	local suite host_dirs=() guest=() debug=()
	[ -n "$bin" ] || die "usage: test.sh BIN_DIR"
	mkdir -p "$SHIFTBIND_OUT"
	rm -f "$SHIFTBIND_OUT"/{host,guest,guest-reboot,guest-debug,harness}.results \
		"$SHIFTBIND_OUT/expected.list" "$SHIFTBIND_OUT"/step-*.log
	: >"$SHIFTBIND_OUT/harness.results"

	for suite in "${HOST_SUITES[@]}"; do
		selected "$suite" && host_dirs+=("$TESTS/$suite")
	done
	while read -r suite; do
		selected "$suite" || continue
		case $(suite_kernel "$suite") in
		test) guest+=("$suite") ;;
		debug) debug+=("$suite") ;;
		*) harness_failure "$suite.kernel" <(echo "error: tests/$suite/kernel names an unknown kernel variant; use 'test' or 'debug'") ;;
		esac
	done < <(guest_suites)

	if [ "${#host_dirs[@]}" -gt 0 ]; then
		"$TESTS/lib/runner.sh" --list "${host_dirs[@]}" >>"$SHIFTBIND_OUT/expected.list"
		log "running host suites: ${HOST_SUITES[*]}"
		"$TESTS/lib/runner.sh" --logs "$SHIFTBIND_OUT/logs" "${host_dirs[@]}" \
			>"$SHIFTBIND_OUT/host.results"
	fi

	[ "${#guest[@]}" -eq 0 ] || run_test_suites "${guest[@]}"
	[ "${#debug[@]}" -eq 0 ] || run_debug_suites "${debug[@]}"

	"$SHIFTBIND_ROOT/scripts/report.sh" --expect "$SHIFTBIND_OUT/expected.list" \
		"$SHIFTBIND_OUT/results.tap" "$SHIFTBIND_OUT/host.results" \
		"$SHIFTBIND_OUT/guest.results" "$SHIFTBIND_OUT/guest-reboot.results" \
		"$SHIFTBIND_OUT/guest-debug.results" "$SHIFTBIND_OUT/harness.results"
}

# Sourced by tests/host/test_names_failed_step.sh for step(); run, it tests.
[ "${BASH_SOURCE[0]}" != "$0" ] || main "$@"
