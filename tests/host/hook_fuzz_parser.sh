#!/bin/bash
# libFuzzer on the hook's input parsing (hook/fuzz_parser.c: state, a NUL,
# config.json) under ASan+UBSan, built with clang by oci-hook/Makefile's
# fuzz target and run for FUZZ_TIME seconds (default 20) from the seed
# corpus in hook/corpus/.  A crash, leak or timeout fails the test; the
# input is printed base64-encoded.  `FUZZ_TIME=600` for a longer run.
. "$(dirname "$0")/../lib/testlib.sh"
. "$(dirname "$0")/hook/lib.sh"
scratch_dir
need_clang

build_oci_hook fuzz
mkdir "$SCRATCH/corpus" "$SCRATCH/artifacts"
cp "$HOOK_TEST_DIR"/corpus/* "$SCRATCH/corpus/"
status=0
"$BUILD/fuzz/fuzz-parser" -max_total_time="${FUZZ_TIME:-20}" -max_len=65536 \
	-timeout=10 -rss_limit_mb=2048 -dict="$HOOK_TEST_DIR/fuzz_parser.dict" \
	-artifact_prefix="$SCRATCH/artifacts/" -print_final_stats=1 \
	"$SCRATCH/corpus" >"$SCRATCH/fuzz.log" 2>&1 || status=$?
tail -n 30 "$SCRATCH/fuzz.log"
for crash in "$SCRATCH"/artifacts/*; do
	[ -e "$crash" ] || continue
	echo "failing input $(basename "$crash"), base64:"
	base64 -w 0 "$crash"
	echo
done
[ "$status" -eq 0 ] || fail "fuzz-parser exited $status"
