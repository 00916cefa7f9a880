#!/bin/bash
# bench/guest.sh: the measurements of `make bench`, inside the guest
# (shiftbind.mode=bench).  scripts/bench.sh boots the guest, attaches the
# scratch disk and turns what this prints into out/bench.json.
#
# Kernel command line parameters (set by scripts/bench.sh):
#   shiftbind.bench_trials=N      timed runs of the chown copies and of the
#                                 steady state (default 5)
#   shiftbind.bench_start_trials=N  timed runs of the other starts and of
#                                 the hooks (default 10, at least N above):
#                                 they take a second, and a noisy host
#                                 needs more of them for a stable median
#   shiftbind.bench_sizes=A,B,..  image sizes, in entries (default 1000,10000,100000)
#   shiftbind.bench_churn=N       files created and unlinked by the steady
#                                 state workload (default 10000)
#   shiftbind.bench_control_rounds=N  rounds of the in-process comparison
#                                 with a plain bind (default 6)
#
# Stdout (the results port): one JSON object per line, and "# ..." progress
# lines.  Records: info, image, start, hook, steady, control, end; on a failure,
# {"type":"error",...} and a non-zero exit (the reason is on the console).
#
# Setup (not timed): the scratch disk /dev/vdb (ext4, made by the host) is
# mounted on /srv/bench and marked allow-shift; one image per size is
# generated there (bench/mkimage) and reused by every trial.  Each round
# starts one container per method on each image, in a rotating order:
#   plain        no user namespace (the floor)
#   userns       user namespace, no hook (files show as nobody): what the
#                user namespace alone costs
#   shift        user namespace + shiftbind-hook
#   idmap-mount  user namespace + an idmapped mount made by real root
#                (bench/idmap-mount) before crun run, timed
#   chown-copy   user namespace + a chowned copy of the image
#                (bench/chown-copy) made before crun run, timed
# The time of a start runs from just before the method's own work (bash's
# $EPOCHREALTIME) to the container's first instruction (`probe now`).
# Each round also times the hook (bench/hook-timer around it, in a
# container of its own) and, on the largest image, two trivial hooks that
# show what any hook costs: a static and a dynamically linked program
# that exit at once.  Last, the steady state (bench/fswork) on the
# largest image: plain bind, shift, and a user namespace container on a
# chowned copy (what separates the two: the same process and ownership
# view as shift, without the idmapped mount).  Then, outside any
# container, one process lstats and reads the largest image through an
# idmapped mount of it (shift's machinery, the container's mapping) and
# through a plain bind, in alternating batches (bench/fswork.c): the
# mount's own cost, free of what varies between containers; a second
# process compares two plain binds (1 by construction: the noise).
# Last, rootless podman on a shared store: see bench/podman.sh.
# shellcheck source-path=SCRIPTDIR source=../tests/lib/testlib.sh
. /usr/lib/shiftbind/tests/lib/testlib.sh # make_bundle, json_args, crun_run

readonly BENCH=$SHIFTBIND_GUEST_LIB/bench
readonly SCRATCH_DEV=/dev/vdb
readonly STORE=/srv/bench # the scratch disk, marked allow-shift
readonly IMAGES=$STORE/images COPIES=$STORE/copies
readonly WORK=/run/shiftbind-bench # bundles, idmapped mount points, hook times
readonly MAP=0:100000:65536 OCI_MAP="0 100000 65536"
readonly METHODS=(plain userns shift idmap-mount chown-copy)
# Timed hooks: shiftbind-hook, and the floors of any hook (see make_bundles).
readonly HOOKS=(hook hook-static hook-dynamic)
readonly HOOK_LOG=/run/shiftbind/hook.log
# Real root's containers/storage store, shared with bench/podman.sh's user.
PODMAN_STORE=$STORE/podman-store
# shellcheck source=../tests/e2e/podmanlib.bash
. "$SHIFTBIND_GUEST_LIB/tests/e2e/podmanlib.bash" # store_podman, user_podman, podman_store_share
# shellcheck source=podman.sh
. "$BENCH/podman.sh"

step=setup # what was running, for the error record

