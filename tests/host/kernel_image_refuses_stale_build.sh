#!/bin/bash
# A variant has one build directory per kernel base, reconfigured and
# rebuilt in place when the config fragments or the series change;
# `kernel.sh image` must then refuse a bzImage built from something else
# rather than boot it.  Checked for each kernel under test
# (kernels_under_test; a missing or empty series fails, series_of), whose
# build directory is keyed by its own linux-source version; a base without
# a series is refused by name.
. "$(dirname "$0")/../lib/testlib.sh"
scratch_dir

kernel=$SHIFTBIND_TESTS/../scripts/kernel.sh
export SHIFTBIND_CACHE=$SCRATCH/cache

# refuses_stale BASE: BASE's build directories, and its image refused
# while absent or built from another series or configuration.
refuses_stale() {
	local base=$1 srcver build
	series_of "$base" >/dev/null
	srcver=$(dpkg-query -W -f='${Version}' "linux-source-$base")
	build=$(KERNEL=$base "$kernel" build-dir test)
	assert_eq "$SCRATCH/cache/kernel/build-$srcver-test" "$build" "the $base test variant's build directory"
	assert_eq "${build%-test}-debug" "$(KERNEL=$base "$kernel" build-dir debug)" \
		"the $base debug variant's build directory"

	KERNEL=$base assert_status 1 "$kernel" image test
	assert_contains "no kernel built at $build/arch/x86/boot/bzImage; run 'KERNEL=$base make kernel'" "$OUTPUT"

	mkdir -p "$build/arch/x86/boot"
	: >"$build/arch/x86/boot/bzImage"
	echo "an older series config 0123456789abcdef" >"$build/.shiftbind-built"
	KERNEL=$base assert_status 1 "$kernel" image test
	assert_contains "the test kernel in $build was built from another series or configuration; run 'KERNEL=$base make kernel'" "$OUTPUT"

	KERNEL=$base assert_status 1 "$kernel" build-dir production
	assert_contains "unknown kernel variant 'production'" "$OUTPUT"
	# make kernel-bisect's configuration only compiles: no kernel to boot.
	KERNEL=$base assert_status 1 "$kernel" build bisect
	assert_contains "unknown kernel variant 'bisect'; use 'test' or 'debug'" "$OUTPUT"
	[ ! -e "$SCRATCH/cache/kernel/build-$srcver-bisect" ] || fail "kernel.sh build bisect made a build directory"
}

kernels=$(kernels_under_test)
for base in $kernels; do
	refuses_stale "$base"
done

KERNEL=0.0 assert_status 1 "$kernel" build-dir test
assert_contains "no series for kernel '0.0' (kernel-patches/0.0/series); supported kernels: " "$OUTPUT"
assert_contains "$(head -n 1 <<<"$kernels")" "${OUTPUT##*supported kernels: }" "supported kernels named"
