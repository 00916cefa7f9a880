#!/bin/bash
# A node reboots and marks its stores again at boot: the admin's
# `scontrol reboot` of node2 (slurm.conf's RebootProgram, when the node is
# idle) reboots it; it comes back (ReturnToService, nextstate=RESUME) with
# a new boot time, its image mounts from /etc/fstab and their marks for
# group hpc set by shiftbind-allow.service before slurmd took jobs again,
# and the test user's `srun -N2` job sees the real owners on both nodes.
. "$(dirname "$0")/../lib/testlib.sh"
. "$(dirname "$0")/clusterlib.bash"
require_cluster
cluster_ready

uid=$(id -u "$TEST_USER")
boot_time() { scontrol show node node2 | grep -o 'BootTime=[^ ]*'; }
before=$(boot_time)
up_before=$(root_on node2 "cut -d' ' -f1 /proc/uptime")
assert_status 0 scontrol reboot ASAP nextstate=RESUME reason=cluster.node_reboot_marks_again node2
start=$SECONDS
# Down, then back with a new boot time.
while [ "$(boot_time)" = "$before" ] || ! grep -Eq '^node2 idle$' <<<"$(node_states)"; do
	[ $((SECONDS - start)) -lt 400 ] ||
		fail "node2 did not come back from its reboot within 400 s: $(scontrol show node node2 | grep -E 'State|Reason|BootTime')"
	sleep 3
done
up_after=$(root_on node2 "cut -d' ' -f1 /proc/uptime")
took=$((SECONDS - start))
# Up for no longer than since the reboot was asked for: it booted again.
[ "${up_after%.*}" -le "$took" ] ||
	fail "node2's uptime is ${up_after}s ($up_before before), ${took}s after its reboot was asked for: it did not reboot"

for store in "$EROFS_STORE" "$SQUASHFS_STORE"; do
	assert_match "^${store##*/} ro,nosuid,nodev(,|$)" \
		"$(root_on node2 "findmnt -n -o FSTYPE,OPTIONS $store")" "$store on node2 after its reboot"
	assert_eq "$uid" "$(mark_owners node2 "$store")" "owners of $store's mark on node2 after its reboot"
done
assert_status 0 user_job "$TEST_USER" crun "$EROFS_STORE"
assert_real_owners_on_each_node "$OUTPUT" "the test user's job after node2's reboot"
note "node2 rebooted and took jobs again in ${took}s"
