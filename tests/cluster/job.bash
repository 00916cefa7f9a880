# shellcheck shell=bash
# job.bash MODE STORE: one task of a user's Slurm job on a cluster
# node (`srun -N2 bash job.bash ...`, as the user who submitted it): a
# rootless container from the image STORE/busybox of a marked image mount
# (/srv/cluster/erofs, /srv/cluster/squashfs), its /tmp the job's scratch
# directory on this node (/scratch/job-ID, made by the Prolog).  Every line
# it prints starts with this node's name, so that srun's merged output of
# both nodes can be checked node by node.  Not a test (the runner runs
# *.sh only).
#
#   crun STORE         crun with shiftbind-hook (patch-config --rootless):
#                      the owners of OWNER_PATHS, then a file written to
#                      /tmp, and its owner on the node ("scratch crun U:G")
#   podman STORE       rootless podman --rootfs STORE/busybox:idmap
#                      --userns=keep-id --read-only: the same, and how much
#                      the user's own podman storage grew
#                      ("storage-growth-kib N").  --read-only: the image is;
#                      without it podman writes keep-id's passwd and group
#                      lines into the rootfs itself, and fails with EROFS;
#                      --read-only-tmpfs=false: its tmpfs on /var/tmp needs
#                      a /var the image does not have
#   version STORE      crun with the hook: /etc/image-version, the owners
#   hold STORE         crun with the hook: /etc/image-version, then waits
#                      until /scratch/job-ID/release exists (at most
#                      HOLD_SECONDS, default 600), then the version again
#                      and the owners: a job holding an image while it is
#                      replaced
#   reread STORE       crun with the hook: the owners, then, once
#                      /scratch/job-ID/go exists (at most HOLD_SECONDS),
#                      every file of the image read again, and how long
#                      that took ("reread ok in N s"): a job across an
#                      NFS server restart
set -uo pipefail

readonly PROBE_PATHS="/ /bin/sh /etc/shadow /home/user/file"
mode=${1:?usage: job.bash crun|podman|hold|reread|version STORE}
store=${2:?missing STORE}
node=$(hostname)
scratch=/scratch/job-${SLURM_JOB_ID:?not in a Slurm job}
rootfs=$store/busybox
user=$(id -un)

say() { printf '%s: %s\n' "$node" "$*"; }
# Each line of the command's output, prefixed with the node.
prefixed() { sed -u "s/^/$node: /"; }
# die MESSAGE: on stderr, which srun passes on as it does stdout (and
# which a $(bundle ...) does not swallow).
die() {
	say "job error: $*" >&2
	exit 1
}

[ -d "$scratch" ] && [ -O "$scratch" ] ||
	die "the job's scratch directory $scratch is missing or not $user's (the Prolog, /etc/slurm/prolog-scratch.sh, makes it)"
[ -d "$rootfs" ] || die "no image at $rootfs on $node (is $store mounted? findmnt: $(findmnt -n "$store" 2>&1))"

# bundle NAME CMD: a rootless OCI bundle in the scratch directory running
# the sh command CMD in the image: the user's uid and gid map to 0, its
# subordinate ids to 1..65535; /tmp is the scratch directory; the hook
# registered as a user does it (shiftbind(8), patch-config --rootless),
# its messages kept in BUNDLE/hook.stderr.
bundle() {
	local dir=$scratch/$1 cmd=$2 uid gid subuid subgid
	uid=$(id -u)
	gid=$(id -g)
	subuid=$(awk -F: -v u="$user" '$1 == u { print $2; exit }' /etc/subuid)
	subgid=$(awk -F: -v u="$user" '$1 == u { print $2; exit }' /etc/subgid)
	[ -n "$subuid" ] && [ -n "$subgid" ] || die "$user has no subordinate ids in /etc/subuid, /etc/subgid on $node"
	mkdir -p "$dir"
	# crun's default spec, as the rootless e2e tests use it (the image's
	# mount targets are there: shiftbind prepare-image).
	(cd "$dir" && crun spec) || die "crun spec failed in $dir"
	# shellcheck disable=SC2016 # jq's variables
	jq --arg root "$rootfs" --arg cmd "$cmd" --arg scratch "$scratch" --arg name "$1" \
		--argjson uid "$uid" --argjson gid "$gid" \
		--argjson subuid "$subuid" --argjson subgid "$subgid" '
		.root = {path: $root, readonly: false}
		| .process.terminal = false | .process.args = ["/bin/sh", "-c", $cmd]
		| .process.user = {uid: 0, gid: 0}
		| .hostname = "job"
		| .linux.namespaces += [{type: "user"}]
		| .linux.uidMappings = [{containerID: 0, hostID: $uid, size: 1},
			{containerID: 1, hostID: $subuid, size: 65535}]
		| .linux.gidMappings = [{containerID: 0, hostID: $gid, size: 1},
			{containerID: 1, hostID: $subgid, size: 65535}]
		| .mounts += [{destination: "/tmp", type: "bind", source: $scratch,
			options: ["rbind", "rw"]}]
		| .annotations["run.oci.hooks.stderr"] = $scratch + "/" + $name + "/hook.stderr"' \
		"$dir/config.json" >"$dir/config.json.new" &&
		mv "$dir/config.json.new" "$dir/config.json" || die "writing $dir/config.json failed"
	# /usr/sbin is not in a user's PATH; patch-config is a user's command.
	/usr/sbin/shiftbind patch-config --rootless "$dir" >/dev/null || die "shiftbind patch-config --rootless $dir failed"
	echo "$dir"
}

