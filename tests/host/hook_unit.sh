#!/bin/bash
# The hook's and the CLI's parsers and checks (hook/unit_test.c), built
# from the real sources with ASan+UBSan by oci-hook/Makefile's asan
# variant: state, config.json, mappings, annotations, mountinfo, status,
# allow.conf, prepare-image, patch-config.  Every bad input of the corpus
# must fail with its own message.
. "$(dirname "$0")/../lib/testlib.sh"
. "$(dirname "$0")/hook/lib.sh"
require_root
scratch_dir

# Only the unit test of the asan variant: the hook and CLI binaries are
# tested elsewhere.
build_oci_hook "$SCRATCH/build/asan/hook-unit-test"
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
parser_user_ns
TMPDIR=$SCRATCH assert_status 0 "${PARSER_NS[@]}" "$BUILD/asan/hook-unit-test"
printf '%s\n' "$OUTPUT"

# Every case of the corpus (its size is the program's own count of its
# table) was refused with its message.
corpus=$(sed -n 's/^# corpus: \([0-9]*\) bad inputs$/\1/p' <<<"$OUTPUT")
[ -n "$corpus" ] || fail "hook-unit-test did not say how many bad inputs its corpus holds"
bad=$(grep -c '^ok [0-9]* - bad input (corpus):' <<<"$OUTPUT" || true)
assert_eq "$corpus" "$bad" "bad inputs of the corpus refused with their messages"
echo "$bad bad inputs refused with their messages"
