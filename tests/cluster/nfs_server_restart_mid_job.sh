#!/bin/bash
# The NFS server restarts while a job runs from the image: the test user's
# `srun -N2` job starts its container on both nodes (the image's real
# owners), then node1's nfsd stops, node2's page cache is dropped (so that
# its reads must reach the server) and the job reads every file of the
# image again.  node1, whose image file is on its own disk, reads it at
# once; on node2, whose image file is on NFS mounted hard, the job waits
# and does not fail while the server is away; once the server is back
# (after its grace period, 10 s here) node2's read completes and the job
# ends with status 0.  The next job succeeds on both nodes.
. "$(dirname "$0")/../lib/testlib.sh"
. "$(dirname "$0")/clusterlib.bash"
require_cluster
cluster_ready
scratch_dir
readonly OUTAGE=20
restore() {
	nfs_server start >/dev/null 2>&1 || true
	[ -z "${job_pid:-}" ] || kill "$job_pid" 2>/dev/null || true
	scancel -u "$TEST_USER" 2>/dev/null || true
	rm -rf "$SCRATCH"
}
trap restore EXIT

out=$SCRATCH/job.out
user_job "$TEST_USER" reread "$EROFS_STORE" >"$out" 2>&1 &
job_pid=$!
wait_for_lines "$job_pid" "$out" '^node[12]: 1000:1000 0644 /home/user/file$' 2 300 "the job's containers starting"
job=$(job_id_of "$TEST_USER")

assert_status 0 nfs_server stop
assert_status 0 root_on node2 "sync && echo 3 >/proc/sys/vm/drop_caches"
touch_in_job_scratch "$job" go
went=$SECONDS
sleep "$OUTAGE"
kill -0 "$job_pid" 2>/dev/null ||
	fail "the job ended while the NFS server was stopped (a hard mount waits): $(cat "$out")"
# node1's image file is on its own disk: its read does not wait.
assert_match '^reread ok in [0-9]+ s$' "$(node_lines node1 "$(cat "$out")" | grep '^reread')" \
	"node1's read of every file of the image while the NFS server was stopped"
[ -z "$(node_lines node2 "$(cat "$out")" | grep '^reread ok')" ] ||
	fail "node2 read its image again while the NFS server was stopped (served from a cache?): $(cat "$out")"
assert_status 0 nfs_server start
restarted=$SECONDS
wait_for_lines "$job_pid" "$out" '^node2: reread ok' 1 300 "node2's read once the NFS server is back"
waited=$((SECONDS - went))

status=0
timeout 300 tail --pid="$job_pid" -f /dev/null || fail "the job did not end within 300 s of node2's read: $(cat "$out")"
wait "$job_pid" || status=$?
job_pid=
OUTPUT=$(cat "$out")
[ "$status" -eq 0 ] || fail "the job failed across the NFS server's restart (exit $status): $OUTPUT"
assert_real_owners_on_each_node "$OUTPUT" "the job's containers before the restart"

assert_status 0 user_job "$TEST_USER" crun "$EROFS_STORE"
assert_real_owners_on_each_node "$OUTPUT" "the next job's containers"
note "node2's read waited ${waited}s, across a $((restarted - went))s outage and the grace period"
