# shellcheck shell=bash
# bench/podman.sh: the rootless podman part of `make bench` (issue 17),
# sourced by bench/guest.sh, which runs podman_benchmarks after its own
# measurements, on the same generated images.
#
# Four ways an unprivileged user runs an image of a shared, root-owned
# containers/storage store (or an image of its own) with correct owners,
# with Debian's podman, crun and fuse-overlayfs unmodified:
#   shiftbind       the shared store as an additional image store,
#                   shifted for the user (shiftbind podman-setup); the
#                   kernel's overlay on top; podman's default mapping
#   podman-idmap    the same store and user, started with a mapping of
#                   its own (--uidmap, a new one each start, as
#                   podman-copy): containers/storage idmaps the store's
#                   layers with the container's namespace, no copy
#   fuse-overlayfs  the user's own copy of the image (podman import),
#                   started with a mapping of its own (--uidmap), which
#                   podman serves with fuse-overlayfs's user-space uid
#                   mapping instead of a copy: the alternative users have
#                   today (mount_program in storage.conf)
#   podman-copy     the shared store, started with a mapping of its own,
#                   by a user whose containers/storage has the answer a
#                   mainline kernel gives its probe of idmapped lower
#                   layers (no): it makes a chowned copy of the image
#                   into the user's store; every start uses a mapping not
#                   used before, so every start pays for the copy, as
#                   every new mapping does
# The time of a start runs from just before `podman run` (as the user) to
# the container's first instruction (`probe now`).  The steady state runs
# bench/fswork on the largest image in the three, podman-copy on the copy
# its last start left: a plain rootless kernel overlay of a user-owned
# copy, the floor for shiftbind.
#
# Records: podman-image (per size: the shared store's import, the user's
# own import), podman-start, podman-steady.

readonly PODMAN_SHIFT_USER=bench-shift PODMAN_FUSE_USER=bench-fuse
readonly PODMAN_COPY_USER=bench-copy
readonly PODMAN_METHODS=(shiftbind podman-idmap fuse-overlayfs podman-copy)
readonly PODMAN_STEADY_VARIANTS=(shiftbind podman-idmap fuse-overlayfs podman-copy)
readonly PODMAN_TARS=$STORE/podman-tars
# The mapping fuse-overlayfs containers get: container root is the
# user's first subordinate id, not the user itself.
readonly PODMAN_FUSE_MAP=0:1:65536

# podman_image NAME SIZE: the image of a size, in any store.
podman_image() { echo "localhost/bench-$1"; }

# podman_copy_map K: the K-th mapping of the podman-copy and podman-idmap
# starts, each 65536 ids of the user's subordinate range (see
# add_podman_user).
podman_copy_map() { echo "0:$((1 + $1 * 65536)):65536"; }

# add_podman_user NAME UID SUBID_START SUBID_COUNT: a user whose home is
# on the scratch disk (its podman storage grows by a copy per start).
add_podman_user() {
	useradd --home-dir "$STORE/home/$1" --create-home --uid "$2" --shell /bin/sh "$1"
	echo "$1:$3:$4" >>/etc/subuid
	echo "$1:$3:$4" >>/etc/subgid
}

# bench_podman USER ARG...: USER's rootless podman (podmanlib's user_podman).
bench_podman() {
	local user=$1
	shift
	TEST_USER=$user user_podman "$@"
}

# copy_user_config: bench-copy's containers/storage answers its probe of
# idmapped lower layers as it does on a mainline kernel, where a rootless
# user cannot idmap (the cached answer it reads first; podman makes its
# run root before it ever probes, which it does at a container's first
# mount).
copy_user_config() {
	local runroot
	runroot=$(bench_podman "$PODMAN_COPY_USER" info --format '{{.Store.RunRoot}}') ||
		fail "podman info as $PODMAN_COPY_USER failed; its messages are above"
	# shellcheck disable=SC2016 # $1 is the inner shell's
	TEST_USER=$PODMAN_COPY_USER as_user sh -c \
		'mkdir -p "$1/overlay" && rm -f "$1/overlay/idmapped-lower-dir-true" &&
		 : >"$1/overlay/idmapped-lower-dir-false"' sh "$runroot" ||
		fail "could not record containers/storage's mainline answer in $runroot"
}

