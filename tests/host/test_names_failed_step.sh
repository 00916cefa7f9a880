#!/bin/bash
# A failed step of `make test` (kernel, selftests, image, boot) is never
# silent: it becomes the result "not ok - step.NAME" carrying the step's
# own error line (or the end of its output), its output is shown and kept
# in out/step-NAME.log, and the caller learns the failure.  A step that
# works passes its stdout on (the image path) and records nothing.
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
