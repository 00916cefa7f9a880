#!/bin/bash
# The suite runner turns exit statuses and TAP output into result lines:
# pass (with the note of a last "NOTE:" line), fail with the test's
# output as diagnostics, skip with its reason
# (exit 4, kselftest's KSFT_SKIP, after "SKIP: reason"; an exit 4 without
# that line, or the 77 of earlier versions, is a failure; a TAP file's
# ksft_exit_skip(), exit 4 after "1..0 # SKIP reason", a skip),
# TAP subtests under the suite's name (a file not for the --release
# neither run nor listed) (notes after them kept; a kselftest
# fixture named after the suite said once), a TAP file whose plan does not match
# as a failure, and a "# ran" marker after every file.  With --kernel BASE
# (the guest's runs) every name carries the kernel: SUITE@BASE.NAME, and
# "# ran SUITE@BASE/FILE", as --list --kernel BASE expects them.
. "$(dirname "$0")/../lib/testlib.sh"
scratch_dir

suite=$SCRATCH/demo
mkdir -p "$suite"
printf '#!/bin/sh\nexit 0\n' >"$suite/passes.sh"
printf '#!/bin/sh\necho "NOTE: Debian 13.2 (trixie)"\nexit 0\n' >"$suite/notes.sh"
printf '#!/bin/sh\necho "NOTE: not last"\necho done\n' >"$suite/notes_early.sh"
printf '#!/bin/sh\necho something broke\nexit 3\n' >"$suite/fails.sh"
printf '#!/bin/sh\necho "SKIP: no widget"\nexit 4\n' >"$suite/skips.sh"
printf '#!/bin/sh\necho "mount: internal error"\nexit 4\n' >"$suite/exits4.sh"
printf '#!/bin/sh\necho "SKIP: old code"\nexit 77\n' >"$suite/exits77.sh"
printf '#!/bin/sh\necho "TAP version 13"\necho "1..0 # SKIP no gadget"\nexit 4\n' >"$suite/ksft_skip.tap"
printf '#!/bin/sh\necho "1..0"\nexit 4\n' >"$suite/ksft_bare.tap"
printf '#!/bin/sh\necho 1..4\necho "ok 1 first"\necho "not ok 2 second"\necho "ok 3 third # 42 calls"\necho "ok 4 demo.fixture_test"\n' >"$suite/sub.tap"
printf '#!/bin/sh\necho 1..3\necho "ok 1 - only"\n' >"$suite/short.tap"
printf 'not executable, not a test\n' >"$suite/README"
chmod +x "$suite"/*.sh "$suite"/*.tap

out=$("$SHIFTBIND_TESTS/lib/runner.sh" --logs "$SCRATCH/logs" "$suite" 2>/dev/null)
assert_contains $'not ok - demo.fails\n#   exit status 3\n#   something broke' "$out"
assert_contains $'ok - demo.passes\n' "$out"
assert_contains $'ok - demo.notes # Debian 13.2 (trixie)\n' "$out"
assert_contains $'ok - demo.notes_early\n' "$out" "a NOTE: line that is not the last"
assert_contains 'ok - demo.skips # SKIP no widget' "$out"
assert_contains $'not ok - demo.exits4\n#   exit status 4 without a last line "SKIP: reason"' "$out" "an exit 4 without its SKIP line"
assert_contains $'not ok - demo.exits77\n#   exit status 77' "$out" "an exit 77"
assert_contains 'ok - demo.ksft_skip # SKIP no gadget' "$out" "ksft_exit_skip()"
assert_contains $'not ok - demo.ksft_bare\n#   exit status 4, planned 0, reported 0' "$out" "an exit 4 after a plan without a reason"
assert_contains 'ok - demo.first' "$out"
assert_contains 'not ok - demo.second' "$out"
assert_contains 'ok - demo.third # 42 calls' "$out"
assert_contains $'ok - demo.fixture_test\n' "$out"
assert_contains 'ok - demo.only' "$out"
assert_contains $'not ok - demo.short\n#   exit status 0, planned 3, reported 1' "$out"
assert_eq 11 "$(grep -c '^# ran demo/' <<<"$out")" "number of ran markers"
assert_eq 11 "$(grep -cE '^# took [0-9]+\.[0-9] demo/' <<<"$out")" "each file's wall time"
assert_eq "$(printf 'demo/exits4.sh\ndemo/exits77.sh\ndemo/fails.sh\ndemo/ksft_bare.tap\ndemo/ksft_skip.tap\ndemo/notes.sh\ndemo/notes_early.sh\ndemo/passes.sh\ndemo/short.tap\ndemo/skips.sh\ndemo/sub.tap')" \
	"$("$SHIFTBIND_TESTS/lib/runner.sh" --list "$suite")" "listed test files"

out=$("$SHIFTBIND_TESTS/lib/runner.sh" --kernel 6.12 --logs "$SCRATCH/logs" "$suite" 2>/dev/null)
assert_contains $'not ok - demo@6.12.fails\n#   exit status 3' "$out"
assert_contains 'ok - demo@6.12.skips # SKIP no widget' "$out"
assert_contains 'not ok - demo@6.12.second' "$out"
assert_contains $'ok - demo@6.12.fixture_test\n' "$out" "a fixture named after the suite, under --kernel"
assert_contains $'not ok - demo@6.12.short\n' "$out"
assert_eq "" "$(grep -E '^(not )?ok - demo\.' <<<"$out" || true)" "results without the kernel"
assert_eq 11 "$(grep -c '^# ran demo@6.12/' <<<"$out")" "ran markers with the kernel"
assert_eq "$(printf 'demo@6.12/exits4.sh\ndemo@6.12/exits77.sh\ndemo@6.12/fails.sh\ndemo@6.12/ksft_bare.tap\ndemo@6.12/ksft_skip.tap\ndemo@6.12/notes.sh\ndemo@6.12/notes_early.sh\ndemo@6.12/passes.sh\ndemo@6.12/short.tap\ndemo@6.12/skips.sh\ndemo@6.12/sub.tap')" \
	"$("$SHIFTBIND_TESTS/lib/runner.sh" --kernel 6.12 --list "$suite")" "listed test files with the kernel"

# --release SUITE: a file whose head says "# not-on-release: SUITE..."
# for that release neither runs nor is listed there; it runs elsewhere,
# and without --release (the host's suites).
rel=$SCRATCH/rel
mkdir -p "$rel"
printf '#!/bin/sh\n# needs LXC\n# not-on-release: bookworm  buster (no LXC there)\nexit 0\n' >"$rel/lxc.sh"
printf '#!/bin/sh\n# not-on-release: trixie\nexit 0\n' >"$rel/old.sh"
printf '#!/bin/sh\necho "# not-on-release: bookworm" >/dev/null\nexit 0\n' >"$rel/code_not_header.sh"
printf '#!/bin/sh\nexit 0\n' >"$rel/every.sh"
chmod +x "$rel"/*.sh
assert_eq "$(printf 'rel@6.1/code_not_header.sh\nrel@6.1/every.sh\nrel@6.1/old.sh')" \
	"$("$SHIFTBIND_TESTS/lib/runner.sh" --kernel 6.1 --release bookworm --list "$rel")" "listed on bookworm"
assert_eq "$(printf 'rel@6.12/code_not_header.sh\nrel@6.12/every.sh\nrel@6.12/lxc.sh')" \
	"$("$SHIFTBIND_TESTS/lib/runner.sh" --kernel 6.12 --release trixie --list "$rel")" "listed on trixie"
assert_eq 4 "$("$SHIFTBIND_TESTS/lib/runner.sh" --list "$rel" | wc -l)" "listed without --release"
out=$("$SHIFTBIND_TESTS/lib/runner.sh" --kernel 6.1 --release bookworm --logs "$SCRATCH/logs" "$rel" 2>/dev/null)
assert_eq "$(printf 'ok - rel@6.1.code_not_header\nok - rel@6.1.every\nok - rel@6.1.old')" \
	"$(grep '^ok' <<<"$out")" "what ran on bookworm"
assert_eq "" "$(grep 'lxc' <<<"$out" || true)" "no result nor marker of a file not for bookworm"