# param NAME DEFAULT: shiftbind.NAME from the kernel command line.
param() {
	local word
	for word in $(</proc/cmdline); do
		case $word in "shiftbind.$1="*) echo "${word#*=}" && return ;; esac
	done
	echo "$2"
}

TRIALS=$(param bench_trials 5)
START_TRIALS=$(param bench_start_trials $((2 * TRIALS)))
[ "$START_TRIALS" -ge "$TRIALS" ] || START_TRIALS=$TRIALS
CHURN=$(param bench_churn 10000)
CONTROL_ROUNDS=$(param bench_control_rounds 6)
# Smallest first: the copy's warm-up runs on the first, the steady state on the last.
IFS=, read -r -a SIZES <<<"$(param bench_sizes 1000,10000,100000 | tr , '\n' | sort -n | paste -sd,)"
readonly TRIALS START_TRIALS CHURN CONTROL_ROUNDS SIZES

progress() {
	printf '# %s\n' "$*"
	printf 'bench: %s\n' "$*" >&2
}

on_exit() {
	local status=$?
	[ "$status" -eq 0 ] ||
		printf '{"type":"error","step":"%s","status":%d}\n' "$step" "$status"
}

# usec SECONDS.FRACTION: as integer microseconds (bash has no floats).
usec() {
	[[ $1 =~ ^([0-9]+)\.([0-9]+)$ ]] || fail "not a time stamp: '$1'"
	local frac=${BASH_REMATCH[2]}000000
	echo $((10#${BASH_REMATCH[1]} * 1000000 + 10#${frac:0:6}))
}

# seconds USEC: "S.UUUUUU".
seconds() { printf '%d.%06d' $(($1 / 1000000)) $(($1 % 1000000)); }

# since T0: seconds from the $EPOCHREALTIME value T0 to now.
since() { seconds $(($(usec "$EPOCHREALTIME") - $(usec "$1"))); }

setup_store() {
	[ -b "$SCRATCH_DEV" ] ||
		fail "no scratch disk $SCRATCH_DEV; boot the guest with scripts/bench.sh (it attaches one through GUEST_SCRATCH_DISK)"
	mkdir -p "$STORE"
	mount -o nosuid,nodev "$SCRATCH_DEV" "$STORE"
	# Like /srv/images: nobody may list it, everyone may walk through it,
	# because crun resolves the rootfs path as the container's root.
	chmod 0711 "$STORE"
	# Read-write: the benchmark writes its chowned copies into the store.
	shiftbind allow --rw "$STORE" >&2
	install -d -m 0711 "$IMAGES" "$COPIES"
	install -d -m 0755 "$WORK" "$WORK/bundles" "$WORK/idmap" "$WORK/out"
}

info_record() {
	jq -cn --arg kernel "$(uname -r)" --arg crun "$(crun --version | head -n 1)" \
		--argjson cpus "$(nproc)" \
		--argjson mem_kib "$(awk '/^MemTotal:/ { print $2 }' /proc/meminfo)" \
		--argjson trials "$TRIALS" --argjson start_trials "$START_TRIALS" \
		--argjson churn "$CHURN" \
		--argjson sizes "$(json_args "${SIZES[@]}" | jq -c 'map(tonumber)')" \
		--arg store "$(awk -v m="$STORE" '$2 == m { print $3, $4 }' /proc/mounts)" \
		--arg map "$MAP" \
		'{type: "info", kernel: $kernel, crun: $crun, cpus: $cpus,
		  mem_mib: ($mem_kib / 1024 | floor), trials: $trials,
		  start_trials: $start_trials, sizes: $sizes, churn: $churn,
		  store: $store, map: $map}'
}

# make_image SIZE: generate the image once; add what the containers run
# and the mount targets runtimes need (shiftbind prepare-image).
make_image() {
	local size=$1 image=$IMAGES/$1 t0 stats
	step="generating the $size-entry image"
	progress "$step"
	t0=$EPOCHREALTIME
	stats=$("$BENCH/mkimage" "$image" "$size")
	install -d -m 0755 "$image/bin" "$image/bench-tmp"
	install -m 0755 "$PROBE" "$BENCH/fswork" "$image/bin/"
	shiftbind prepare-image "$image" >&2
	sync
	jq -c --argjson size "$size" --argjson s "$(since "$t0")" \
		--argjson total "$(find "$image" -mindepth 1 | wc -l)" \
		'{type: "image", size: $size} + . + {total_entries: $total, generate_s: $s}' \
		<<<"$stats"
}

# bundle SIZE KIND: the bundle of a method or of a timed hook.
bundle() { echo "$WORK/bundles/$1-$2"; }

# rootfs SIZE KIND: the root.path of the kind's containers.
rootfs() {
	case $2 in
	idmap-mount) echo "$WORK/idmap/$1" ;;
	chown-copy) echo "$COPIES/$1" ;;
	*) echo "$IMAGES/$1" ;;
	esac
}

