# shellcheck shell=bash
# The boot of a cluster node (tests/cluster/, docs/cluster.md), sourced by
# the guest's init for shiftbind.mode=cluster: what systemd would start on
# a site's node, in the order its units say, from the configuration the
# image holds (configs/cluster/):
#
#   network (the private QEMU network: 10.46.0.N/24 on eth0)
#   munge.service
#   nfs-server.service             node1 only: exports /srv/shared
#   srv-shared.mount               node2 only: node1:/srv/shared, NFSv4, hard
#   srv-cluster-*.mount            /etc/fstab's image lines: loop, ro, nosuid, nodev
#   shiftbind-allow.service        marks them (its drop-in: after those
#                                  mounts, before slurmd)
#   slurmctld.service              node1 only
#   slurmd.service
#
# Each step says on the console how it went; a failed one is said and the
# boot goes on, as systemd's would, so that the tests find and name it.
# The node's name comes from the kernel command line (shiftbind.node=).

# cluster_address NODE: the node's address on the cluster network.
cluster_address() {
	case $1 in
	node1) echo 10.46.0.1 ;;
	node2) echo 10.46.0.2 ;;
	*) return 1 ;;
	esac
}

# cluster_step NAME CMD...: run one unit's work, and say how it went.
# Its output goes through a file, not a pipe: a daemon that kept the
# pipe open would hold the boot.
cluster_step() {
	local name=$1 status=0 log=/run/cluster-step.log
	shift
	"$@" >"$log" 2>&1 </dev/null || status=$?
	if [ "$status" -eq 0 ]; then
		echo "cluster: $name: started"
	else
		echo "cluster: $name: failed (exit $status): $(cat "$log")"
	fi
	return "$status"
}

cluster_network() {
	local addr=$1
	busybox ip link set eth0 up &&
		busybox ip addr add "$addr/24" dev eth0
}

cluster_munge() {
	install -d -o munge -g munge -m 0755 /run/munge
	runuser -u munge -- /usr/sbin/munged
}

# nfs-server.service: the nfsd filesystem, the exports, mountd, nfsd's
# threads (NFSv4 only, short grace: /etc/nfs.conf.d/cluster.conf).
cluster_nfs_server() {
	grep -qw nfsd /proc/filesystems || {
		echo "this kernel has no NFS server (CONFIG_NFSD, CONFIG_NFSD_V4: configs/kernel-vm.config); rebuild it"
		return 1
	}
	mountpoint -q /proc/fs/nfsd || mount -t nfsd nfsd /proc/fs/nfsd
	exportfs -r &&
		rpc.mountd &&
		rpc.nfsd
}

# srv-shared.mount on a compute node: node1's export, retried while node1
# boots (its QEMU starts first, its nfsd some seconds later).
cluster_nfs_mount() {
	grep -qw nfs4 /proc/filesystems || {
		echo "this kernel has no NFSv4 client (CONFIG_NFS_FS, CONFIG_NFS_V4: configs/kernel-vm.config); rebuild it"
		return 1
	}
	for _ in $(seq 60); do
		mount /srv/shared 2>/dev/null && return 0
		sleep 2
	done
	mount /srv/shared # once more, for its message
}

cluster_boot() {
	local node=$1 addr
	addr=$(cluster_address "$node") || {
		echo "cluster: unknown node '$node' (shiftbind.node= on the kernel command line: node1 or node2)"
		return 1
	}
	hostname "$node"
	echo "$node" >/etc/hostname
	cluster_step "network $addr on eth0" cluster_network "$addr"
	cluster_step munge.service cluster_munge
	if [ "$node" = node1 ]; then
		cluster_step nfs-server.service cluster_nfs_server
	else
		cluster_step "srv-shared.mount (node1:/srv/shared, nfs4)" cluster_nfs_mount
	fi
	cluster_step "the image mounts of /etc/fstab" mount -a -t erofs,squashfs
	start_enabled_unit shiftbind-allow.service
	# The units' RuntimeDirectory=slurm.
	install -d -o slurm -g slurm -m 0755 /run/slurm
	[ "$node" != node1 ] || cluster_step slurmctld.service slurmctld
	cluster_step slurmd.service slurmd
}

# cluster_poweroff: end this node's run from a job of node1's tests (as
# root, `srun -w NODE`): the completion marker on the results port, as
# the init writes it, then a power-off two seconds later, after the job
# step has returned.
cluster_poweroff() {
	local port
	for port in /sys/class/virtio-ports/*; do
		[ "$(cat "$port/name" 2>/dev/null)" = shiftbind.results ] &&
			echo "# shiftbind-guest-done" >"/dev/${port##*/}"
	done
	sync
	setsid -f sh -c 'sleep 2; sync; busybox poweroff -f' </dev/null >/dev/null 2>&1
	echo "$(hostname): powering off"
}
