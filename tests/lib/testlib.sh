# shellcheck shell=bash
# shellcheck disable=SC2034 # the variables set here are the callers'
# Helpers for shell tests (host and guest).  Sourced by tests/<suite>/*.sh.
#
# A test states what it checks with the assert_* helpers; the first failed
# assertion prints what was expected and what was seen, and exits 1.

set -euo pipefail

SHIFTBIND_TESTS=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

# Where the guest image installs the project (see rootfs-builder/build-image.sh).
SHIFTBIND_GUEST_LIB=/usr/lib/shiftbind
PROBE=${PROBE:-$SHIFTBIND_GUEST_LIB/probe}
IMAGE_STORE=${IMAGE_STORE:-/srv/images}
SHARED_IMAGE=${SHARED_IMAGE:-$IMAGE_STORE/busybox}
TEST_USER=${TEST_USER:-tester}

fail() {
	printf 'FAIL: %s\n' "$*" >&2
	exit 1
}

# skip REASON: the test cannot run here.  Exit 4, kselftest's KSFT_SKIP
# (the kernel's selftests and the fuzzer skip so too); the runner counts
# it a skip only with this "SKIP: " line last.
readonly KSFT_SKIP=4
skip() {
	printf 'SKIP: %s\n' "$*"
	exit "$KSFT_SKIP"
}

# note TEXT: what a passing test wants its result to say, e.g. which
# release it found (runner.sh keeps it: "ok - SUITE.NAME # TEXT"); the
# test's last output line, so call it last.
note() {
	printf 'NOTE: %s\n' "$*"
}

# Tests run by `make test` must not skip in CI; say so in the reason.
require_guest() {
	[ -e /run/shiftbind-guest ] || skip "runs only inside the shiftbind guest"
}

# kernel_at_least MAJOR.MINOR: whether the running kernel is that or newer
# (what a filesystem can do depends on it: tmpfs is idmappable since 6.3).
kernel_at_least() {
	local have want=$1
	have=$(uname -r | grep -o '^[0-9]*\.[0-9]*')
	[ "$(printf '%s\n%s\n' "$want" "$have" | sort -V | head -n 1)" = "$want" ]
}

assert_eq() {
	local expected=$1 actual=$2 what=${3:-value}
	[ "$expected" = "$actual" ] ||
		fail "$what: expected '$expected', got '$actual'"
}

assert_match() {
	local pattern=$1 actual=$2 what=${3:-value}
	[[ $actual =~ $pattern ]] ||
		fail "$what: expected to match /$pattern/, got '$actual'"
}

assert_contains() {
	local needle=$1 haystack=$2 what=${3:-output}
	[[ $haystack == *"$needle"* ]] ||
		fail "$what: expected to contain '$needle', got: $haystack"
}

# assert_status EXPECTED CMD...: run CMD, fail unless it exits EXPECTED.
# Its output is kept in $OUTPUT for further assertions.
assert_status() {
	local expected=$1 status=0
	shift
	OUTPUT=$("$@" 2>&1) || status=$?
	[ "$status" -eq "$expected" ] ||
		fail "'$*' exited $status, expected $expected; output: $OUTPUT"
}

# scratch_dir: a fresh directory removed when the test exits.
scratch_dir() {
	SCRATCH=$(mktemp -d "${TMPDIR:-/tmp}/shiftbind-test.XXXXXX")
	trap 'rm -rf "$SCRATCH"' EXIT
}

# kernels_under_test (host tests only: the guest has no scripts/): the
# kernel bases whose series the host checks, one a line: the run's
# (test.sh passes them in TEST_KERNELS), or scripts/lib.sh's default list
# when a test runs on its own.  Assign it before looping over it: a
# failure inside $(...) in a for list would be ignored.
kernels_under_test() {
	with_scripts_lib test_kernels || fail "no kernels to test (the error above says why)"
}

# series_of BASE (host tests only): the patches kernel-patches/BASE/series
# lists, one a line.  Fails when the file is missing or lists none, so that
# a check of a kernel's series never passes on an empty one.
series_of() {
	with_scripts_lib require_series "$1" || fail "kernel $1 has no series to check (the error above says why)"
	with_scripts_lib series_patches "$1"
}

# with_scripts_lib CMD...: CMD, a function of scripts/lib.sh, in a
# subshell, so that lib.sh's variables and die() stay out of the test.
with_scripts_lib() {
	(
		# shellcheck source=/dev/null # checked on its own, and its names are the subshell's
		. "$SHIFTBIND_TESTS/../scripts/lib.sh"
		"$@"
	)
}

# json_args ARG...: the arguments as a JSON array of strings.  One --arg
# at a time: after --args, jq would still take "-c" and the like as its
# own options.
json_args() {
	local arg json='[]'
	for arg in "$@"; do
		json=$(jq -c --arg a "$arg" '. + [$a]' <<<"$json")
	done
	echo "$json"
}

