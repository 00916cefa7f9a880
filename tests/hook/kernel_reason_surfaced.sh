#!/bin/bash
# When the kernel refuses the shift, the hook's message names the
# container, the step and the kernel's own reason, read back from the
# configfd log.  Made to happen with an image in a store marked
# allow-shift for another user's namespaces only (refusing_store): the
# hook's own checks pass (mount root, marked, not shifted), and the
# kernel refuses because the mark does not delegate to real root's
# namespaces.  crun does not start the container.
. "$(dirname "$0")/../lib/testlib.sh"
. "$(dirname "$0")/hooklib.bash"
require_guest
scratch_dir

store=/srv/hook-refused-$$
refusing_store "$store"
assert_match '(^|,)allow-shift(=[0-9:-]+)?(,|$)' "$(awk -v s="$store" '$5 == s { print $6 }' /proc/self/mountinfo)" \
	"refusing store's mount options"

id=hook-kernel-$$
make_bundle "$SCRATCH/c" "$store/busybox" "0 100000 65536" "0 100000 65536" /bin/probe id
with_hook "$SCRATCH/c"
status=0
out=$(crun_run "$SCRATCH/c" "$id" 2>&1) || status=$?
[ "$status" -ne 0 ] || fail "container started although the kernel refuses its shift: $out"
[[ $out != *uid=* ]] || fail "the container's process ran: $out"
msg=$(tail -n 1 "$SCRATCH/c/hook.stderr")
assert_contains "shiftbind-hook: createRuntime: container $id: shifting $store/busybox: configfd bind CMD_RECONFIGURE on \`$store/busybox\`: Operation not permitted (kernel: " \
	"$msg" "hook's message"
assert_match "\\(kernel: (e bind: )?$KERNEL_REFUSAL\\)\$" "$msg" "kernel's reason in the hook's message"
