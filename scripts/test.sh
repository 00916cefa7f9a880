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
# container probe's source, and the host suites.
guest_suites() {
	local dir name
	for dir in "$TESTS"/*/; do
		name=$(basename "$dir")
		case $name in lib | probe | host) continue ;; esac
		echo "$name"
	done
}

selected() {
	[ -z "${SUITES:-}" ] && return 0
	[[ ",$SUITES," == *",$1,"* ]]
}

main() {
	local suite kernel image host_dirs=() guest=() status=0
	mkdir -p "$SHIFTBIND_OUT"
	rm -f "$SHIFTBIND_OUT"/{host,guest,harness}.results "$SHIFTBIND_OUT/expected.list"
	: >"$SHIFTBIND_OUT/harness.results"

	for suite in "${HOST_SUITES[@]}"; do
		selected "$suite" && host_dirs+=("$TESTS/$suite")
	done
	while read -r suite; do
		selected "$suite" && guest+=("$suite")
	done < <(guest_suites)

	if [ "${#host_dirs[@]}" -gt 0 ]; then
		"$TESTS/lib/runner.sh" --list "${host_dirs[@]}" >>"$SHIFTBIND_OUT/expected.list"
		log "running host suites: ${HOST_SUITES[*]}"
		"$TESTS/lib/runner.sh" --logs "$SHIFTBIND_OUT/logs" "${host_dirs[@]}" \
			>"$SHIFTBIND_OUT/host.results"
	fi

	if [ "${#guest[@]}" -gt 0 ]; then
		local dirs=()
		for suite in "${guest[@]}"; do dirs+=("$TESTS/$suite"); done
		"$TESTS/lib/runner.sh" --list "${dirs[@]}" >>"$SHIFTBIND_OUT/expected.list"
		kernel=$("$SHIFTBIND_ROOT/scripts/kernel.sh" image) &&
			image=$("$SHIFTBIND_ROOT/rootfs-builder/build-image.sh" "$bin") &&
			log "booting the guest for suites: ${guest[*]}" &&
			"$SHIFTBIND_ROOT/scripts/run-guest.sh" test "$kernel" "$image" \
				"$(IFS=,; echo "${guest[*]}")" 2>"$SHIFTBIND_OUT/guest-run.log" ||
			status=$?
		cat "$SHIFTBIND_OUT/guest-run.log" >&2
		if [ "$status" -ne 0 ]; then
			{
				echo "not ok - guest.run"
				grep 'error:' "$SHIFTBIND_OUT/guest-run.log" | sed 's/^/#   /'
			} >>"$SHIFTBIND_OUT/harness.results"
		fi
	fi

	"$SHIFTBIND_ROOT/scripts/report.sh" --expect "$SHIFTBIND_OUT/expected.list" \
		"$SHIFTBIND_OUT/results.tap" "$SHIFTBIND_OUT/host.results" \
		"$SHIFTBIND_OUT/guest.results" "$SHIFTBIND_OUT/harness.results"
}

main "$@"