# make_bundle DIR ROOTFS UID_MAP GID_MAP ARG...
#
# An OCI bundle running ARG... in ROOTFS.  UID_MAP and GID_MAP are
# "CONTAINER HOST SIZE[,CONTAINER HOST SIZE...]", or "none" for a container
# without a user namespace.  Starts from `crun spec`, so the mounts are
# crun's defaults.
make_bundle() {
	local dir=$1 rootfs=$2 uid_map=$3 gid_map=$4
	shift 4
	mkdir -p "$dir"
	(cd "$dir" && rm -f config.json && crun spec)
	# shellcheck disable=SC2016 # jq's variables, not the shell's
	local filter='.root.path = $root | .root.readonly = false
		| .process.terminal = false | .process.args = $args
		| .hostname = "shiftbind-test"'
	if [ "$uid_map" != none ]; then
		# shellcheck disable=SC2016 # jq's variables, not the shell's
		filter+=' | .linux.namespaces += [{"type": "user"}]
			| .linux.uidMappings = $uids | .linux.gidMappings = $gids'
	fi
	jq --arg root "$rootfs" --argjson args "$(json_args "$@")" \
		--argjson uids "$(id_mappings "$uid_map")" \
		--argjson gids "$(id_mappings "$gid_map")" \
		"$filter" "$dir/config.json" >"$dir/config.json.new"
	mv "$dir/config.json.new" "$dir/config.json"
}

# id_mappings "C H S[,C H S...]": the OCI JSON form of a mapping.
id_mappings() {
	[ "$1" = none ] && { echo '[]'; return; }
	tr ',' '\n' <<<"$1" | jq -R 'split(" ") | map(tonumber)
		| {containerID: .[0], hostID: .[1], size: .[2]}' | jq -s .
}

# crun_run BUNDLE ID: run the container as root, cgroups managed by crun.
crun_run() {
	crun --cgroup-manager=cgroupfs run -b "$1" "$2"
}

# crun_run_as USER BUNDLE ID: rootless crun run by USER, who is given the
# bundle first.
crun_run_as() {
	local user=$1 bundle=$2 id=$3
	chown -R "$user:" "$bundle"
	su "$user" -s /bin/sh -c \
		"crun --root /tmp/$user-crun --cgroup-manager=disabled run -b '$bundle' '$id'"
}

# rootless_bundle IMAGE ARG...: print the path of a new bundle for a
# rootless container of TEST_USER running ARG... in IMAGE: the user's uid
# and gid map to 0, its subordinate ids to 1..65535.  The caller removes
# it.
rootless_bundle() {
	local image=$1 uid gid subuid subgid bundle
	shift
	uid=$(id -u "$TEST_USER")
	gid=$(id -g "$TEST_USER")
	read -r subuid _ < <(subid_range "$TEST_USER" /etc/subuid)
	read -r subgid _ < <(subid_range "$TEST_USER" /etc/subgid)
	bundle=$(su "$TEST_USER" -s /bin/sh -c 'mktemp -d /tmp/rootless.XXXXXX')
	make_bundle "$bundle" "$image" "0 $uid 1,1 $subuid 65535" \
		"0 $gid 1,1 $subgid 65535" "$@"
	echo "$bundle"
}

# subid_range USER FILE: "START COUNT" of USER's range in /etc/subuid or subgid.
subid_range() {
	awk -F: -v u="$1" '$1 == u { print $2, $3; exit }' "$2"
}

# annotate BUNDLE KEY VALUE: set an OCI annotation in BUNDLE/config.json.
annotate() {
	jq --arg k "$2" --arg v "$3" '.annotations[$k] = $v' "$1/config.json" >"$1/config.json.new"
	mv "$1/config.json.new" "$1/config.json"
}

# grant_capability BUNDLE CAP: the container's process holds CAP (in
# every set; `crun spec` grants only a few by default).
grant_capability() {
	jq --arg cap "$2" '.process.capabilities |= with_entries(.value += [$cap])' \
		"$1/config.json" >"$1/config.json.new"
	mv "$1/config.json.new" "$1/config.json"
}

# run_as_user BUNDLE UID GID: the container's process runs as UID:GID.
run_as_user() {
	jq --argjson u "$2" --argjson g "$3" '.process.user = {uid: $u, gid: $g}' \
		"$1/config.json" >"$1/config.json.new"
	mv "$1/config.json.new" "$1/config.json"
}

