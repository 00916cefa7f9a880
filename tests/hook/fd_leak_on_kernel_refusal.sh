#!/bin/bash
# As fd_leak_on_success, on the longest failure path: everything opened
# (state, config.json, /proc, the mount namespace, the rootfs, a
# configfd whose log is read back), then the kernel refuses the shift (a
# refusing_store, see kernel_reason_surfaced).  The hook, held at exit_group,
# has exactly the fds /bin/true has when started the same way.
. "$(dirname "$0")/../lib/testlib.sh"
. "$(dirname "$0")/hooklib.bash"
require_guest
scratch_dir

store=/srv/hook-fds-$$
refusing_store "$store"

id=hook-fds-fail-$$
mkdir "$SCRATCH/fds"
make_bundle "$SCRATCH/c" "$store/busybox" "0 100000 65536" "0 100000 65536" /bin/probe id
with_wrapper_hook "$SCRATCH/c" hook-fds.bash "$SCRATCH/fds"
status=0
out=$(crun_run "$SCRATCH/c" "$id" 2>&1) || status=$?
[ "$status" -ne 0 ] || fail "container started although the kernel refuses its shift: $out"
assert_contains "$KERNEL_REFUSAL" "$(cat "$SCRATCH/fds/stderr")" "hook's stderr"
assert_match '^0 ' "$(cat "$SCRATCH/fds/baseline.fds")" "baseline fds"
assert_eq "$(cat "$SCRATCH/fds/baseline.fds")" "$(cat "$SCRATCH/fds/hook.fds")" \
	"fds open when the hook exits after the kernel's refusal (expected those of /bin/true)"