# set_args BUNDLE ARG...: the container's command.
set_args() {
	local bundle=$1
	shift
	jq --argjson args "$(json_args "$@")" '.process.args = $args' \
		"$bundle/config.json" >"$bundle/config.json.new"
	mv "$bundle/config.json.new" "$bundle/config.json"
}

# time_hook BUNDLE: run the bundle's createRuntime hooks (where
# patch-config registers shiftbind-hook) under bench/hook-timer, which
# appends each one's wall time to BUNDLE/hook.times.  shiftbind-hook also
# logs where its time went (SHIFTBIND_HOOK_TIMING, shiftbind-hook(8)).
time_hook() {
	jq --arg timer "$BENCH/hook-timer" --arg times "$1/hook.times" '
		.hooks.createRuntime |= map(.args = ["hook-timer", $times, .path] + .args
			| .path = $timer | .env = ["SHIFTBIND_HOOK_TIMING=1"])' \
		"$1/config.json" >"$1/config.json.new"
	mv "$1/config.json.new" "$1/config.json"
}

# hook_phases ID: shiftbind-hook's last "timing (us):" line for container
# ID in its log, as a JSON object of microseconds ({} without one).
hook_phases() {
	{ grep -F "container $1: timing (us): " "$HOOK_LOG" || true; } | tail -n 1 |
		sed 's/.*timing (us): //' | tr ' ' '\n' |
		jq -Rn '[inputs | select(contains("=")) | split("=") | {key: .[0], value: (.[1] | tonumber)}]
			| from_entries'
}

# trivial_hook BUNDLE PATH ARG0 [ARG...]: a createRuntime hook that does nothing.
trivial_hook() {
	local bundle=$1 path=$2
	shift 2
	jq --arg path "$path" --argjson args "$(json_args "$@")" \
		'.hooks.createRuntime = [{path: $path, args: $args, timeout: 10}]' \
		"$bundle/config.json" >"$bundle/config.json.new"
	mv "$bundle/config.json.new" "$bundle/config.json"
}

# make_bundles SIZE: one bundle per method and per timed hook.  The timed
# hooks run in user namespace containers: shiftbind-hook as registered by
# shiftbind patch-config, and two floors of what any hook costs crun and
# the guest: the static probe and the dynamically linked /bin/true.
make_bundles() {
	local size=$1 kind map b
	mkdir -p "$WORK/idmap/$size"
	for kind in "${METHODS[@]}" "${HOOKS[@]}"; do
		b=$(bundle "$size" "$kind")
		map=$OCI_MAP
		[ "$kind" != plain ] || map=none
		make_bundle "$b" "$(rootfs "$size" "$kind")" "$map" "$map" /bin/probe now
		case $kind in
		shift | hook) shiftbind patch-config "$b" >/dev/null ;;
		hook-static) trivial_hook "$b" "$PROBE" probe exit 0 ;;
		hook-dynamic) trivial_hook "$b" /bin/true true ;;
		esac
		case $kind in hook*) time_hook "$b" ;; esac
	done
}

# prepare SIZE METHOD: the method's own work for one container, timed as
# part of its start.
prepare() {
	case $2 in
	idmap-mount) "$BENCH/idmap-mount" "$IMAGES/$1" "$WORK/idmap/$1" "$MAP" "$MAP" ;;
	chown-copy) "$BENCH/chown-copy" "$IMAGES/$1" "$COPIES/$1" "$MAP" "$MAP" ;;
	esac
}

