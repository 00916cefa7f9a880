#!/bin/bash
# runner.sh: run test suites, on the host or in the guest, and print results.
#
#   runner.sh [--kernel BASE] [--release SUITE] [--logs DIR] SUITE_DIR...
#                           run, print result lines on stdout
#   runner.sh [--kernel BASE] [--release SUITE] --list SUITE_DIR...
#                           print the test files that will run
#
# A suite is a directory; its name is the directory's name.  With --kernel
# (the guest's runs: every guest suite runs on each kernel base of the
# run), the results are named SUITE@BASE instead of SUITE below, e.g.
# "shift@6.1.NAME" and "# ran shift@6.1/shift.tap", so that a failure
# says on which kernel; the host's results stay "host.NAME".
# Each executable file in a suite is one test file:
#   NAME.sh   one test, "SUITE.NAME"; exit 0 = pass, 4 (kselftest's
#             KSFT_SKIP, testlib.sh's skip) with "SKIP: reason" as its last
#             line of output = skip, anything else = fail (an exit 4
#             without that line too: a command's own status 4 under
#             set -e is no skip); a pass whose last line is "NOTE: TEXT"
#             (testlib's note) keeps TEXT as a note after it:
#             "ok - SUITE.NAME # TEXT"
#   NAME.tap  prints TAP; each "ok N NAME" / "not ok N NAME" line becomes
#             "SUITE.NAME" (a "# SKIP reason" or "# note" after it is
#             kept); a non-zero exit or a plan that does not match
#             the lines printed adds a failure "SUITE.NAME", except a
#             kselftest's ksft_exit_skip(): exit 4 with the plan
#             "1..0 # SKIP reason", the skip "SUITE.NAME # SKIP reason"
#
# Output, one line per result, unnumbered (the host numbers them):
#   ok - SUITE.NAME
#   ok - SUITE.NAME # SKIP reason
#   ok - SUITE.NAME # note
#   not ok - SUITE.NAME
#   # diagnostic lines (after a failure: the tail of the test's output)
#   # ran SUITE/FILE            (after each test file, whatever its result)
#   # took SECONDS SUITE/FILE   (its wall time, for the run's slowest-tests
#                               list: scripts/report.sh --durations)
# The "# ran" markers let the host tell a test that ran from one that left
# no result because the guest died.
#
# With --release SUITE (the Debian release of the guest, e.g. trixie), a
# test file with a line "# not-on-release: SUITE..." among its first 40
# naming that release neither runs nor is listed: it tests what that
# release's runtimes do not have (LXC on bookworm, podman 4.3.1's missing
# --rootfs :idmap), and its comment says so.  It has no result there, so
# it is neither a pass nor a skip; on every other release it runs, and a
# runtime missing there fails it.
set -uo pipefail

TEST_TIMEOUT=${TEST_TIMEOUT:-600}
readonly DIAG_LINES=40
readonly KSFT_SKIP=4 # tools/testing/selftests/kselftest.h

test_files() {
	local dir=$1 f
	for f in "$dir"/*.sh "$dir"/*.tap; do
		[ -f "$f" ] && [ -x "$f" ] && for_release "$f" && echo "$f"
	done | sort
}

# for_release FILE: whether FILE runs on the release of --release (any,
# without it): not when a "# not-on-release:" line of its head names it.
for_release() {
	local words
	[ -n "$release" ] || return 0
	words=$(head -n 40 "$1" | sed -n 's/^# not-on-release:[[:space:]]*//p' | tr -s '[:space:]' ' ')
	[[ " $words " != *" $release "* ]]
}

diagnostics() { tail -n "$DIAG_LINES" "$1" | sed 's/^/#   /'; }

status_reason() {
	case $1 in
	124 | 137) echo "timed out after ${TEST_TIMEOUT}s" ;;
	*) echo "exit status $1" ;;
	esac
}

# run_sh_test LABEL FILE LOG: run one NAME.sh test; its result is LABEL.NAME.
run_sh_test() {
	local label=$1 file=$2 log=$3 name status reason
	name=$label.$(basename "$file" .sh)
	(cd "$(dirname "$file")" && timeout -k 10 "$TEST_TIMEOUT" "$file") >"$log" 2>&1 </dev/null
	status=$?
	reason=$(tail -n 1 "$log")
	case $status in
	0)
		if [[ $reason == "NOTE: "* ]]; then
			echo "ok - $name # ${reason#NOTE: }"
		else
			echo "ok - $name"
		fi
		;;
	"$KSFT_SKIP")
		if [[ $reason == "SKIP: "* ]]; then
			echo "ok - $name # SKIP ${reason#SKIP: }"
		else
			echo "not ok - $name"
			echo "#   exit status $KSFT_SKIP without a last line \"SKIP: reason\" (testlib.sh's skip prints it): a failure, not a skip"
			diagnostics "$log"
		fi
		;;
	*)
		echo "not ok - $name"
		echo "#   $(status_reason "$status")"
		diagnostics "$log"
		;;
	esac
}

