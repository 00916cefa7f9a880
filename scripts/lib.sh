# shellcheck shell=bash
# Shared helpers for the shiftbind build and test scripts.  Sourced, never run.
#
# Every script reports failure the same way: one line saying what failed,
# on what, and what to do next, on stderr, then a non-zero exit.

SHIFTBIND_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
SHIFTBIND_CACHE=${SHIFTBIND_CACHE:-/var/cache/shiftbind}
SHIFTBIND_OUT=${SHIFTBIND_OUT:-$SHIFTBIND_ROOT/out}
JOBS=${JOBS:-$(( $(nproc) + 1 ))}

# The kernel bases the project supports: the directories of kernel-patches/,
# each holding one series (its `series` file, patches and cover letter),
# applied to Debian's linux-source-BASE.  DEFAULT_KERNEL is the one a
# command builds and boots when KERNEL is not set (make kernel, demo,
# shell, bench, kernel-tree, ...).
# The newer base is the default: both pass every suite.
# shellcheck disable=SC2034 # read by the scripts that source this file
DEFAULT_KERNEL=6.12

# What `make test` covers when neither KERNEL nor TEST_KERNELS is set: the
# host suites once, and every guest suite on each base of this list (a
# base joins it once its series passes).  The debug-kernel suites (those
# whose tests/SUITE/kernel says "debug": fuzz.) run on the debug build of
# one base only, DEBUG_KERNEL (default below), because a cold debug build
# costs 21 minutes of CI's 90: 6.12's, the newer port.
DEFAULT_TEST_KERNELS="6.1 6.12"
DEFAULT_DEBUG_KERNEL=6.12
# The base whose test kernel the multi-node suites (tests/SUITE/nodes:
# cluster.) boot, on two guests of the cluster image: one base per run,
# since two guests at once are most of the machine.  CLUSTER_KERNEL
# chooses another of the run's bases.
DEFAULT_CLUSTER_KERNEL=6.12

# The Debian release each kernel base's guest runs, "BASE=SUITE": the
# release that ships that kernel, so that each base is proven with the
# runtimes its users have (crun, podman, systemd, LXC of that release).
# rootfs-builder/ debootstraps one guest base per release
# (rootfs-builder/packages says what each gets); GUEST_RELEASE=SUITE
# boots another release on a base, for trying one out
# (`GUEST_RELEASE=bookworm KERNEL=6.12 make test`).
readonly GUEST_RELEASES=(6.1=bookworm 6.12=trixie)

# guest_release BASE: the Debian suite of BASE's guest (GUEST_RELEASES),
# or GUEST_RELEASE when set.  In a command substitution, check its status.
guest_release() {
	local entry
	if [ -n "${GUEST_RELEASE:-}" ]; then
		[[ $GUEST_RELEASE =~ ^[a-z]+$ ]] ||
			die "GUEST_RELEASE='$GUEST_RELEASE' is not a Debian suite name such as bookworm; unset it to boot the release of the kernel base (${GUEST_RELEASES[*]})"
		echo "$GUEST_RELEASE"
		return 0
	fi
	for entry in "${GUEST_RELEASES[@]}"; do
		[ "${entry%%=*}" = "$1" ] && echo "${entry#*=}" && return 0
	done
	die "no guest release for kernel base '$1'; add 'BASE=SUITE' for it to GUEST_RELEASES in scripts/lib.sh (now: ${GUEST_RELEASES[*]})"
}

# The kernel selftests the guest runs: the series' own (configfd) and the
# upstream mount API selftests the series must keep passing (regress.).
# shellcheck disable=SC2034 # read by the scripts that source this file
readonly KSELFTESTS=(configfd mount_setattr move_mount_set_group)

# build_kselftests SRC BUILD NAME...: build the selftests NAME of the
# kernel source tree SRC against the uapi headers BUILD exported (make
# headers), each into BUILD/kselftests/NAME.
build_kselftests() {
	local src=$1 build=$2 t out
	shift 2
	[ -f "$build/usr/include/linux/mount.h" ] ||
		die "no exported kernel headers in $build/usr/include; build the kernel first ('make kernel')"
	for t in "$@"; do
		[ -d "$src/tools/testing/selftests/$t" ] ||
			die "selftest $t not found in $src/tools/testing/selftests; is the series applied?"
		out=$build/kselftests/$t
		mkdir -p "$out"
		if ! make -s -C "$src/tools/testing/selftests/$t" OUTPUT="$out" \
			KHDR_INCLUDES="-isystem $build/usr/include" >"$out.log" 2>&1; then
			cat "$out.log" >&2
			die "building selftest $t of $src failed (log: $out.log)"
		fi
	done
}

