#!/bin/bash
# A failed step of `make test` (kernel, selftests, image, boot) is never
# silent: it becomes the result "not ok - step.NAME" carrying the step's
# own error line (or the end of its output), its output is shown and kept
# in out/step-NAME.log, and the caller learns the failure.  A step that
# works passes its stdout on (the image path) and records nothing.  The
# run's steps are named after their kernel base (step.kernel@6.1), and a
# base without patches fails its kernel step instead of being built.
. "$(dirname "$0")/../lib/testlib.sh"
scratch_dir
export SHIFTBIND_OUT=$SCRATCH/out
mkdir -p "$SHIFTBIND_OUT"
: >"$SHIFTBIND_OUT/harness.results"
# shellcheck source=../../scripts/test.sh
. "$SHIFTBIND_TESTS/../scripts/test.sh"
set +e

failing_image_step() {
	echo "build-image.sh: building guest image /cache/rootfs-1.img" >&2
	echo "build-image.sh: error: only 12 MiB free in /cache/guest, need 4000 MiB; free space" >&2
	return 1
}
out=$(step image failing_image_step 2>"$SCRATCH/stderr")
status=$?
[ "$status" -ne 0 ] || fail "a failed step returned 0"
assert_eq "" "$out" "stdout of the failed step"
results=$(cat "$SHIFTBIND_OUT/harness.results")
assert_contains "not ok - step.image" "$results" "harness results"
assert_contains "#   build-image.sh: error: only 12 MiB free in /cache/guest" "$results" "reason"
assert_contains "step 'image' failed (exit 1)" "$(cat "$SCRATCH/stderr")" "what the run prints"
assert_contains "building guest image" "$(cat "$SHIFTBIND_OUT/step-image.log")" "the step's log"

# Without an "error:" line the end of the output is the reason.
: >"$SHIFTBIND_OUT/harness.results"
step boot sh -c 'echo "qemu: could not open /dev/kvm" >&2; exit 3' 2>/dev/null
assert_eq 3 "$?" "status of a failed step"
assert_eq "$(printf 'not ok - step.boot\n#   qemu: could not open /dev/kvm')" \
	"$(cat "$SHIFTBIND_OUT/harness.results")" "reason without an error: line"

: >"$SHIFTBIND_OUT/harness.results"
out=$(step image sh -c 'echo progress >&2; echo /cache/rootfs-2.img' 2>/dev/null)
assert_eq 0 "$?" "status of a step that works"
assert_eq "/cache/rootfs-2.img" "$out" "stdout passed on"
assert_eq "" "$(cat "$SHIFTBIND_OUT/harness.results")" "results of a step that works"

# Steps and output files are named after the kernel base they are for.
assert_eq "$SHIFTBIND_OUT/console-debug@6.12.log" "$(out_file console-debug.log 6.12)" "a boot's console log"
# A base whose series lists no patches is never built (it would be
# Debian's kernel under the shiftbind name): its kernel step fails, named
# after it, and kernel.sh is not run (this SHIFTBIND_ROOT has none).
: >"$SHIFTBIND_OUT/harness.results"
SHIFTBIND_ROOT=$SCRATCH/root
mkdir -p "$SHIFTBIND_ROOT/kernel-patches/9.9"
printf '# the port to 9.9 has not started\n' >"$SHIFTBIND_ROOT/kernel-patches/9.9/series"
prepare_kernel 9.9 test >/dev/null 2>&1
assert_eq 1 "$?" "status of the kernel step of a base without patches"
results=$(cat "$SHIFTBIND_OUT/harness.results")
assert_contains "not ok - step.kernel@9.9" "$results" "harness results"
assert_contains "error: kernel-patches/9.9/series lists no patches" "$results" "reason"
