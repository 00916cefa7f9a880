#!/bin/bash
# test.sh BIN_DIR: run every test suite and report (what `make test` runs
# after building).  Host suites run here; guest suites run in one boot of
# the guest.  SUITES=a,b limits the run to those suites.
#
# Results: $SHIFTBIND_OUT/results.tap, the failures' diagnostics on
# stdout, and the summary line "N passed, N failed, N skipped" last.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

readonly TESTS=$SHIFTBIND_ROOT/tests
readonly HOST_SUITES=(host)

bin=${1:?usage: test.sh BIN_DIR}

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

# The guest image, one for every boot of this run: built, or found in
# the cache, on first use.
image=
ensure_guest_image() {
	[ -n "$image" ] && return 0
	local kselftests
	kselftests=$("$SHIFTBIND_ROOT/scripts/kselftests.sh") &&
		image=$("$SHIFTBIND_ROOT/rootfs-builder/build-image.sh" "$bin" "$kselftests")
}

# boot_guest RESULTS CONSOLE SUITES [KERNEL]: one boot of the test guest.
boot_guest() {
	GUEST_RESULTS=$1 GUEST_CONSOLE=$2 "$SHIFTBIND_ROOT/scripts/run-guest.sh" \
		test "${4:-$kernel}" "$image" "$3"
}

harness_failure() {
	{
		echo "not ok - $1"
		grep 'error:' "$2" | sed 's/^/#   /'
	} >>"$SHIFTBIND_OUT/harness.results"
}

# run_debug_suites SUITE...: build the debugging kernel (KASAN, lockdep,
# kmemleak, failslab: configs/kernel-debug.config) and boot it on a fresh
# copy of the guest image for these suites, with a kernel log large
# enough that a burst of reports cannot push out a test's marker.
run_debug_suites() {
	local dirs=() suite debug_kernel status=0
	for suite in "$@"; do dirs+=("$TESTS/$suite"); done
	"$TESTS/lib/runner.sh" --list "${dirs[@]}" >>"$SHIFTBIND_OUT/expected.list"
	log "building the debug kernel for suites: $*"
	"$SHIFTBIND_ROOT/scripts/kernel.sh" build debug &&
		debug_kernel=$("$SHIFTBIND_ROOT/scripts/kernel.sh" image debug) &&
		ensure_guest_image &&
		log "booting the debug kernel for suites: $*" &&
		GUEST_APPEND="log_buf_len=4M ${GUEST_APPEND:-}" \
		boot_guest "$SHIFTBIND_OUT/guest-debug.results" "$SHIFTBIND_OUT/console-debug.log" \
			"$(IFS=,; echo "$*")" "$debug_kernel" 2>"$SHIFTBIND_OUT/guest-debug.log" ||
		status=$?
	cat "$SHIFTBIND_OUT/guest-debug.log" >&2
	[ "$status" -eq 0 ] || harness_failure guest.debug_run "$SHIFTBIND_OUT/guest-debug.log"
}

selected() {
	[ -z "${SUITES:-}" ] && return 0
	[[ ",$SUITES," == *",$1,"* ]]
}

main() {
	local suite kernel host_dirs=() guest=() debug=() status=0
	mkdir -p "$SHIFTBIND_OUT"
	rm -f "$SHIFTBIND_OUT"/{host,guest,guest-reboot,guest-debug,harness}.results \
		"$SHIFTBIND_OUT/expected.list"
	: >"$SHIFTBIND_OUT/harness.results"

	for suite in "${HOST_SUITES[@]}"; do
		selected "$suite" && host_dirs+=("$TESTS/$suite")
	done
	while read -r suite; do
		selected "$suite" || continue
		case $(suite_kernel "$suite") in
		test) guest+=("$suite") ;;
		debug) debug+=("$suite") ;;
		*) harness_failure "$suite.kernel" <(echo "error: tests/$suite/kernel names an unknown kernel variant") ;;
		esac
	done < <(guest_suites)

	if [ "${#host_dirs[@]}" -gt 0 ]; then
		"$TESTS/lib/runner.sh" --list "${host_dirs[@]}" >>"$SHIFTBIND_OUT/expected.list"
		log "running host suites: ${HOST_SUITES[*]}"
		"$TESTS/lib/runner.sh" --logs "$SHIFTBIND_OUT/logs" "${host_dirs[@]}" \
			>"$SHIFTBIND_OUT/host.results"
	fi

	if [ "${#guest[@]}" -gt 0 ]; then
		local dirs=() reboot=()
		for suite in "${guest[@]}"; do dirs+=("$TESTS/$suite"); done
		while read -r suite; do
			selected "$suite" && reboot+=("after-reboot/$suite")
		done < <(reboot_suites)
		"$TESTS/lib/runner.sh" --list "${dirs[@]}" >>"$SHIFTBIND_OUT/expected.list"
		[ "${#reboot[@]}" -eq 0 ] || "$TESTS/lib/runner.sh" --list \
			"${reboot[@]/#/$TESTS/}" >>"$SHIFTBIND_OUT/expected.list"
		# Both boots use one disk, so the second sees what the first wrote.
		export GUEST_DISK=$SHIFTBIND_CACHE/run/test-disk-$$.img
		mkdir -p "$SHIFTBIND_CACHE/run"
		rm -f "$GUEST_DISK"
		kernel=$("$SHIFTBIND_ROOT/scripts/kernel.sh" image) &&
			ensure_guest_image &&
			log "booting the guest for suites: ${guest[*]}" &&
			boot_guest "$SHIFTBIND_OUT/guest.results" "$SHIFTBIND_OUT/console.log" \
				"$(IFS=,; echo "${guest[*]}")" 2>"$SHIFTBIND_OUT/guest-run.log" ||
			status=$?
		cat "$SHIFTBIND_OUT/guest-run.log" >&2
		[ "$status" -eq 0 ] || harness_failure guest.run "$SHIFTBIND_OUT/guest-run.log"
		if [ "$status" -eq 0 ] && [ "${#reboot[@]}" -gt 0 ]; then
			log "booting the same disk again for: ${reboot[*]}"
			boot_guest "$SHIFTBIND_OUT/guest-reboot.results" \
				"$SHIFTBIND_OUT/console-reboot.log" "$(IFS=,; echo "${reboot[*]}")" \
				2>"$SHIFTBIND_OUT/guest-reboot.log" ||
				harness_failure guest.reboot "$SHIFTBIND_OUT/guest-reboot.log"
			cat "$SHIFTBIND_OUT/guest-reboot.log" >&2
		fi
		rm -f "$GUEST_DISK"
		unset GUEST_DISK
	fi

	[ "${#debug[@]}" -eq 0 ] || run_debug_suites "${debug[@]}"

	"$SHIFTBIND_ROOT/scripts/report.sh" --expect "$SHIFTBIND_OUT/expected.list" \
		"$SHIFTBIND_OUT/results.tap" "$SHIFTBIND_OUT/host.results" \
		"$SHIFTBIND_OUT/guest.results" "$SHIFTBIND_OUT/guest-reboot.results" \
		"$SHIFTBIND_OUT/guest-debug.results" "$SHIFTBIND_OUT/harness.results"
}

main "$@"