# supported_kernels: the bases, one a line, in version order.
supported_kernels() {
	local dir
	for dir in "$SHIFTBIND_ROOT"/kernel-patches/*/series; do
		[ -f "$dir" ] || continue # no match: the glob itself
		dir=${dir%/series}
		echo "${dir##*/}"
	done | sort -V
}

# require_kernel BASE: fail unless BASE has a series in kernel-patches/.
require_kernel() {
	[ -f "$SHIFTBIND_ROOT/kernel-patches/$1/series" ] ||
		die "no series for kernel '$1' (kernel-patches/$1/series); supported kernels: $(supported_kernels | paste -sd' ')"
}

# series_patches BASE: the patches BASE's series lists, one a line (blank
# and comment lines left out, as kernel.sh reads it).
series_patches() {
	grep -Ev '^[[:space:]]*(#|$)' "$SHIFTBIND_ROOT/kernel-patches/$1/series" || true
}

# require_series BASE: fail unless BASE's series lists at least one patch.
# Built without one, the kernel is Debian's own under the shiftbind name,
# and every test of the series would be testing nothing.
require_series() {
	require_kernel "$1"
	[ -n "$(series_patches "$1")" ] ||
		die "kernel-patches/$1/series lists no patches; port the series to $1 first, or leave $1 out of TEST_KERNELS"
}

# test_kernels: the kernel bases a test run covers, one a line: KERNEL
# alone when it is set (working on one base), else those of TEST_KERNELS
# (separated by spaces or commas), else DEFAULT_TEST_KERNELS.  Fails on a
# base without a series, a repeated or empty list, and KERNEL and
# TEST_KERNELS naming different things.  In a command substitution,
# check its status: die() then ends only the subshell.
test_kernels() {
	local list bases base seen=' '
	if [ -n "${KERNEL:-}" ]; then
		[ -z "${TEST_KERNELS:-}" ] || [ "$TEST_KERNELS" = "$KERNEL" ] ||
			die "KERNEL=$KERNEL and TEST_KERNELS='$TEST_KERNELS' are both set; set KERNEL to test one kernel, or TEST_KERNELS for several"
		list=$KERNEL
	else
		list=${TEST_KERNELS:-$DEFAULT_TEST_KERNELS}
	fi
	read -r -a bases <<<"${list//,/ }"
	for base in "${bases[@]}"; do
		require_kernel "$base"
		[[ $seen != *" $base "* ]] || die "TEST_KERNELS='$list' names $base twice"
		seen+="$base "
		echo "$base"
	done
	[ "$seen" != ' ' ] || die "TEST_KERNELS is set but empty; name the kernels to test, e.g. TEST_KERNELS='$DEFAULT_TEST_KERNELS'"
}

# debug_kernel BASE...: which of a run's bases (BASE...) boots its debug
# build for the debug-kernel suites: DEBUG_KERNEL when set (it must be
# one of them), else DEFAULT_DEBUG_KERNEL when it is one of them, else
# the first (KERNEL=6.12 make test runs everything on 6.12).
debug_kernel() {
	local want=${DEBUG_KERNEL:-} base
	for base in "$@"; do
		[ "$base" = "${want:-$DEFAULT_DEBUG_KERNEL}" ] && echo "$base" && return 0
	done
	[ -z "$want" ] ||
		die "DEBUG_KERNEL=$want is not among the kernels of this run ($*); add it to TEST_KERNELS or choose one of them"
	echo "$1"
}

# cluster_kernel BASE...: which of a run's bases boots the multi-node
# suites: CLUSTER_KERNEL when set (it must be one of them), else
# DEFAULT_CLUSTER_KERNEL when it is one of them; nothing (status 1) when
# neither is: the run does not boot them (KERNEL=6.1 make test).
cluster_kernel() {
	local want=${CLUSTER_KERNEL:-$DEFAULT_CLUSTER_KERNEL} base
	for base in "$@"; do
		[ "$base" = "$want" ] && echo "$base" && return 0
	done
	[ -z "${CLUSTER_KERNEL:-}" ] ||
		die "CLUSTER_KERNEL=$CLUSTER_KERNEL is not among the kernels of this run ($*); add it to TEST_KERNELS or choose one of them"
	return 1
}

