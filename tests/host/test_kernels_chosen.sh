#!/bin/bash
# Which kernels `make test` covers (scripts/lib.sh, test_kernels and
# debug_kernel): KERNEL alone, else TEST_KERNELS (spaces or commas), else
# the default list; a base without a series, a repeated one, an empty
# list and KERNEL beside a different TEST_KERNELS are refused with what to
# do.  The debug-kernel suites run on one of the run's bases: DEBUG_KERNEL,
# which must be among them, else the default when it is, else the first.
# Uses stand-in bases in a scratch SHIFTBIND_ROOT: nothing is built.
. "$(dirname "$0")/../lib/testlib.sh"
scratch_dir

lib=$SHIFTBIND_TESTS/../scripts/lib.sh
mkdir -p "$SCRATCH/root/scripts"
cp "$lib" "$SCRATCH/root/scripts/lib.sh"
for base in 6.1 6.12 7.0; do
	mkdir -p "$SCRATCH/root/kernel-patches/$base"
	: >"$SCRATCH/root/kernel-patches/$base/series"
done

# as VAR=VALUE... -- FUNCTION [ARG...]: FUNCTION of the scratch copy of
# lib.sh, with the defaults 6.1 (test list and debug kernel), and of
# KERNEL, TEST_KERNELS and DEBUG_KERNEL only those given.
as() {
	local vars=()
	while [ "$1" != -- ]; do vars+=("$1") && shift; done
	shift
	# shellcheck disable=SC2016 # the inner bash expands them
	env -u KERNEL -u TEST_KERNELS -u DEBUG_KERNEL "${vars[@]}" bash -c \
		'. "$1"; DEFAULT_TEST_KERNELS=6.1; DEFAULT_DEBUG_KERNEL=6.1; shift; "$@"' \
		as "$SCRATCH/root/scripts/lib.sh" "$@"
}

assert_eq "$(printf '6.1\n6.12\n7.0')" "$(as -- supported_kernels)" "supported kernels, in version order"
assert_eq 6.1 "$(as -- test_kernels)" "the default list"
assert_eq "$(printf '6.12\n6.1')" "$(as TEST_KERNELS=6.12,6.1 -- test_kernels)" "TEST_KERNELS with a comma, in its order"
assert_eq "$(printf '6.1\n7.0')" "$(as 'TEST_KERNELS=6.1 7.0' -- test_kernels)" "TEST_KERNELS with a space"
assert_eq 6.12 "$(as KERNEL=6.12 -- test_kernels)" "KERNEL alone"
assert_eq 6.12 "$(as KERNEL=6.12 TEST_KERNELS=6.12 -- test_kernels)" "KERNEL and the same TEST_KERNELS"

assert_status 1 as KERNEL=6.12 'TEST_KERNELS=6.1 6.12' -- test_kernels
assert_contains "KERNEL=6.12 and TEST_KERNELS='6.1 6.12' are both set; set KERNEL to test one kernel, or TEST_KERNELS for several" "$OUTPUT"
assert_status 1 as TEST_KERNELS=6.1,5.10 -- test_kernels
assert_contains "no series for kernel '5.10' (kernel-patches/5.10/series); supported kernels: 6.1 6.12 7.0" "$OUTPUT"
assert_status 1 as 'TEST_KERNELS=6.1 6.1' -- test_kernels
assert_contains "names 6.1 twice" "$OUTPUT"
assert_status 1 as TEST_KERNELS=, -- test_kernels
assert_contains "TEST_KERNELS is set but empty" "$OUTPUT"

assert_eq 6.1 "$(as -- debug_kernel 6.12 6.1)" "the default debug kernel, when in the run"
assert_eq 6.12 "$(as -- debug_kernel 6.12 7.0)" "the first of the run, without the default"
assert_eq 7.0 "$(as DEBUG_KERNEL=7.0 -- debug_kernel 6.1 7.0)" "DEBUG_KERNEL"
assert_status 1 as DEBUG_KERNEL=7.0 -- debug_kernel 6.1 6.12
assert_contains "DEBUG_KERNEL=7.0 is not among the kernels of this run (6.1 6.12)" "$OUTPUT"

# A series with only comments and blank lines lists no patches.
printf '# soon\n\n' >"$SCRATCH/root/kernel-patches/7.0/series"
assert_status 1 as -- require_series 7.0
assert_contains "kernel-patches/7.0/series lists no patches" "$OUTPUT"
echo 0001-a.patch >>"$SCRATCH/root/kernel-patches/7.0/series"
assert_eq 0001-a.patch "$(as -- series_patches 7.0)" "the patches of a series"
assert_status 0 as -- require_series 7.0

# The project's own defaults: supported bases, the debug kernel among
# those tested (else it would silently fall back to the first).
# shellcheck disable=SC2016 # the inner bash expands them
defaults=$(env -u KERNEL -u TEST_KERNELS -u DEBUG_KERNEL bash -c \
	'. "$1"; list=$(test_kernels) || exit 1; require_kernel "$DEFAULT_KERNEL" || exit 1
	 echo "$DEFAULT_DEBUG_KERNEL $(debug_kernel $list)"' defaults "$lib") ||
	fail "scripts/lib.sh's defaults name a kernel without a series"
assert_eq "${defaults% *}" "${defaults#* }" "DEFAULT_DEBUG_KERNEL, one of DEFAULT_TEST_KERNELS"