# fuse_user_config: bench-fuse's storage: its own, with fuse-overlayfs.
fuse_user_config() {
	local home=$STORE/home/$PODMAN_FUSE_USER
	install -d -o "$PODMAN_FUSE_USER" -g "$PODMAN_FUSE_USER" "$home/.config" "$home/.config/containers"
	printf '[storage]\ndriver = "overlay"\n\n[storage.options.overlay]\nmount_program = "/usr/bin/fuse-overlayfs"\n' \
		>"$home/.config/containers/storage.conf"
	chown "$PODMAN_FUSE_USER:" "$home/.config/containers/storage.conf"
}

# podman_import_image SIZE: the image of a size into the shared store (by
# real root) and into bench-fuse's own store; a podman-image record.
podman_import_image() {
	local size=$1 tar=$PODMAN_TARS/$1.tar t0 shared_s user_s
	step="importing the $size-entry image into podman's stores"
	progress "$step"
	tar -C "$IMAGES/$size" --numeric-owner -cf "$tar" .
	chmod 0644 "$tar"
	t0=$EPOCHREALTIME
	store_podman import "$tar" "$(podman_image "$size")" >/dev/null ||
		fail "podman import of $tar into $PODMAN_STORE failed; its messages are above"
	shared_s=$(since "$t0")
	t0=$EPOCHREALTIME
	bench_podman "$PODMAN_FUSE_USER" import "$tar" "$(podman_image "$size")" >/dev/null ||
		fail "podman import of $tar by $PODMAN_FUSE_USER failed; its messages are above"
	user_s=$(since "$t0")
	rm -f "$tar"
	printf '{"type":"podman-image","size":%d,"shared_import_s":%s,"user_import_s":%s}\n' \
		"$size" "$shared_s" "$user_s"
}

# podman_setup: users, stores and the shift, untimed but for the imports.
podman_setup() {
	local size
	step="podman setup"
	progress "$step"
	# What udev's rule does on a distribution: anyone may open /dev/fuse.
	chmod 0666 /dev/fuse
	install -d -m 0755 "$STORE/home"
	install -d -m 0700 "$PODMAN_TARS"
	chmod 0755 "$PODMAN_TARS"
	# bench-shift and bench-copy: one mapping of 65536 ids per
	# podman-idmap or podman-copy start (K from 1 to the rounds each
	# runs: START_TRIALS and TRIALS) and one for its warm-up (K=0), so
	# that no start finds a copy made before.
	local ranges=$(((START_TRIALS > TRIALS ? START_TRIALS : TRIALS) + 1))
	add_podman_user "$PODMAN_SHIFT_USER" 2001 1000000 $((ranges * 65536))
	add_podman_user "$PODMAN_FUSE_USER" 2002 600000 65536
	add_podman_user "$PODMAN_COPY_USER" 2003 $((1000000 + ranges * 65536)) \
		$((ranges * 65536))
	TEST_USER=$PODMAN_SHIFT_USER user_podman_fresh
	TEST_USER=$PODMAN_COPY_USER user_podman_fresh
	fuse_user_config
	mkdir -p "$PODMAN_STORE"
	chmod 0755 "$PODMAN_STORE"
	for size in "${SIZES[@]}"; do
		podman_import_image "$size"
	done
	step="sharing the podman store"
	podman_store_prepare
	shiftbind allow --owner 0 --owner "$PODMAN_SHIFT_USER" --owner "$PODMAN_COPY_USER" \
		"$PODMAN_STORE" >/dev/null || fail "shiftbind allow $PODMAN_STORE failed"
	bench_podman_setup_shift "$PODMAN_SHIFT_USER"
	bench_podman_setup_shift "$PODMAN_COPY_USER"
	# Once the shared store is filled and shared: podman reads it.
	copy_user_config
}

# bench_podman_setup_shift USER: the user's one step (shiftbind podman-setup).
bench_podman_setup_shift() {
	TEST_USER=$1 as_user shiftbind podman-setup "$PODMAN_STORE" >&2 ||
		fail "shiftbind podman-setup $PODMAN_STORE as $1 failed; its messages are above"
}

