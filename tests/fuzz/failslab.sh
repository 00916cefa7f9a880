#!/bin/bash
# Allocation failures in every configfd call: the fuzzer's failslab mode
# walks /proc/thread-self/fail-nth = 1, 2, 3... over each call of a fixed
# valid sequence (bind: create, fetch, attach, reconfigure, shift; tmpfs:
# create, "mount": reconfigure; configfd-test: every parameter kind)
# until the call completes without an injected failure.  Each call must
# succeed or fail with ENOMEM, a retry must behave as documented (work,
# or EBUSY for a spent filesystem context), no fd or mount may be left
# behind, and the kernel must log no report.  As real root and as root
# of a user namespace.
. "$(dirname "$0")/../lib/testlib.sh"
. "$(dirname "$0")/fuzzlib.bash"

fuzz_begin failslab
init_mounts=$(mount_table_of 1)

for args in "" "--userns"; do
	# shellcheck disable=SC2086 # the words are options
	run_fuzzer "failslab walk${args:+ $args}" --mode failslab --seed "$FUZZ_SEED" $args
	failed=0
	[[ $FUZZ_OUT =~ failslab:\ [^$'\n']*\ ([0-9]+)\ allocations\ failed ]] &&
		failed=${BASH_REMATCH[1]}
	[ "$failed" -gt 50 ] ||
		fail "failslab walk${args:+ $args}: only $failed allocations were failed: fault injection did not reach the calls; reproduce: $FUZZ_REPLAY"
	assert_same_mounts "$init_mounts" 1 "the initial mount namespace after '$FUZZ_REPLAY'"
done
