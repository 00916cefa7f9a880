#!/bin/bash
# When the kernel refuses the shift, the hook's message names the
# container, the step and the kernel's own reason, read back from the
# configfd log.  Made to happen with an image on a tmpfs store marked
# allow-shift: the hook's own checks pass (mount root, marked, not
# shifted), and the kernel refuses because tmpfs does not support
# idmapped mounts.  crun does not start the container.
. "$(dirname "$0")/../lib/testlib.sh"
. "$(dirname "$0")/hooklib.bash"
require_guest
scratch_dir

store=/srv/hook-tmpfs-$$
tmpfs_store "$store"
assert_match '(^|,)allow-shift(=[0-9:-]+)?(,|$)' "$(awk -v s="$store" '$5 == s { print $6 }' /proc/self/mountinfo)" \
	"tmpfs store's mount options"

id=hook-kernel-$$
make_bundle "$SCRATCH/c" "$store/busybox" "0 100000 65536" "0 100000 65536" /bin/probe id
with_hook "$SCRATCH/c"
status=0
out=$(crun_run "$SCRATCH/c" "$id" 2>&1) || status=$?
[ "$status" -ne 0 ] || fail "container started although the kernel cannot shift tmpfs: $out"
[[ $out != *uid=* ]] || fail "the container's process ran: $out"
msg=$(tail -n 1 "$SCRATCH/c/hook.stderr")
assert_contains "shiftbind-hook: prestart: container $id: shifting $store/busybox: configfd bind CMD_RECONFIGURE on \`$store/busybox\`: Invalid argument (kernel: " \
	"$msg" "hook's message"
assert_match '\(kernel: (e bind: )?tmpfs does not support idmapped mounts\)$' "$msg" "kernel's reason in the hook's message"
