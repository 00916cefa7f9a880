#!/bin/bash
# The hook's seccomp filter as released (static-pie, hardening flags):
# hook/sandbox_test.c loads it in a child per case and makes one call.
#   - unlisted syscalls (mkdirat) and setns into anything but a mount
#     namespace, or with the flags' upper bits set: EPERM
#   - listed syscalls and setns(CLONE_NEWNS): reach the kernel
#   - configfd_open: EPERM unless the filter was built with configfd
#   - the i386 and x32 ABIs: the process is killed (SIGSYS)
. "$(dirname "$0")/../lib/testlib.sh"
. "$(dirname "$0")/hook/lib.sh"
require_root
scratch_dir

build_oci_hook "$SCRATCH/build/hook-sandbox-test"
assert_status 0 "$BUILD/hook-sandbox-test"
printf '%s\n' "$OUTPUT"
checks=$(grep -c '^ok ' <<<"$OUTPUT" || true)
[ "$checks" -ge 14 ] || fail "only $checks filter checks passed, expected at least 14"