# with_hook BUNDLE [--rootless]: register shiftbind-hook in the bundle the
# way the docs tell users to, and keep the hook's stderr (crun discards
# it otherwise) in BUNDLE/hook.stderr.  A user's bundle (rootless_bundle)
# is given to that user whole first, as crun_run_as does, and patched by
# that user: patch-config run by root refuses a bundle another user could
# swap (shiftbind(8)).
with_hook() {
	local bundle=$1 owner
	shift
	owner=$(stat -c %U "$bundle")
	if [ "$owner" = root ]; then
		shiftbind patch-config "$@" "$bundle" >/dev/null
	else
		# "USER:" (the user's login group) takes a name, not a uid.
		chown -R "$owner:" "$bundle"
		runuser -u "$owner" -- "$(command -v shiftbind)" \
			patch-config "$@" "$bundle" >/dev/null
	fi
	annotate "$bundle" run.oci.hooks.stderr "$bundle/hook.stderr"
}

# The owners the shared image has on disk, as a container with a working
# shift must show them (probe stat output).
readonly REAL_OWNERS="0:0 0755 /
0:0 0777 /bin/sh
0:42 0640 /etc/shadow
1000:1000 0644 /home/user/file"
readonly OWNER_PATHS=(/ /bin/sh /etc/shadow /home/user/file)

# image_store NAME: $STORE, a new store /srv/NAME-PID holding a copy of
# the shared image (busybox/), root's and mode 0711 as shiftbind(8) asks.
# remove_image_store unmounts whatever is mounted on $STORE (a mark's
# bind, the store's own filesystem) and removes it.
image_store() {
	STORE=/srv/$1-$$
	mkdir -p "$STORE"
	chmod 0711 "$STORE"
	cp -a "$SHARED_IMAGE" "$STORE/busybox"
}

remove_image_store() {
	while mountpoint -q "$STORE"; do umount "$STORE" || break; done
	rm -rf "$STORE"
}

# user_shift_store NAME: a store (image_store NAME, $STORE) marked
# read-write for TEST_USER, and $USER_WORK with the mount points old/ and
# new/ that the user owns.  Needs scratch_dir; the EXIT trap cleans up.
user_shift_store() {
	image_store "$1"
	USER_WORK=$SCRATCH/user
	install -d -o "$TEST_USER" -m 0755 "$USER_WORK" "$USER_WORK/old" "$USER_WORK/new"
	chmod 0755 "$SCRATCH"
	trap user_shift_cleanup EXIT
	assert_status 0 shiftbind allow --rw --owner "$TEST_USER" "$STORE"
}

# user_shift_start BEFORE AFTER: in the background, TEST_USER's
# `unshare -Urm` shifts $STORE/busybox onto $USER_WORK/old, runs the sh
# commands BEFORE, and waits; user_shift_finish lets it run AFTER and
# puts what it printed in $USER_OUT.
user_shift_start() {
	runuser -u "$TEST_USER" -- unshare -Urm sh -c "
		shiftbind shift $STORE/busybox $USER_WORK/old || exit 1
		$1
		touch $USER_WORK/shifted
		while [ ! -e $USER_WORK/go ]; do sleep 0.1; done
		$2" >"$USER_WORK/out" 2>&1 &
	USER_SHIFT_PID=$!
	for _ in $(seq 300); do [ -e "$USER_WORK/shifted" ] && break; sleep 0.1; done
	[ -e "$USER_WORK/shifted" ] ||
		fail "the user's shift did not happen: $(cat "$USER_WORK/out")"
}

user_shift_finish() {
	touch "$USER_WORK/go"
	wait "$USER_SHIFT_PID" || true
	USER_SHIFT_PID=
	USER_OUT=$(cat "$USER_WORK/out")
}

user_shift_cleanup() {
	[ -z "${USER_SHIFT_PID:-}" ] || kill "$USER_SHIFT_PID" 2>/dev/null || true
	remove_image_store
	rm -rf "$SCRATCH"
}

# nobody_workdir: $WORK, a directory in $SCRATCH that uid 65534 owns.
nobody_workdir() {
	chmod 0755 "$SCRATCH"
	WORK=$SCRATCH/nobody
	install -d -o nobody -g nogroup "$WORK"
}

# as_nobody_in_userns CMD: run the sh command CMD as root of a user and
# mount namespace that uid 65534 made (`unshare -Urm`): a local user whom
# the guest's store does not delegate to.
as_nobody_in_userns() {
	runuser -u nobody -- unshare -Urm sh -c "$1"
}

# mark_of DIR: the options of the mount on DIR that carry allow-shift
# (the topmost), or nothing.
mark_of() {
	awk -v d="$1" '$5 == d && $6 ~ /allow-shift/ { o = $6 } END { print o }' /proc/self/mountinfo
}

# mount_table: this namespace's mounts, for before/after comparisons.
mount_table() { awk '{ print $4, $5, $6, $9, $10 }' /proc/self/mountinfo | sort; }