# podman_run_as METHOD K ARG...: the user and the podman run options of
# a method (K: the podman-copy mapping), then the container's command;
# stdout is the container's.
podman_run_as() {
	local method=$1 k=$2 user=$PODMAN_SHIFT_USER map=()
	shift 2
	case $method in
	shiftbind) ;;
	fuse-overlayfs) user=$PODMAN_FUSE_USER map=(--uidmap "$PODMAN_FUSE_MAP" --gidmap "$PODMAN_FUSE_MAP") ;;
	podman-idmap) map=(--uidmap "$(podman_copy_map "$k")" --gidmap "$(podman_copy_map "$k")") ;;
	podman-copy) user=$PODMAN_COPY_USER
		map=(--uidmap "$(podman_copy_map "$k")" --gidmap "$(podman_copy_map "$k")") ;;
	*) fail "podman_run_as: unknown method '$method'" ;;
	esac
	bench_podman "$user" run --rm --network none "${map[@]}" "$@"
}

# podman_run_once SIZE METHOD K ID ARG...: one container, as run_once:
# output in $WORK/out/ID, times in T_START, T_FIRST (when ARG is
# `probe now`) and T_END.
podman_run_once() {
	local size=$1 method=$2 k=$3 id=$4 out=$WORK/out/$4
	shift 4
	sync
	T_START=$EPOCHREALTIME
	if ! podman_run_as "$method" "$k" "$(podman_image "$size")" "$@" >"$out" 2>"$out.err"; then
		cat "$out.err" >&2
		fail "podman container $id ($method on the $size-entry image) failed; its messages are above"
	fi
	T_END=$EPOCHREALTIME
	T_FIRST=$(cat "$out")
}

# podman_warm_up SIZE METHOD: one untimed start that checks the owner of
# / (its mode is podman's: 0555 for an image without one of its own).
podman_warm_up() {
	step="podman warm-up, $2 on the $1-entry image"
	podman_run_once "$1" "$2" 0 "podman-$1-$2-warm" /bin/probe stat /
	assert_eq "0:0" "${T_FIRST%% *}" "owner of / in the podman $2 container on the $1-entry image"
}

# podman_start_trial SIZE METHOD TRIAL: one timed start, a podman-start record.
podman_start_trial() {
	local size=$1 method=$2 trial=$3
	step="podman start $method $size trial $trial"
	podman_run_once "$size" "$method" "$trial" "podman-$size-$method-$trial" /bin/probe now
	printf '{"type":"podman-start","size":%d,"method":"%s","trial":%d,"s":%s,"total_s":%s}\n' \
		"$size" "$method" "$trial" "$(elapsed "$T_START" "$T_FIRST")" \
		"$(elapsed "$T_START" "$T_END")"
}

podman_start_benchmarks() {
	local size method round
	for size in "${SIZES[@]}"; do
		progress "podman: warming up on the $size-entry image"
		# podman-copy's warm-up mapping (K=0) is spent on the smallest.
		for method in $(warm_up_methods "$size" podman-copy "${PODMAN_METHODS[@]}"); do
			podman_warm_up "$size" "$method"
		done
	done
	for round in $(seq "$START_TRIALS"); do
		progress "podman start latency, round $round of $START_TRIALS"
		for size in "${SIZES[@]}"; do
			for method in $(rotated_methods "$round" podman-copy "${PODMAN_METHODS[@]}"); do
				podman_start_trial "$size" "$method" "$round"
			done
		done
	done
}

# podman_steady_run VARIANT ID: fswork in the variant's container on the
# largest image; its JSON line.  podman-copy runs on the copy of its
# last start (mapping TRIALS), made before.
podman_steady_run() {
	local variant=$1 id=$2 size=${SIZES[-1]}
	podman_run_once "$size" "$variant" "$TRIALS" "$id" /bin/fswork / /bench-tmp "$CHURN"
	assert_eq '"0:0"' "$(jq '.owner' "$WORK/out/$id")" "owner of / in the podman $variant container"
	cat "$WORK/out/$id"
}

podman_steady_benchmarks() {
	local variant
	progress "podman steady state on the ${SIZES[-1]}-entry image"
	for variant in "${PODMAN_STEADY_VARIANTS[@]}"; do
		step="podman steady state warm-up, $variant"
		podman_steady_run "$variant" "podman-steady-$variant-warm" >/dev/null
	done
	steady_trials podman-steady podman_steady_run "${PODMAN_STEADY_VARIANTS[@]}"
}

podman_benchmarks() {
	podman_setup
	podman_start_benchmarks
	podman_steady_benchmarks
}
