#!/bin/bash
# The image is replaced by a new version while a job holds the old one:
# the admin publishes a new erofs file beside the old in /srv/shared/images
# (never over it: an NFS client's open file whose inode went away reads
# ESTALE) and runs cluster-image-switch on each node (the node-local link
# names the new file, the old mount is detached lazily, the fstab line is
# mounted again and marked).  A job holding the old image keeps reading
# it (its version, its owners) while a new job on both nodes sees the new
# version; once the holder ends, each node's old loop device is gone.
. "$(dirname "$0")/../lib/testlib.sh"
. "$(dirname "$0")/clusterlib.bash"
require_cluster
cluster_ready
scratch_dir
chmod 0755 "$SCRATCH"

link=/etc/shiftbind/images/busybox.erofs
old=$(readlink "$link")
new=$SHARED_IMAGES/busybox-v2-$$.erofs
uid=$(id -u "$TEST_USER")
switch_all() {
	local node
	for node in "${CLUSTER_NODES[@]}"; do
		root_on "$node" "cluster-image-switch erofs $1" || return 1
	done
}
restore() {
	[ -z "${job_pid:-}" ] || kill "$job_pid" 2>/dev/null || true
	scancel -u "$TEST_USER" 2>/dev/null || true
	switch_all "$old" >/dev/null 2>&1 || true
	rm -rf "$SCRATCH"
}
trap restore EXIT

# Version 2, packed on node1 as the admin does.
install -d -m 0711 "$SCRATCH/src"
cp -a "$SHARED_IMAGE" "$SCRATCH/src/busybox"
echo v2 >"$SCRATCH/src/busybox/etc/image-version"
mkfs.erofs "$new" "$SCRATCH/src" >"$SCRATCH/mkfs.log" 2>&1 || fail "mkfs.erofs of $new failed: $(cat "$SCRATCH/mkfs.log")"
chmod 0644 "$new"

out=$SCRATCH/hold.out
user_job "$TEST_USER" hold "$EROFS_STORE" >"$out" 2>&1 &
job_pid=$!
wait_for_lines "$job_pid" "$out" '^node[12]: version v1$' 2 300 "the holding job's containers on version 1"
job=$(job_id_of "$TEST_USER")

assert_status 0 switch_all "$new"
for node in "${CLUSTER_NODES[@]}"; do
	assert_eq "$new" "$(backing_file "$node" "$EROFS_STORE")" "the image mounted on $EROFS_STORE on $node after the switch"
	assert_eq "$uid" "$(mark_owners "$node" "$EROFS_STORE")" "owners of the new mount's mark on $node"
	assert_contains "$old" "$(root_on "$node" "losetup -j $old")" "the old image's loop device on $node while the job holds it"
done
assert_status 0 user_job "$TEST_USER" version "$EROFS_STORE"
for node in "${CLUSTER_NODES[@]}"; do
	assert_eq "version v2" "$(node_lines "$node" "$OUTPUT" | grep '^version')" "a new job's image on $node"
done
assert_real_owners_on_each_node "$OUTPUT" "a new job on the new image"

kill -0 "$job_pid" 2>/dev/null || fail "the holding job ended before it was released: $(cat "$out")"
touch_in_job_scratch "$job" release
status=0
wait "$job_pid" || status=$?
job_pid=
OUTPUT=$(cat "$out")
[ "$status" -eq 0 ] || fail "the job holding the old image failed (exit $status): $OUTPUT"
for node in "${CLUSTER_NODES[@]}"; do
	assert_eq "after-release version v1" "$(node_lines "$node" "$OUTPUT" | grep '^after-release')" \
		"the holding job's image on $node after the switch"
done
assert_real_owners_on_each_node "$OUTPUT" "the holding job, after the switch"

for node in "${CLUSTER_NODES[@]}"; do
	start=$SECONDS
	while [ -n "$(root_on "$node" "losetup -j $old")" ]; do
		[ $((SECONDS - start)) -lt 60 ] ||
			fail "the old image's loop device on $node outlived the last job holding it by 60 s: $(root_on "$node" "losetup -j $old; grep erofs /proc/self/mountinfo")"
		sleep 2
	done
done
note "replaced by $new on both nodes while a job held $old"