# clean_up SIZE METHOD: undo prepare, not timed; write back what the copy
# left dirty, so that it does not slow down the next container.  With
# KEEP_COPY set the copy stays, for the steady state.
clean_up() {
	case $2 in
	idmap-mount) umount "$WORK/idmap/$1" ;;
	chown-copy)
		[ -n "${KEEP_COPY:-}" ] || rm -rf "${COPIES:?}/$1"
		sync
		;;
	esac
}

# run_once SIZE KIND ID: start one container as the benchmark does,
# leaving its output in $WORK/out/ID and the times in T_START, T_FIRST
# (its first instruction), T_END (crun exited) and T_CLEAN (clean_up
# done: what the run costs, untimed, besides the start).
run_once() {
	local size=$1 kind=$2 id=$3 out=$WORK/out/$3
	sync
	T_START=$EPOCHREALTIME
	prepare "$size" "$kind" ||
		fail "$kind: preparing the rootfs of $id failed; the reason is above"
	if ! crun_run "$(bundle "$size" "$kind")" "$id" >"$out" 2>"$out.err"; then
		cat "$out.err" >&2
		case $kind in shift | hook) tail -n 5 "$HOOK_LOG" >&2 ;; esac
		fail "container $id ($kind on the $size-entry image) failed; its messages are above"
	fi
	T_END=$EPOCHREALTIME
	T_FIRST=$(cat "$out")
	clean_up "$size" "$kind"
	T_CLEAN=$EPOCHREALTIME
}

# elapsed FROM TO: seconds between two time stamps.
elapsed() { seconds $(($(usec "$2") - $(usec "$1"))); }

# warm_up SIZE KIND: one untimed start that also checks what the
# container sees: the image's real owner of /, except without the shift.
warm_up() {
	local size=$1 kind=$2 b expected="0:0 0755 /"
	b=$(bundle "$size" "$kind")
	case $kind in userns | hook-static | hook-dynamic) expected="65534:65534 0755 /" ;; esac
	set_args "$b" /bin/probe stat /
	run_once "$size" "$kind" "bench-$size-$kind-warm"
	assert_eq "$expected" "$T_FIRST" "owner of / in the $kind container on the $size-entry image"
	set_args "$b" /bin/probe now
	rm -f "$b/hook.times"
}

# start_trial SIZE METHOD TRIAL: one timed start, as a "start" record.
start_trial() {
	local size=$1 method=$2 trial=$3
	step="start $method $size trial $trial"
	run_once "$size" "$method" "bench-$size-$method-$trial"
	printf '{"type":"start","size":%d,"method":"%s","trial":%d,"s":%s,"total_s":%s,"cleanup_s":%s}\n' \
		"$size" "$method" "$trial" "$(elapsed "$T_START" "$T_FIRST")" \
		"$(elapsed "$T_START" "$T_END")" "$(elapsed "$T_END" "$T_CLEAN")"
}

# hook_trial SIZE KIND TRIAL: one start with its hook timed, as a "hook"
# record: the hook's wall time, and the container's start.
hook_trial() {
	local size=$1 kind=$2 trial=$3 times phases='{}' id
	local -A names=([hook]=shiftbind-hook [hook-static]=static-exit [hook-dynamic]=dynamic-exit)
	times=$(bundle "$size" "$kind")/hook.times
	id=bench-$size-$kind-$trial
	step="$kind $size trial $trial"
	rm -f "$times"
	run_once "$size" "$kind" "$id"
	[ "$(wc -l <"$times")" -eq 1 ] ||
		fail "hook-timer wrote no time, or more than one, to $times"
	[ "$kind" != hook ] || phases=$(hook_phases "$id")
	jq -cn --argjson size "$size" --arg hook "${names[$kind]}" --argjson trial "$trial" \
		--argjson s "$(cat "$times")" --argjson start_s "$(elapsed "$T_START" "$T_FIRST")" \
		--argjson phases "$phases" \
		'{type: "hook", size: $size, hook: $hook, trial: $trial, s: $s, start_s: $start_s}
		 + if $phases == {} then {} else {phases_us: $phases} end'
}

