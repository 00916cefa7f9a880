#!/bin/bash
# A variant has one build directory, reconfigured and rebuilt in place when
# the config fragments or the series change; `kernel.sh image` must then
# refuse a bzImage built from something else rather than boot it.
. "$(dirname "$0")/../lib/testlib.sh"
scratch_dir

kernel=$SHIFTBIND_TESTS/../scripts/kernel.sh
export SHIFTBIND_CACHE=$SCRATCH/cache
build=$("$kernel" build-dir test)
assert_match "^$SCRATCH/cache/kernel/build-.*-test\$" "$build" "the test variant's build directory"
assert_eq "${build%-test}-debug" "$("$kernel" build-dir debug)" "the debug variant's build directory"

assert_status 1 "$kernel" image test
assert_contains "no kernel built at $build/arch/x86/boot/bzImage; run 'make kernel'" "$OUTPUT"

mkdir -p "$build/arch/x86/boot"
: >"$build/arch/x86/boot/bzImage"
echo "an older series config 0123456789abcdef" >"$build/.shiftbind-built"
assert_status 1 "$kernel" image test
assert_contains "the test kernel in $build was built from another series or configuration; run 'make kernel'" "$OUTPUT"

assert_status 1 "$kernel" build-dir production
assert_contains "unknown kernel variant 'production'" "$OUTPUT"
