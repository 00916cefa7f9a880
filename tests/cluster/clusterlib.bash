# shellcheck shell=bash
# Helpers of the cluster suite (sourced after testlib.sh).  The tests run
# as root on node1 of the two cluster guests (scripts/cluster.sh): node1
# runs slurmctld, slurmd and the NFS server exporting /srv/shared; node2
# runs slurmd and mounts node1:/srv/shared; each node loop-mounts the
# image files of /srv/shared/images on /srv/cluster/erofs and
# /srv/cluster/squashfs and marks them for group hpc (configs/cluster/,
# docs/cluster.md).  Users' work goes through Slurm, as on a site: the
# test user (tester, in hpc) and outsider (not in hpc) submit `srun -N2`
# jobs; root reaches node2 through Slurm too (root_on).

readonly CLUSTER_NODES=(node1 node2)
readonly CLUSTER_JOB=$SHIFTBIND_GUEST_LIB/tests/cluster/job.bash
readonly CLUSTER_USER=outsider
readonly CLUSTER_GROUP=hpc
readonly EROFS_STORE=/srv/cluster/erofs SQUASHFS_STORE=/srv/cluster/squashfs
readonly SHARED_IMAGES=/srv/shared/images
# What the kernel says to a user the mark does not delegate to, through
# the hook (e2e.rootless_delegated_user_runs).
readonly KERNEL_REFUSAL="allow-shift does not delegate to the owner of the caller's user namespace"

# require_cluster: this is node1 of the cluster guests.
require_cluster() {
	require_guest
	[ "$(cat /run/shiftbind-cluster-node 2>/dev/null)" = node1 ] ||
		skip "runs only on node1 of the cluster guests (scripts/cluster.sh boots them for make test)"
}

# node_states: "NAME STATE" of every node, as slurmctld sees them.
node_states() { sinfo -h -N -o '%N %T' 2>&1; }

# slurmd_registered NODE: NODE's slurmd has registered with slurmctld
# (a node slurmctld has not heard from yet shows as idle, its
# SlurmdStartTime None).
slurmd_registered() {
	! scontrol show node "$1" 2>/dev/null | grep -q 'SlurmdStartTime=None' &&
		scontrol show node "$1" 2>/dev/null | grep -q 'SlurmdStartTime='
}

# cancel_users_jobs: no job of the test's users is left (a test that
# failed while a job held a node leaves it to the next one otherwise).
cancel_users_jobs() {
	local start=$SECONDS
	scancel -u "$TEST_USER" 2>/dev/null || true
	scancel -u "$CLUSTER_USER" 2>/dev/null || true
	while [ -n "$(squeue -h -u "$TEST_USER,$CLUSTER_USER" -o %i 2>/dev/null)" ]; do
		[ $((SECONDS - start)) -lt 120 ] ||
			fail "jobs of $TEST_USER and $CLUSTER_USER outlived scancel by 120 s: $(squeue -u "$TEST_USER,$CLUSTER_USER" 2>&1)"
		sleep 2
	done
}

# cluster_ready [SECONDS]: wait until slurmctld sees both nodes up and
# responding (registered; idle, mixed or allocated, no "*" of a node not
# responding), at most SECONDS (default 300: a node boots in about a
# minute under TCG); then no job of the test users is left.
cluster_ready() {
	local limit=${1:-300} start=$SECONDS states node ready
	while :; do
		states=$(node_states)
		ready=0
		for node in "${CLUSTER_NODES[@]}"; do
			grep -Eq "^$node (idle|mixed|allocated)$" <<<"$states" &&
				slurmd_registered "$node" && ready=$((ready + 1))
		done
		if [ "$ready" -eq "${#CLUSTER_NODES[@]}" ]; then
			cancel_users_jobs
			return 0
		fi
		[ $((SECONDS - start)) -lt "$limit" ] || break
		sleep 2
	done
	fail "the cluster's nodes are not all up after ${limit}s: sinfo says: $states; scontrol: $(scontrol show node 2>&1 | grep -E 'NodeName|State|Reason|SlurmdStartTime'); node1's slurmctld log ends: $(tail -n 5 /var/log/slurm/slurmctld.log 2>&1)"
}

