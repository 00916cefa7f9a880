# shellcheck shell=bash
# Helpers of the podman_rootless_* tests (sourced after testlib.sh): a
# containers/storage store real root fills with its podman (overlay
# driver), shared read-only with the test user's rootless podman as an
# additional image store.  Not a test: the runner runs only *.sh.
# bench/podman.sh sources it too, with a store and users of its own
# (PODMAN_STORE set before, TEST_USER per call).

readonly PODMAN_STORE=${PODMAN_STORE:-/srv/podman-store}
readonly PODMAN_STORE_FILLED=/run/shiftbind-podman-store.filled

# store_podman ARG...: real root's podman on the shared store.
store_podman() {
	podman --root "$PODMAN_STORE" --runroot /run/podman-store-runroot \
		--storage-driver overlay --cgroup-manager cgroupfs \
		--events-backend file --runtime /usr/bin/crun "$@"
}

# podman_version: the guest's podman's version (5.4.2); the release of
# the guest (scripts/lib.sh's GUEST_RELEASES) decides which a base's run
# has.
podman_version() {
	local have
	have=$(podman --version 2>/dev/null | awk '{ print $3 }')
	[ -n "$have" ] || fail "podman is not installed in the guest (rootfs-builder/packages lists it)"
	echo "$have"
}

# podman_at_least VERSION: whether the guest's podman is VERSION or newer.
podman_at_least() {
	local have
	have=$(podman_version) || exit 1
	[ "$(printf '%s\n%s\n' "$1" "$have" | sort -V | head -n 1)" = "$1" ]
}

# require_podman VERSION WHAT: fail, saying why, unless the guest's
# podman is VERSION or newer (WHAT needs it).  A test of a newer podman
# than a release has is left out on that release ("# not-on-release:",
# runner.sh), so that it neither passes nor skips there.
require_podman() {
	podman_at_least "$1" ||
		fail "needs podman >= $1 ($2); this guest, Debian $(cat /etc/debian_version) ($(. /etc/os-release && echo "$VERSION_CODENAME")), has podman $(podman_version)"
}

# podman_store_fill: once per boot, without network: localhost/busybox-shared
# (one layer, the shared image) and localhost/layered on top of it, whose
# layer deletes /etc/shadow (a whiteout) and replaces /home (an opaque
# directory holding only upper/only-upper).
podman_store_fill() {
	local ctx
	[ -e "$PODMAN_STORE_FILLED" ] && return 0
	ctx=$(mktemp -d)
	rm -rf "$PODMAN_STORE"
	mkdir -p "$PODMAN_STORE"
	chmod 0755 "$PODMAN_STORE"
	tar -C "$SHARED_IMAGE" -cf "$ctx/busybox.tar" .
	store_podman import "$ctx/busybox.tar" localhost/busybox-shared >/dev/null ||
		fail "podman import into $PODMAN_STORE failed"
	printf '%s\n' 'FROM localhost/busybox-shared' \
		'RUN rm /etc/shadow && rm -rf /home && mkdir -p /home/upper && echo upper >/home/upper/only-upper' \
		>"$ctx/Containerfile"
	store_podman build --pull=never --network none -t localhost/layered "$ctx" >/dev/null ||
		fail "podman build of localhost/layered in $PODMAN_STORE failed"
	rm -rf "$ctx"
	touch "$PODMAN_STORE_FILLED"
}

# podman_store_prepare: prepare-store, before the mark (which makes the
# store's bind read-only).
podman_store_prepare() {
	shiftbind prepare-store "$PODMAN_STORE" >/dev/null ||
		fail "shiftbind prepare-store $PODMAN_STORE failed"
}

# podman_store_share: the admin's one step, idempotent: prepare the store
# for rootless podman and mark it for real root and the test user.
podman_store_share() {
	podman_store_prepare
	shiftbind allow --owner 0 --owner "$TEST_USER" "$PODMAN_STORE" >/dev/null ||
		fail "shiftbind allow $PODMAN_STORE failed"
}

