#!/bin/bash
# While a guest boots, `make test` does the work that needs no guest in
# the background (scripts/test.sh, before_boot): before each boot it
# starts the build of the next kernel of the run's plan (the other
# base's test kernel, then the debug kernel), one at a time, and starts
# the host suites, once, as soon as every test kernel they check is
# built.  A background build is waited for before the step that needs
# it, and one that failed is built again there, in the foreground, where
# its failure becomes the step's result.
. "$(dirname "$0")/../lib/testlib.sh"
scratch_dir
export SHIFTBIND_OUT=$SCRATCH/out
mkdir -p "$SHIFTBIND_OUT"
# shellcheck source=../../scripts/test.sh
. "$SHIFTBIND_TESTS/../scripts/test.sh"
set +e

# Stand-ins that record what before_boot starts.
started=()
background_build() {
	started+=("build $1 $2")
	background_build_pid["$1 $2"]=fake
}
start_host_suites() {
	started+=("host suites")
	host_suites_pid=fake
}

kernels=(6.1 6.12)
host_dirs=("$SCRATCH/host")
kernel_plan=("6.1 test" "6.12 test" "6.12 debug")

# The first boot: 6.1's kernel was built in the foreground.
kernel_built[6.1]=ok
background_build_started["6.1 test"]=1
before_boot
assert_eq "build 6.12 test" "${started[*]}" "what starts beside 6.1's boot"

# 6.12's boot: its kernel is built, so the host suites can run too.
started=()
kernel_built[6.12]=ok
before_boot
assert_eq "build 6.12 debug|host suites" "$(IFS='|'; echo "${started[*]}")" \
	"what starts beside 6.12's boot"

# The debug kernel's boot: nothing is left.
started=()
before_boot
assert_eq "" "${started[*]}" "what starts beside the last boot"

# A run of one base without debug suites: the host suites go beside its
# only boot.
started=()
kernels=(6.1)
kernel_plan=("6.1 test")
host_suites_pid=
background_build_started=(["6.1 test"]=1)
before_boot
assert_eq "host suites" "${started[*]}" "what starts beside the only boot"

# The foreground waits for a background build (its own child: not in a
# subshell); one that failed is reported and left to the foreground.
sh -c 'sleep 1; exit 7' &
background_build_pid["6.12 debug"]=$!
await_background_build 6.12 debug 2>"$SCRATCH/await"
assert_eq 0 "$?" "waiting for a failed background build"
assert_eq "" "$(jobs -p)" "background jobs left after waiting"
assert_contains "the background build of the 6.12 debug kernel failed (log: $SHIFTBIND_OUT/background-debug@6.12.log); building it in the foreground" \
	"$(cat "$SCRATCH/await")" "what the run says"
sh -c 'exit 0' &
background_build_pid["6.12 test"]=$!
await_background_build 6.12 test 2>"$SCRATCH/await"
assert_eq "${0##*/}: waiting for the background build of the 6.12 test kernel" "$(cat "$SCRATCH/await")" \
	"what the run says of a build that worked"
await_background_build 6.1 test 2>"$SCRATCH/await"
assert_eq "" "$(cat "$SCRATCH/await")" "waiting for a kernel no background job builds"
