#!/bin/bash
# The fuzzer leaves nothing behind: after a run its process has exactly
# the fds it started with, and its mount namespace exactly its mounts
# (it compares /proc/self/fd and /proc/self/mountinfo itself, once its
# pool is closed and what it attached is unmounted); the initial mount
# namespace (/proc/1/mountinfo) never changes.  First, the check must see
# a leak: a run told to leak one fd (--leak-fd) has to fail naming it.
. "$(dirname "$0")/../lib/testlib.sh"
. "$(dirname "$0")/fuzzlib.bash"

readonly CALLS=${FUZZ_BALANCE_CALLS:-4000}

fuzz_begin fd_balance
init_mounts=$(mount_table_of 1)

# The instrument sees a leak.
status=0
out=$("$FUZZER" --seed "$FUZZ_SEED" --calls 500 --leak-fd 2>&1) || status=$?
if [ "$status" -ne 1 ] || [[ $out != *"after the run: fd "*" was left open"* ]]; then
	fail "a run leaking an fd on purpose was not caught (exit $status): $(tail -n 3 <<<"$out")"
fi
fuzz_check_kernel_log "the leak self-test" "$FUZZER --seed $FUZZ_SEED --calls 500 --leak-fd"

for args in "--threads 2" "--threads 2 --userns" "--threads 1 --no-mark"; do
	# shellcheck disable=SC2086 # the words are options
	run_fuzzer "fd and mount balance, $args" --seed "$FUZZ_SEED" --calls "$CALLS" $args
	assert_contains "after the run: fd balance ok" "$FUZZ_OUT" "fuzzer output ($FUZZ_REPLAY)"
	assert_contains "after the run: mount balance ok" "$FUZZ_OUT" "fuzzer output ($FUZZ_REPLAY)"
	assert_same_mounts "$init_mounts" 1 "the initial mount namespace after '$FUZZ_REPLAY'"
done