# podman_store_unshare: withdraw the mark and remove the store's bind.
podman_store_unshare() {
	shiftbind disallow "$PODMAN_STORE" >/dev/null 2>&1 || true
	while mountpoint -q "$PODMAN_STORE"; do umount "$PODMAN_STORE" || break; done
}

# as_user CMD ARG...: CMD as the test user, from /tmp.
as_user() {
	su "$TEST_USER" -s /bin/sh -c 'cd /tmp && exec "$@"' -- sh "$@"
}

# user_podman ARG...: the test user's rootless podman, with the guest's
# fallbacks (systemd does not run the guest: cgroupfs, file events) and crun.
user_podman() {
	as_user podman --cgroup-manager=cgroupfs --events-backend file \
		--runtime /usr/bin/crun "$@"
}

# user_podman_dirs: the test user's podman run root and runtime directory
# (containers/storage's and libpod's: where its pause process, locks and
# probes live), asked once per boot: each podman start is seconds under TCG.
user_podman_dirs() {
	local cache=/run/shiftbind-podman-dirs-$TEST_USER info err dirs dir
	if [ ! -s "$cache" ]; then
		# Its warnings (stderr) are not the answer.
		err=$(mktemp)
		info=$(user_podman info --format '{{.Store.RunRoot}} {{.Host.RemoteSocket.Path}}' 2>"$err") ||
			fail "podman info of $TEST_USER failed: $(cat "$err")"
		rm -f "$err"
		# The API socket is RUNTIME_DIR/podman/podman.sock.
		dirs="${info% *} $(dirname "$(dirname "${info#* }")")"
		for dir in $dirs; do
			# They are removed: only a user's own directories will do.
			case $dir in
			/tmp/?* | /run/user/?*) ;;
			*) fail "podman info of $TEST_USER gave '$dir' as a run directory: $info" ;;
			esac
		done
		echo "$dirs" >"$cache"
	fi
	cat "$cache"
}