# run_crun BUNDLE: the container, rootless; on failure its and the hook's
# messages, prefixed, and the status.
run_crun() {
	local dir=$1 status=0
	crun --root "/tmp/$user-crun-$SLURM_JOB_ID" --cgroup-manager=disabled \
		run -b "$dir" "job-$SLURM_JOB_ID-$node-${dir##*/}" 2>"$dir/crun.stderr" | prefixed || status=$?
	if [ "$status" -ne 0 ]; then
		prefixed <"$dir/crun.stderr"
		[ ! -s "$dir/hook.stderr" ] || prefixed <"$dir/hook.stderr"
		say "crun failed (exit $status) on $rootfs"
	fi
	return "$status"
}

case $mode in
crun)
	dir=$(bundle crun "/bin/probe stat $PROBE_PATHS && /bin/probe create /tmp/from-crun >/dev/null") || exit 1
	run_crun "$dir" || exit 1
	say "scratch crun $(stat -c %u:%g "$scratch/from-crun")"
	;;
podman)
	storage=$HOME/.local/share/containers
	before=$(du -sk "$storage" 2>/dev/null | cut -f1)
	status=0
	podman --cgroup-manager=cgroupfs --events-backend file --runtime /usr/bin/crun \
		run --rm --network none --userns=keep-id --read-only --read-only-tmpfs=false \
		-v "$scratch:/tmp" --rootfs "$rootfs:idmap" /bin/sh -c "/bin/probe stat $PROBE_PATHS && /bin/probe create /tmp/from-podman >/dev/null" \
		2>&1 | prefixed || status=$?
	[ "$status" -eq 0 ] || die "podman run --rootfs $rootfs:idmap failed (exit $status)"
	say "scratch podman $(stat -c %u:%g "$scratch/from-podman")"
	after=$(du -sk "$storage" | cut -f1)
	say "storage-growth-kib $((after - ${before:-0}))"
	;;
hold)
	limit=${HOLD_SECONDS:-600}
	dir=$(bundle hold "echo version \$(cat /etc/image-version); /bin/probe create /tmp/holding >/dev/null;
		i=0; while [ ! -e /tmp/release ] && [ \$i -lt $((limit * 10)) ]; do sleep 0.1; i=\$((i + 1)); done
		[ -e /tmp/release ] || { echo 'never released'; exit 1; }
		echo after-release version \$(cat /etc/image-version); /bin/probe stat $PROBE_PATHS") || exit 1
	run_crun "$dir" || exit 1
	;;
reread)
	limit=${HOLD_SECONDS:-600}
	dir=$(bundle reread "/bin/probe stat $PROBE_PATHS && /bin/probe create /tmp/started >/dev/null &&
		i=0; while [ ! -e /tmp/go ] && [ \$i -lt $((limit * 10)) ]; do sleep 0.1; i=\$((i + 1)); done
		[ -e /tmp/go ] || { echo 'never told to go'; exit 1; }
		t0=\$(/bin/probe now) && /bin/busybox find / -xdev -type f -exec /bin/busybox cat {} + >/dev/null &&
		t1=\$(/bin/probe now) && echo reread ok in \$(( \${t1%.*} - \${t0%.*} )) s") || exit 1
	run_crun "$dir" || exit 1
	;;
version)
	dir=$(bundle version "echo version \$(cat /etc/image-version); /bin/probe stat $PROBE_PATHS") || exit 1
	run_crun "$dir" || exit 1
	;;
*) die "unknown mode '$mode' (crun, podman, hold, reread, version)" ;;
esac