# rotated_methods ROUND COPY METHOD...: the methods in an order that rotates
# with the round, so that no method always follows the copy's writeback;
# the copy method only in the first TRIALS rounds (a copy of the largest
# image takes minutes).  Shared by the crun and the podman benchmarks.
rotated_methods() {
	local round=$1 copy=$2 i method
	shift 2
	local methods=("$@") n=$#
	for ((i = 0; i < n; i++)); do
		method=${methods[(i + round) % n]}
		[ "$method" != "$copy" ] || [ "$round" -le "$TRIALS" ] || continue
		echo "$method"
	done
}

# warm_up_methods SIZE COPY METHOD...: the methods to warm up on an image:
# every one, the copy only on the smallest image: on the others it is the
# same code, minutes longer.
warm_up_methods() {
	local size=$1 copy=$2 method
	shift 2
	for method; do
		[ "$method" != "$copy" ] || [ "$size" = "${SIZES[0]}" ] || continue
		echo "$method"
	done
}

# round_kinds SIZE ROUND: the kinds of container started on an image in a
# round: the rotated methods, then the timed hooks, the floors on the
# largest image.
round_kinds() {
	local size=$1 round=$2
	rotated_methods "$round" chown-copy "${METHODS[@]}"
	echo hook
	[ "$size" != "${SIZES[-1]}" ] || echo hook-static hook-dynamic
}

start_benchmarks() {
	local size kind round
	for size in "${SIZES[@]}"; do
		step="warming up on the $size-entry image"
		progress "$step"
		make_bundles "$size"
		# Every kind once; the copy's source is still in the page
		# cache from mkimage.
		for kind in $(warm_up_methods "$size" chown-copy $(round_kinds "$size" 1)); do
			warm_up "$size" "$kind"
		done
	done
	for round in $(seq "$START_TRIALS"); do
		progress "start latency, round $round of $START_TRIALS"
		for size in "${SIZES[@]}"; do
			# The last copy of the largest image serves the steady state.
			KEEP_COPY=
			[ "$round" -ne "$TRIALS" ] || [ "$size" != "${SIZES[-1]}" ] || KEEP_COPY=1
			for kind in $(round_kinds "$size" "$round"); do
				case $kind in
				hook*) hook_trial "$size" "$kind" "$round" ;;
				*) start_trial "$size" "$kind" "$round" ;;
				esac
			done
		done
	done
	KEEP_COPY=
}

# dac_caps BUNDLE: the capabilities to read and write files of any owner,
# which Docker's default set has and `crun spec`'s lacks: the image has
# 0600 files and 0700 directories of other users than root.
dac_caps() {
	jq '.process.capabilities |= map_values(. + ["CAP_DAC_OVERRIDE", "CAP_FOWNER"] | unique)' \
		"$1/config.json" >"$1/config.json.new"
	mv "$1/config.json.new" "$1/config.json"
}

# steady_run VARIANT ID: fswork in the variant's container; its JSON line.
steady_run() {
	local variant=$1 id=$2 out=$WORK/out/$2
	if ! crun_run "$WORK/bundles/steady-$variant" "$id" >"$out" 2>"$out.err"; then
		cat "$out.err" >&2
		fail "steady-state container $id ($variant) failed; its messages are above"
	fi
	assert_eq '"0:0"' "$(jq '.owner' "$out")" "owner of / in the $variant container"
	cat "$out"
}

# The steady state on the largest image:
#   bind   no user namespace, crun's own bind of the image
#   shift  user namespace + shiftbind-hook on the image
#   copy   user namespace on the chowned copy the start trials left
# shift against bind is the goal; copy shows which part of a difference
# is the user namespace and which the idmapped mount.
steady_benchmarks() {
	local size=${SIZES[-1]} variants=(bind shift copy) variant b
	step="steady state setup"
	progress "steady state on the $size-entry image"
	[ -d "$COPIES/$size" ] || "$BENCH/chown-copy" "$IMAGES/$size" "$COPIES/$size" "$MAP" "$MAP"
	for variant in "${variants[@]}"; do
		b=$WORK/bundles/steady-$variant
		case $variant in
		bind) make_bundle "$b" "$IMAGES/$size" none none /bin/fswork / /bench-tmp "$CHURN" ;;
		shift)
			make_bundle "$b" "$IMAGES/$size" "$OCI_MAP" "$OCI_MAP" \
				/bin/fswork / /bench-tmp "$CHURN"
			shiftbind patch-config "$b" >/dev/null
			;;
		copy)
			make_bundle "$b" "$COPIES/$size" "$OCI_MAP" "$OCI_MAP" \
				/bin/fswork / /bench-tmp "$CHURN"
			;;
		esac
		dac_caps "$b"
		# Untimed: fills the caches all variants then find warm.
		steady_run "$variant" "bench-steady-$variant-warm" >/dev/null
	done
	steady_trials steady steady_run "${variants[@]}"
	control_comparison "$size"
}