# root_on NODE CMD: the sh command CMD as root on NODE: here on node1,
# else as a one-task Slurm job of root's on that node (the admin's own
# way to reach a node: no ssh on the nodes).  Its output and status.
root_on() {
	local node=$1
	shift
	if [ "$node" = node1 ]; then
		sh -c "$*"
	else
		srun --quiet -w "$node" -N1 -n1 --time=10 sh -c "$*"
	fi
}

# user_srun USER SRUN_ARG...: srun run by USER from a login shell of
# theirs on node1, as a user submits a job.
user_srun() {
	local user=$1
	shift
	runuser -l "$user" -c "cd /tmp && srun $(printf '%q ' "$@")"
}

# user_job USER MODE STORE [ARG]: job.bash MODE STORE on both nodes, one
# task each, submitted by USER.
user_job() {
	local user=$1
	shift
	user_srun "$user" -N2 --ntasks-per-node=1 --time=20 bash "$CLUSTER_JOB" "$@"
}

# node_lines NODE TEXT: the lines of TEXT (srun's merged output) of NODE,
# without the "NODE: " prefix.
node_lines() {
	sed -n "s/^$1: //p" <<<"$2"
}

# assert_real_owners_on_each_node TEXT WHAT: each node's lines of TEXT
# start with the shared image's real owners (probe stat of OWNER_PATHS).
assert_real_owners_on_each_node() {
	local node
	for node in "${CLUSTER_NODES[@]}"; do
		assert_eq "$REAL_OWNERS" "$(node_lines "$node" "$1" | grep -E '^[0-9]+:[0-9]+ [0-7]+ /' | head -n 4)" \
			"owners in $2 on $node"
	done
}

# job_id_of USER: the id of USER's one running job.
job_id_of() {
	local ids
	ids=$(squeue -h -u "$1" -t R -o %i)
	[ "$(wc -w <<<"$ids")" -eq 1 ] || fail "expected one running job of $1, squeue shows: '$ids'"
	echo "$ids"
}

# wait_for_lines PID FILE PATTERN COUNT SECONDS WHAT: until FILE, the
# output of the job PID (user_job in the background), has COUNT lines
# matching the extended regex PATTERN; fails when the job ends first.
wait_for_lines() {
	local pid=$1 file=$2 pattern=$3 count=$4 limit=$5 start=$SECONDS
	while [ "$(grep -cE "$pattern" "$file" 2>/dev/null)" -lt "$count" ]; do
		kill -0 "$pid" 2>/dev/null ||
			fail "$6: the job ended before printing $count lines /$pattern/; it printed: $(cat "$file")"
		[ $((SECONDS - start)) -lt "$limit" ] ||
			fail "$6: not $count lines /$pattern/ after ${limit}s; the job printed: $(cat "$file")"
		sleep 1
	done
}

# mark_owners NODE STORE: the owners of the mark on STORE on NODE, as
# shiftbind status --json lists them, or "unmarked".
mark_owners() {
	root_on "$1" "shiftbind status --json" | jq -r --arg m "$2" '
		[.mounts[] | select(.mountpoint == $m and .allow_shift)] | last
		| if . == null then "unmarked" else (.owners // [] | join(",")) end'
}

# backing_file NODE STORE: the file of the loop device mounted on STORE on NODE.
backing_file() {
	root_on "$1" "losetup -n -O BACK-FILE \$(findmnt -n -o SOURCE $2)" | tail -n 1
}

# assert_job_failed CMD...: CMD (a user's job) exits non-zero; its output
# is kept in $OUTPUT.
assert_job_failed() {
	local status=0
	OUTPUT=$("$@" 2>&1) || status=$?
	[ "$status" -ne 0 ] || fail "'$*' succeeded, expected it to fail; output: $OUTPUT"
}

# touch_in_job_scratch JOB NAME: create /scratch/job-JOB/NAME on both
# nodes, as root (what a job's container waits for: job.bash).
touch_in_job_scratch() {
	local node
	for node in "${CLUSTER_NODES[@]}"; do
		root_on "$node" "touch /scratch/job-$1/$2" ||
			fail "could not create /scratch/job-$1/$2 on $node"
	done
}

# nfs_server STOP|START: node1's NFS server, as its unit stops and starts it.
nfs_server() {
	case $1 in
	stop) rpc.nfsd 0 && exportfs -ua ;;
	start) exportfs -r && rpc.nfsd ;;
	esac
}