log() { printf '%s: %s\n' "${0##*/}" "$*" >&2; }

die() {
	printf '%s: error: %s\n' "${0##*/}" "$*" >&2
	exit 1
}

# require_cmd CMD PACKAGE: fail with the package to install when CMD is missing.
require_cmd() {
	command -v "$1" >/dev/null 2>&1 ||
		die "command '$1' not found; install it with 'make deps' (Debian package $2)"
}

# hash_files FILE...: one short content hash over the named files, in order,
# including their names so that a rename also changes the key.
hash_files() {
	local f
	for f in "$@"; do
		printf '%s\0' "${f##*/}"
		cat -- "$f"
	done | sha256sum | cut -c1-16
}

# hash_string STRING: short content hash of a string.
hash_string() { printf '%s' "$1" | sha256sum | cut -c1-16; }

# check_free_space DIR MIB: fail early, naming DIR, when it has too little room.
check_free_space() {
	local avail
	mkdir -p "$1"
	avail=$(df -Pm "$1" | awk 'NR == 2 { print $4 }')
	[ "$avail" -ge "$2" ] ||
		die "only ${avail} MiB free in $1, need ${2} MiB; free space or set SHIFTBIND_CACHE to a larger disk"
}

# with_lock NAME CMD...: run CMD holding an exclusive lock in the cache, so
# two builds of the same thing never interleave.
with_lock() { locked --exclusive "$@"; }

# with_shared_lock NAME CMD...: run CMD holding NAME shared: beside other
# shared holders, never beside an exclusive one.
with_shared_lock() { locked --shared "$@"; }

locked() {
	local mode=$1 name=$2
	shift 2
	mkdir -p "$SHIFTBIND_CACHE/locks"
	(
		flock "$mode" 9
		"$@"
	) 9>"$SHIFTBIND_CACHE/locks/$name.lock"
}

# guest_oops_summary CONSOLE_LOG: the first kernel oops, BUG or panic a
# guest printed, in the few lines that tell what it was without opening
# the log: the report's first line, its RIP and code bytes, the top of
# its call trace, and the panic it ended in; nothing when the log shows
# none.  Kernel timestamps are dropped.
guest_oops_summary() {
	# awk reads to the end (no exit): sed, killed by SIGPIPE otherwise,
	# would fail the pipeline under pipefail.
	sed -E 's/^\[ *[0-9]+\.[0-9]+\] //' "$1" 2>/dev/null | awk '
		ended { next }
		!start && /^(Oops: |int3: |BUG: |general protection fault|kernel BUG at|Unable to handle|WARNING: CPU)/ {
			start = 1; print; next
		}
		!start { next }
		/^RIP: / && !rip { rip = 1; print; next }
		/^Code: / && !code { code = 1; print; next }
		/^Call Trace:/ && !trace { trace = 1; frames = 0; print; next }
		trace == 1 && frames < 4 && /^ *[?]? *[A-Za-z_0-9.]+\+0x/ { frames++; print; if (frames == 4) trace = 2; next }
		trace == 1 && /^ *<\/?(TASK|IRQ)>/ { next }
		trace == 1 && frames > 0 { trace = 2 }
		/^Kernel panic/ { print; ended = 1 }
	'
}

# qemu_accel: the -accel argument of every guest boot (run-guest.sh), also
# recorded with what a boot measured (make bench, make boot-soak).
# QEMU_ACCEL=kvm opts in where KVM works (on this machine kind /dev/kvm
# opens but a KVM guest never runs).  Under TCG, QEMU_TCG_THREAD picks
# the thread mode: single, the default, runs the guest's vCPUs in turns
# on one host thread; multi, a thread a vCPU, lets the guest's own text
# patching race QEMU 7.2's invalidation of translated code, and the
# guest dies of an int3 (docs/kernel-bases.md, "The int3 oops under TCG").
qemu_accel() {
	local accel=${QEMU_ACCEL:-tcg}
	case $accel in
	tcg) echo "tcg,thread=${QEMU_TCG_THREAD:-single}" ;;
	*) echo "$accel" ;;
	esac
}