# steady_trials TYPE RUN VARIANT...: TRIALS rounds of `RUN VARIANT ID`
# (a function that prints fswork's JSON line) on the largest image, over
# the variants in an order that rotates with the round, so that no variant
# always runs first; a TYPE record per run.
steady_trials() {
	local type=$1 run=$2 trial i variant
	shift 2
	local variants=("$@")
	for trial in $(seq "$TRIALS"); do
		progress "$type, trial $trial of $TRIALS"
		for ((i = 0; i < ${#variants[@]}; i++)); do
			variant=${variants[(i + trial) % ${#variants[@]}]}
			step="$type $variant trial $trial"
			"$run" "$variant" "bench-$type-$variant-$trial" |
				jq -c --arg type "$type" --arg v "$variant" --argjson trial "$trial" \
					--argjson size "${SIZES[-1]}" \
					'{type: $type, variant: $v, trial: $trial, size: $size} + .'
		done
	done
}

# control_comparison SIZE: fswork through mount A against mount B of the
# image, in turn in one process; a control record per pair:
#   idmapped  A: an idmapped mount with the containers' mapping, B: a bind
#   plain     A and B: two binds (the noise of the method)
control_comparison() {
	local size=$1 image=$IMAGES/$1 dir=$WORK/control pair a b owner out
	step="control comparison setup"
	mkdir -p "$dir"/{idmapped,bind-a,bind-b}
	"$BENCH/idmap-mount" "$image" "$dir/idmapped" "$MAP" "$MAP"
	mount --bind "$image" "$dir/bind-a"
	mount --bind "$image" "$dir/bind-b"
	for pair in idmapped plain; do
		case $pair in
		idmapped) a=$dir/idmapped owner=${MAP#*:} owner=${owner%:*} ;;
		plain) a=$dir/bind-a owner=0 ;;
		esac
		b=$dir/bind-b
		step="control comparison, $pair"
		progress "$pair mount against a bind, $CONTROL_ROUNDS rounds in one process"
		out=$("$BENCH/fswork" "$a" "$dir" 0 "$b" "$CONTROL_ROUNDS") ||
			fail "fswork on $a against $b failed; its messages are above"
		assert_eq "\"$owner:$owner\"" "$(jq .owner <<<"$out")" "owner of the image's root through $a"
		jq -c --arg pair "$pair" --argjson size "$size" \
			'{type: "control", pair: $pair, size: $size} + .control' <<<"$out"
	done
	umount "$dir/idmapped" "$dir/bind-a" "$dir/bind-b"
}

main() {
	local t0 t_images t_start t_steady t_podman size
	trap on_exit EXIT
	t0=$EPOCHREALTIME
	progress "kernel $(uname -r), $START_TRIALS rounds ($TRIALS with copies), sizes ${SIZES[*]}"
	setup_store
	info_record
	for size in "${SIZES[@]}"; do
		make_image "$size"
	done
	t_images=$(since "$t0")
	start_benchmarks
	t_start=$(since "$t0")
	steady_benchmarks
	t_steady=$(since "$t0")
	podman_benchmarks
	t_podman=$(since "$t0")
	printf '{"type":"end","images_done_s":%s,"starts_done_s":%s,"steady_done_s":%s,"elapsed_s":%s}\n' \
		"$t_images" "$t_start" "$t_steady" "$t_podman"
	progress "done in ${t_podman}s"
}

main "$@"