# pids_of_uids UID START COUNT: the processes whose real uid is UID or in
# [START, START+COUNT), read from /proc (the guest has no procps).
pids_of_uids() {
	local status line uid
	for status in /proc/[0-9]*/status; do
		# A process may end between the glob and the read.
		{ while read -r line; do
			[[ $line == Uid:* ]] || continue
			read -r _ uid _ <<<"$line"
			if [ "$uid" -eq "$1" ] || { [ "$uid" -ge "$2" ] && [ "$uid" -lt $(($2 + $3)) ]; }; then
				status=${status#/proc/}
				echo "${status%/status}"
			fi
			break
		done <"$status"; } 2>/dev/null || true
	done
}

# kill_user_ids USER: kill every process running as USER or as one of its
# subordinate uids (its rootless podman's pause process, conmon and
# containers), and wait until they are gone: their mount namespaces, with
# the overlay and shift mounts in them, go with them.
kill_user_ids() {
	local uid start count pids tries=0
	uid=$(id -u "$1")
	IFS=: read -r _ start count < <(grep "^$1:" /etc/subuid) ||
		fail "$1 has no subordinate uids in /etc/subuid"
	while pids=$(pids_of_uids "$uid" "$start" "$count") && [ -n "$pids" ]; do
		[ "$tries" -lt 100 ] || fail "processes of $1 outlived SIGKILL for 10 s: $pids"
		# shellcheck disable=SC2086 # one pid a word
		kill -KILL $pids 2>/dev/null || true
		tries=$((tries + 1))
		sleep 0.1
	done
}

# user_podman_fresh: the test user's podman as on first use, its default
# rootless configuration plus the shared store as an additional image
# store: its processes (rootless namespace, containers) killed and
# everything `podman system reset` removes gone (storage, run root,
# runtime directory, lock memory), without starting podman to do it.
user_podman_fresh() {
	local home dirs
	home=$(getent passwd "$TEST_USER" | cut -d: -f6)
	dirs=$(user_podman_dirs)
	kill_user_ids "$TEST_USER"
	# shellcheck disable=SC2086 # two directories
	rm -rf $dirs "/dev/shm/libpod_rootless_lock_$(id -u "$TEST_USER")" \
		"$home/.local/share/containers" "$home/.config/containers"
	mkdir -p "$home/.config/containers"
	printf '[storage]\ndriver = "overlay"\n\n[storage.options]\nadditionalimagestores = ["%s"]\n' \
		"$PODMAN_STORE" >"$home/.config/containers/storage.conf"
	chown -R "$TEST_USER:" "$home/.config"
}

# assert_real_owners OUTPUT WHAT: probe stat of OWNER_PATHS in a podman
# container shows the image's real owners (/ has podman's mode, 0555,
# when the image gives it none).
assert_real_owners() {
	assert_match '^0:0 0[57]55 /$' "$(head -n 1 <<<"$1")" "owner of / in $2"
	assert_eq "$(tail -n +2 <<<"$REAL_OWNERS")" "$(tail -n +2 <<<"$1")" "owners in $2"
}

# user_storage_dir: the test user's own containers/storage graph root.
user_storage_dir() {
	echo "$(getent passwd "$TEST_USER" | cut -d: -f6)/.local/share/containers/storage"
}

# user_storage_kib: the size of the test user's own storage, in KiB.
user_storage_kib() {
	du -sk "$(user_storage_dir)" | cut -f1
}

# assert_storage_grew_less_than_image KIB WHAT: the user's storage, KIB
# before WHAT, grew by less than half the shared image: no copy of it.
assert_storage_grew_less_than_image() {
	local grown image
	grown=$(($(user_storage_kib) - $1))
	image=$(du -sk "$SHARED_IMAGE" | cut -f1)
	[ "$grown" -lt $((image / 2)) ] ||
		fail "$2 grew the user's storage by $grown KiB, the image is $image KiB: a copy of its layers"
}

# assert_idmapped_lowers NAME: containers/storage gave the container NAME
# idmapped lower layers (its probe passed, and the container's layer has
# the directory its idmapped mounts are made in), not a chowned copy.
assert_idmapped_lowers() {
	local upper runroot
	runroot=$(user_podman info --format '{{.Store.RunRoot}}') ||
		fail "podman info of the test user failed"
	[ -e "$runroot/overlay/idmapped-lower-dir-true" ] ||
		fail "containers/storage's probe of idmapped lower layers did not pass: $(ls "$runroot/overlay" 2>&1)"
	upper=$(user_podman inspect --format '{{.GraphDriver.Data.UpperDir}}' "$1") ||
		fail "podman inspect $1 failed"
	[ -d "${upper%/diff}/mapped" ] ||
		fail "container $1 has no idmapped lower layers (no ${upper%/diff}/mapped)"
}

# user_run IMAGE ARG...: a rootless container of the test user, no network.
user_run() {
	user_podman run --rm --network none "$@"
}

# store_fingerprint: every entry of the store, owner, mode, size and
# content, as one text to compare.
store_fingerprint() {
	(cd "$PODMAN_STORE" && find . -path ./libpod -prune -o -path ./overlay-containers -prune \
		-o -path ./tmp -prune -o -path ./mounts -prune -o \
		-printf '%U:%G %m %s %y %p\n' | sort &&
		find . -type f \( -path './overlay/*/diff/*' \) -print0 | sort -z |
		xargs -0 -r sha256sum)
}

# podman_test_setup [shared|prepared]: how every podman_rootless_* test
# starts: in the guest, with a scratch directory, the store filled and
# either shared (prepared and marked for the test user, the default) or
# only prepared, and the test user's podman fresh.  All of it is undone
# at exit.
podman_test_setup() {
	require_guest
	scratch_dir
	trap 'user_podman_fresh; podman_store_unshare; rm -rf "$SCRATCH"' EXIT
	podman_store_fill
	case ${1:-shared} in
	shared) podman_store_share ;;
	prepared) podman_store_unshare && podman_store_prepare ;;
	*) fail "podman_test_setup: unknown state '$1'" ;;
	esac
	user_podman_fresh
}
