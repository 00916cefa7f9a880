#!/bin/bash
# cluster.sh KERNEL IMAGE SUITES: boot the two nodes of the cluster suite
# (tests/cluster/, docs/cluster.md) on KERNEL, each on a fresh copy of the
# cluster image IMAGE (build-image.sh with GUEST_VARIANT=cluster), joined
# by a private network between their two QEMU processes: node1's QEMU
# listens on a free TCP port of 127.0.0.1 (a QEMU socket netdev), node2's
# connects to it, and nothing else is on that network.  node1 runs SUITES
# (comma-separated) and writes their results; node2 serves jobs, may be
# rebooted by a test (GUEST_REBOOT: the same QEMU, disk and network), and
# is powered off by node1's last test.
#
# Files: GUEST_RESULTS and GUEST_CONSOLE are node1's (as for run-guest.sh);
# NODE2_RESULTS and NODE2_CONSOLE node2's, NODE2_LOG the output of its
# run-guest.sh.  GUEST_APPEND reaches both kernels' command lines.
# Exits with node1's run-guest.sh status: 0 when node1 completed its run.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

kernel=${1:?usage: cluster.sh KERNEL IMAGE SUITES}
image=${2:?missing IMAGE}
suites=${3:?missing SUITES}
node2_results=${NODE2_RESULTS:-$SHIFTBIND_OUT/guest-node2.results}
node2_console=${NODE2_CONSOLE:-$SHIFTBIND_OUT/console-node2.log}
node2_log=${NODE2_LOG:-$SHIFTBIND_OUT/run-node2.log}
# How long node2 may take to power off after node1 is done.
readonly NODE2_GRACE=60
node1_pid='' node2_pgid=''

# listening PORT: whether a socket listens on 127.0.0.1:PORT (read from
# /proc: a connection to try it would be taken by QEMU as its peer).
listening() {
	local hex
	hex=$(printf '%04X' "$1")
	awk -v want="0100007F:$hex" 'NR > 1 && $2 == want && $4 == "0A" { found = 1 } END { exit !found }' /proc/net/tcp
}

# free_port: a TCP port of 127.0.0.1 nothing listens on.
free_port() {
	local port
	for _ in $(seq 50); do
		port=$((20000 + RANDOM % 40000))
		listening "$port" || { echo "$port"; return 0; }
	done
	die "found no free TCP port on 127.0.0.1 for the cluster network in 50 tries"
}

stop_node2() {
	[ -n "$node2_pgid" ] || return 0
	kill -TERM -- "-$node2_pgid" 2>/dev/null || true
	node2_pgid=
}

cleanup() {
	[ -z "$node1_pid" ] || kill "$node1_pid" 2>/dev/null || true
	stop_node2
}
trap cleanup EXIT

port=$(free_port)
mkdir -p "$SHIFTBIND_OUT"
log "booting cluster node1 (slurmctld, slurmd, NFS server; runs: $suites), network on 127.0.0.1:$port"
GUEST_NETDEV=socket,listen=127.0.0.1:$port GUEST_MAC=52:54:00:46:00:01 \
	GUEST_APPEND="shiftbind.node=node1 ${GUEST_APPEND:-}" \
	"$SHIFTBIND_ROOT/scripts/run-guest.sh" cluster "$kernel" "$image" "$suites" &
node1_pid=$!

# QEMU listens once it has copied the disk and started: seconds.
for _ in $(seq 240); do
	listening "$port" && break
	kill -0 "$node1_pid" 2>/dev/null || break
	sleep 0.5
done
if ! listening "$port"; then
	status=0
	wait "$node1_pid" || status=$?
	node1_pid=
	die "node1's QEMU never listened on 127.0.0.1:$port for the cluster network (its run-guest.sh exited $status; console: ${GUEST_CONSOLE:-$SHIFTBIND_OUT/console.log})"
fi

log "booting cluster node2 (slurmd, NFS client; output: $node2_log)"
# A process group of its own, to end it whole if it does not power off.
GUEST_NETDEV=socket,connect=127.0.0.1:$port GUEST_MAC=52:54:00:46:00:02 GUEST_REBOOT=1 \
	GUEST_RESULTS=$node2_results GUEST_CONSOLE=$node2_console \
	GUEST_APPEND="shiftbind.node=node2 ${GUEST_APPEND:-}" \
	setsid "$SHIFTBIND_ROOT/scripts/run-guest.sh" cluster "$kernel" "$image" \
	</dev/null >"$node2_log" 2>&1 &
node2_pgid=$!

status=0
wait "$node1_pid" || status=$?
node1_pid=
for _ in $(seq "$NODE2_GRACE"); do
	kill -0 "$node2_pgid" 2>/dev/null || break
	sleep 1
done
if kill -0 "$node2_pgid" 2>/dev/null; then
	log "node2 was still running ${NODE2_GRACE}s after node1's run ended; stopping it (console: $node2_console)"
	stop_node2
else
	wait "$node2_pgid" 2>/dev/null || log "node2's run-guest.sh failed (its output: $node2_log; console: $node2_console)"
	node2_pgid=
fi
exit "$status"
