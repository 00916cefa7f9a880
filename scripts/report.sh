#!/bin/bash
# report.sh [--expect LIST] TAP_OUT RESULTS...: merge result files into one
# numbered TAP file, print the failures, end with the summary line.
#
# RESULTS are the unnumbered result lines of tests/lib/runner.sh.  LIST
# names, one "suite/file" per line (runner.sh --list), every test file
# that should have run; one without a "# ran suite/file" marker in RESULTS
# counts as failed (the guest died or stopped before it).  A guest suite's
# entries carry the kernel it ran on ("shift@6.12/shift.tap"), so a base
# whose boot died fails its own results only ("shift@6.12.shift").  With
# CI set, a skip is a failure.
#
# The last line printed is "N passed, N failed, N skipped"; the exit status
# is 0 only when nothing failed and something ran.
set -euo pipefail

expect=
if [ "${1:-}" = --expect ]; then
	expect=$2
	shift 2
fi
tap_out=${1:?usage: report.sh [--expect LIST] TAP_OUT RESULTS...}
shift

merged=$(mktemp)
trap 'rm -f "$merged"' EXIT
cat -- "$@" >"$merged" 2>/dev/null || true

# where_to_look SUITE[@BASE]/FILE: where the reason for a missing result is.
where_to_look() {
	local suite=${1%%/*}
	case $suite in
	*@*) echo "a failed step.*@${suite#*@} result says why; see the console logs out/console*@${suite#*@}.log" ;;
	*) echo "a failed step.* result says why; see out/step-*.log and out/console*.log" ;;
	esac
}

# Test files that left no marker: a failure each, with the reason.
if [ -n "$expect" ]; then
	while read -r file; do
		[ -n "$file" ] || continue
		grep -qxF "# ran $file" "$merged" && continue
		printf 'not ok - %s\n#   no result: the guest ended before %s ran (%s)\n' \
			"$(tr / . <<<"${file%.*}")" "$file" "$(where_to_look "$file")" >>"$merged"
	done <"$expect"
fi

awk -v ci="${CI:-}" -v tap_out="$tap_out" '
	function flush_diag() { if (in_failure) print "" }
	/^ok - / || /^not ok - / {
		line = $0
		if (ci != "" && line ~ /^ok - .* # SKIP/) {
			sub(/^ok - /, "not ok - ", line)
			sub(/ # SKIP/, " # skipped, which fails under CI:", line)
		}
		n++
		results[n] = line
		in_failure = (line ~ /^not ok/)
		if (line ~ /^not ok/) { failed++; failures = failures "\n" line }
		else if (line ~ / # SKIP/) skipped++
		else passed++
		next
	}
	/^#   / {
		if (n > 0) results[n] = results[n] "\n" $0
		if (in_failure) failures = failures "\n" $0
		next
	}
	END {
		print "TAP version 13" > tap_out
		print "1.." n > tap_out
		for (i = 1; i <= n; i++) {
			r = results[i]
			sub(/^ok - /, "ok " i " - ", r)
			sub(/^not ok - /, "not ok " i " - ", r)
			print r > tap_out
		}
		if (failed > 0) print "Failures:" failures "\n"
		if (n == 0) { print "no test results at all"; failed++ }
		printf "%d passed, %d failed, %d skipped\n", passed, failed, skipped
		exit failed > 0
	}
' "$merged"
