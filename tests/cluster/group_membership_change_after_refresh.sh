#!/bin/bash
# allow.conf's group=hpc is resolved when the stores are marked: a user
# added to the group is delegated once they are marked again (what
# shiftbind-allow-refresh.path runs on a change of /etc/group; the rig's
# nodes have no systemd, so the test runs the same command), and removed,
# is refused again after the next marking.  On both nodes, through jobs.
. "$(dirname "$0")/../lib/testlib.sh"
. "$(dirname "$0")/clusterlib.bash"
require_cluster
cluster_ready

uid=$(id -u "$TEST_USER")
other=$(id -u "$CLUSTER_USER")
# refresh ACTION: gpasswd ACTION on every node, then the refresh unit's command.
refresh() {
	local node
	for node in "${CLUSTER_NODES[@]}"; do
		root_on "$node" "gpasswd $1 $CLUSTER_USER $CLUSTER_GROUP >/dev/null && shiftbind apply-config /etc/shiftbind/allow.conf" ||
			return 1
	done
}
trap 'refresh -d >/dev/null 2>&1 || true' EXIT

assert_status 0 refresh -a
for node in "${CLUSTER_NODES[@]}"; do
	# Consecutive uids are one owner: a range.
	assert_eq "$uid-$other" "$(mark_owners "$node" "$EROFS_STORE")" \
		"owners of $EROFS_STORE's mark on $node with $CLUSTER_USER in $CLUSTER_GROUP"
done
assert_status 0 user_job "$CLUSTER_USER" crun "$EROFS_STORE"
assert_real_owners_on_each_node "$OUTPUT" "$CLUSTER_USER's job once a member of $CLUSTER_GROUP"

assert_status 0 refresh -d
for node in "${CLUSTER_NODES[@]}"; do
	assert_eq "$uid" "$(mark_owners "$node" "$EROFS_STORE")" \
		"owners of $EROFS_STORE's mark on $node with $CLUSTER_USER out of $CLUSTER_GROUP again"
done
assert_job_failed user_job "$CLUSTER_USER" crun "$EROFS_STORE"
for node in "${CLUSTER_NODES[@]}"; do
	assert_contains "$KERNEL_REFUSAL" "$(node_lines "$node" "$OUTPUT")" \
		"the kernel's reason on $node once $CLUSTER_USER left $CLUSTER_GROUP"
done
