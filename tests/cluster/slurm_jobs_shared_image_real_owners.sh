#!/bin/bash
# The site's setup and a user's jobs on it.  Setup: node2's /srv/shared is
# node1's export over NFSv4; on each node the images are loop devices of
# the files there, mounted read-only, nosuid, nodev, and marked for the
# members of group hpc (allow.conf group=hpc: the test user's uid).
# Jobs: the test user's `srun -N2` runs a rootless container from the
# image on both nodes, crun with shiftbind-hook on the erofs image and
# rootless podman's own --rootfs PATH:idmap on the squashfs one: the
# image's real owners inside on each node, a file written to the job's
# scratch directory lands as the user's uid and gid, and the user's own
# podman storage grows by less than half the image (nothing copied).
. "$(dirname "$0")/../lib/testlib.sh"
. "$(dirname "$0")/clusterlib.bash"
require_cluster
cluster_ready

uid=$(id -u "$TEST_USER")
gid=$(id -g "$TEST_USER")
for node in "${CLUSTER_NODES[@]}"; do
	for store in "$EROFS_STORE" "$SQUASHFS_STORE"; do
		fstype=${store##*/}
		assert_match "^$fstype ro,nosuid,nodev(,|$)" \
			"$(root_on "$node" "findmnt -n -o FSTYPE,OPTIONS $store")" "the image mount $store on $node"
		assert_match "^$SHARED_IMAGES/busybox-v[0-9]+[-0-9]*\\.$fstype\$" "$(backing_file "$node" "$store")" \
			"the file behind $store's loop device on $node"
		assert_eq "$uid" "$(mark_owners "$node" "$store")" \
			"owners of $store's mark on $node (group $CLUSTER_GROUP: $TEST_USER)"
	done
done

assert_status 0 user_job "$TEST_USER" crun "$EROFS_STORE"
assert_real_owners_on_each_node "$OUTPUT" "$TEST_USER's crun containers (hook) on the erofs image"
for node in "${CLUSTER_NODES[@]}"; do
	assert_eq "scratch crun $uid:$gid" "$(node_lines "$node" "$OUTPUT" | grep '^scratch crun')" \
		"owner on $node's disk of the file the container's root wrote to the job's scratch"
done

image_kib=$(du -sk "$SQUASHFS_STORE/busybox" | cut -f1)
assert_status 0 user_job "$TEST_USER" podman "$SQUASHFS_STORE"
assert_real_owners_on_each_node "$OUTPUT" "$TEST_USER's podman --rootfs :idmap containers on the squashfs image"
for node in "${CLUSTER_NODES[@]}"; do
	assert_eq "scratch podman $uid:$gid" "$(node_lines "$node" "$OUTPUT" | grep '^scratch podman')" \
		"owner on $node's disk of the file the podman container (--userns=keep-id) wrote"
	grew=$(node_lines "$node" "$OUTPUT" | sed -n 's/^storage-growth-kib //p')
	[ -n "$grew" ] && [ "$grew" -lt $((image_kib / 2)) ] ||
		fail "$TEST_USER's podman storage on $node grew by '${grew}' KiB for a $image_kib KiB image: a copy?"
done
# Last, so that a node without NFS still shows the rest: the image
# files node2 mounts are node1's, over NFS.
assert_eq "nfs4" "$(root_on node2 "findmnt -n -o FSTYPE /srv/shared")" \
	"node2's /srv/shared (node1's export)"
note "2 nodes, crun+hook on erofs and podman --rootfs :idmap on squashfs; image $image_kib KiB"