# Re-emit a TAP program's results under the suite's name.  Anything that
# looks like a result but does not parse, a missing or wrong plan, and a
# non-zero exit are failures of the file itself.  Results are LABEL.NAME;
# SUITE is the suite's plain name, which a kselftest's fixture may repeat.
run_tap_test() {
	local label=$1 suite=$2 file=$3 log=$4 stem status line planned=-1 seen=0 bad=0
	local skip_reason=
	stem=$(basename "$file" .tap)
	(cd "$(dirname "$file")" && timeout -k 10 "$TEST_TIMEOUT" "$file") >"$log" 2>&1 </dev/null
	status=$?
	# A directive other than SKIP (e.g. "# 200000 calls") is kept as a note.
	local re='^(not )?ok [0-9]+ (- )?([^#]*[^# ])( # (SKIP|skip)?(.*))?$'
	while IFS= read -r line; do
		line=${line%$'\r'}
		if [[ $line =~ ^1\.\.([0-9]+)( +# +SKIP:? *(.*))? ]]; then
			planned=${BASH_REMATCH[1]}
			skip_reason=${BASH_REMATCH[3]:-no reason given}
			[ -n "${BASH_REMATCH[2]}" ] || skip_reason=
		elif [[ $line =~ $re ]]; then
			seen=$((seen + 1))
			local tname=${BASH_REMATCH[3]// /_}
			# A kselftest names its results FIXTURE.TEST: a fixture
			# named after the suite is said once (shift.NAME).
			tname=${tname#"$suite".}
			if [ -n "${BASH_REMATCH[1]}" ]; then
				echo "not ok - $label.$tname"
				echo "#   see $stem output below"
				bad=1
			elif [ -n "${BASH_REMATCH[5]}" ]; then
				echo "ok - $label.$tname # SKIP${BASH_REMATCH[6]}"
			elif [ -n "${BASH_REMATCH[6]}" ]; then
				echo "ok - $label.$tname # ${BASH_REMATCH[6]}"
			else
				echo "ok - $label.$tname"
			fi
		fi
	done <"$log"
	# ksft_exit_skip(): nothing planned, the plan says why.
	if [ "$status" -eq "$KSFT_SKIP" ] && [ "$planned" -eq 0 ] && [ "$seen" -eq 0 ] &&
		[ -n "$skip_reason" ]; then
		echo "ok - $label.$stem # SKIP $skip_reason"
		return
	fi
	if [ "$status" -ne 0 ] || [ "$planned" -ne "$seen" ] || [ "$bad" -ne 0 ]; then
		echo "not ok - $label.$stem"
		echo "#   $(status_reason "$status"), planned $planned, reported $seen"
		diagnostics "$log"
	fi
}

# elapsed START: seconds since START (an $EPOCHREALTIME), one decimal.
elapsed() {
	local now=${EPOCHREALTIME/[.,]/} then=${1/[.,]/}
	local tenths=$(((now - then) / 100000))
	echo "$((tenths / 10)).$((tenths % 10))"
}

# label SUITE_DIR: what the suite's results are named: SUITE, or
# SUITE@BASE under --kernel.
label() { echo "$(basename "$1")${kernel:+@$kernel}"; }

run_suites() {
	local logs=$1 dir suite file log start
	shift
	mkdir -p "$logs"
	for dir in "$@"; do
		suite=$(basename "$dir")
		while read -r file; do
			log=$logs/$(label "$dir").$(basename "$file").log
			printf 'running %s/%s\n' "$(label "$dir")" "$(basename "$file")" >&2
			start=$EPOCHREALTIME
			case $file in
			*.sh) run_sh_test "$(label "$dir")" "$file" "$log" ;;
			*.tap) run_tap_test "$(label "$dir")" "$suite" "$file" "$log" ;;
			esac
			echo "# ran $(label "$dir")/$(basename "$file")"
			echo "# took $(elapsed "$start") $(label "$dir")/$(basename "$file")"
		done < <(test_files "$dir")
	done
}

list_suites() {
	local dir
	for dir in "$@"; do
		test_files "$dir" | sed "s|^.*/|$(label "$dir")/|"
	done
}

kernel=  # --kernel BASE
release= # --release SUITE
main() {
	local logs=${TMPDIR:-/tmp}/shiftbind-test-logs list=
	while [ $# -gt 0 ]; do
		case $1 in
		--kernel) kernel=${2:?--kernel needs a kernel base, e.g. 6.1} && shift 2 ;;
		--release) release=${2:?--release needs a Debian suite, e.g. trixie} && shift 2 ;;
		--logs) logs=${2:?--logs needs a directory} && shift 2 ;;
		--list) list=1 && shift ;;
		*) break ;;
		esac
	done
	if [ -n "$list" ]; then
		list_suites "$@"
	else
		run_suites "$logs" "$@"
	fi
}

main "$@"
