#!/bin/bash
# report.sh numbers the merged results, counts them, turns a test file
# without a "# ran" marker into a failure (a guest that died must never
# pass), per kernel when the names carry one (SUITE@BASE), turns skips
# into failures under CI, and exits non-zero on failure.
. "$(dirname "$0")/../lib/testlib.sh"
scratch_dir

report=$SHIFTBIND_TESTS/../scripts/report.sh
printf 'ok - a.one\n# ran a/one.sh\nok - a.two # SKIP no widget\n# ran a/two.sh\n' >"$SCRATCH/results"
printf 'a/one.sh\na/two.sh\n' >"$SCRATCH/expect"

CI='' assert_status 0 "$report" --expect "$SCRATCH/expect" "$SCRATCH/tap" "$SCRATCH/results"
assert_eq "1 passed, 0 failed, 1 skipped" "$(tail -n 1 <<<"$OUTPUT")" "summary"
assert_eq "$(printf 'TAP version 13\n1..2\nok 1 - a.one\nok 2 - a.two # SKIP no widget')" \
	"$(cat "$SCRATCH/tap")" "TAP file"

CI=1 assert_status 1 "$report" --expect "$SCRATCH/expect" "$SCRATCH/tap" "$SCRATCH/results"
assert_eq "1 passed, 1 failed, 0 skipped" "$(tail -n 1 <<<"$OUTPUT")" "summary under CI"

echo 'b/never.sh' >>"$SCRATCH/expect"
CI='' assert_status 1 "$report" --expect "$SCRATCH/expect" "$SCRATCH/tap" "$SCRATCH/results"
assert_contains 'not ok - b.never' "$OUTPUT"
assert_contains 'no result: the guest ended before b/never.sh ran' "$OUTPUT"
assert_eq "1 passed, 1 failed, 1 skipped" "$(tail -n 1 <<<"$OUTPUT")" "summary with a missing result"

# Two kernels, the same test file: the result of one does not stand in
# for the other's, and the missing one names its kernel.
printf 'ok - shift@6.1.one\n# ran shift@6.1/shift.tap\n' >"$SCRATCH/results"
printf 'shift@6.1/shift.tap\nshift@6.12/shift.tap\n' >"$SCRATCH/expect"
CI='' assert_status 1 "$report" --expect "$SCRATCH/expect" "$SCRATCH/tap" "$SCRATCH/results"
assert_contains 'not ok - shift@6.12.shift' "$OUTPUT"
assert_contains 'no result: the guest ended before shift@6.12/shift.tap ran (a failed step.*@6.12 result says why' "$OUTPUT"
assert_eq "" "$(grep 'not ok - shift@6.1\.' <<<"$OUTPUT" || true)" "the kernel that ran"
assert_eq "1 passed, 1 failed, 0 skipped" "$(tail -n 1 <<<"$OUTPUT")" "summary with one kernel's result missing"

CI='' assert_status 1 "$report" "$SCRATCH/tap" /dev/null
assert_eq "0 passed, 1 failed, 0 skipped" "$(tail -n 1 <<<"$OUTPUT")" "summary of an empty run"
