#!/bin/bash
# A user outside group hpc (allow.conf's group=hpc leaves them out)
# submits the same `srun -N2` jobs: on each node the container is refused
# and the job's output carries the kernel's reason through the hook
# (crun), and the kernel's EPERM through podman's own idmapped mount;
# nothing of the image shows.
. "$(dirname "$0")/../lib/testlib.sh"
. "$(dirname "$0")/clusterlib.bash"
require_cluster
cluster_ready

groups=$(id -nG "$CLUSTER_USER")
[[ " $groups " != *" $CLUSTER_GROUP "* ]] ||
	fail "$CLUSTER_USER is in group $CLUSTER_GROUP ($groups); the test needs a user outside it"
for node in "${CLUSTER_NODES[@]}"; do
	owners=$(mark_owners "$node" "$EROFS_STORE")
	[[ ,$owners, != *",$(id -u "$CLUSTER_USER"),"* ]] ||
		fail "the mark of $EROFS_STORE on $node delegates to $CLUSTER_USER: $owners"
done

assert_job_failed user_job "$CLUSTER_USER" crun "$EROFS_STORE"
for node in "${CLUSTER_NODES[@]}"; do
	lines=$(node_lines "$node" "$OUTPUT")
	assert_contains "$KERNEL_REFUSAL" "$lines" "the kernel's reason in $CLUSTER_USER's job output on $node"
	assert_contains "crun failed" "$lines" "$CLUSTER_USER's container on $node"
	! grep -q '^0:42 0640 /etc/shadow' <<<"$lines" ||
		fail "$CLUSTER_USER's refused container on $node showed the image: $lines"
done

assert_job_failed user_job "$CLUSTER_USER" podman "$SQUASHFS_STORE"
for node in "${CLUSTER_NODES[@]}"; do
	assert_contains "mount_setattr $SQUASHFS_STORE/busybox: operation not permitted" \
		"$(node_lines "$node" "$OUTPUT")" "podman's error for $CLUSTER_USER on $node"
done
