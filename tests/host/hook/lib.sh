# shellcheck shell=bash
# Helpers for the host tests of oci-hook/ (tests/host/hook_*.sh).
# Sourced after ../lib/testlib.sh, which sets SHIFTBIND_TESTS.
# shellcheck disable=SC2034 # the variables set here are the callers'

OCI_HOOK_DIR=$SHIFTBIND_TESTS/../oci-hook
HOOK_TEST_DIR=$SHIFTBIND_TESTS/host/hook

# What the hook and the CLI say when the kernel has no configfd, as the
# host's has not (oci-hook/src/common/kernel.c): one copy for the tests.
NO_CONFIGFD="this kernel has no configfd (syscalls 500/501 are missing or not the shiftbind series'): boot a kernel with the current shiftbind patches"

require_root() {
	[ "$(id -u)" -eq 0 ] || skip "needs root (make test runs the host suite as root)"
}

# build_oci_hook TARGET...: make TARGET... of oci-hook/Makefile into
# $SCRATCH/build (sets BUILD); the compiler's output is the failure.
build_oci_hook() {
	BUILD=$SCRATCH/build
	assert_status 0 make -s -C "$OCI_HOOK_DIR" -j"$(nproc)" O="$BUILD" "$@"
}

# need_clang: clang and its libFuzzer runtime, installed from Debian if
# missing (as root; otherwise the test cannot run).
need_clang() {
	local pkgs=()
	command -v clang >/dev/null || pkgs+=(clang)
	compgen -G '/usr/lib/llvm-*/lib/clang/*/lib/linux/libclang_rt.fuzzer-x86_64.a' >/dev/null ||
		pkgs+=(libclang-rt-dev)
	[ "${#pkgs[@]}" -eq 0 ] && return
	[ "$(id -u)" -eq 0 ] || skip "needs ${pkgs[*]}: apt-get install ${pkgs[*]}"
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
		"${pkgs[@]}" >/dev/null || fail "apt-get install ${pkgs[*]} failed"
}

# hook_state PID BUNDLE [ANNOTATIONS]: the state crun 1.8.1 writes on a
# hook's stdin (ANNOTATIONS: a JSON object).
hook_state() {
	jq -nc --argjson pid "$1" --arg bundle "$2" --argjson ann "${3:-null}" \
		'{ociVersion: "1.0", id: "hooktest", pid: $pid, root: "/run/crun/hooktest",
		  bundle: $bundle, status: "created"}
		 + if $ann then {annotations: $ann} else {} end'
}

# run_hook STAGE STATE: run the command in the array HOOK (the hook,
# perhaps under valgrind) with STATE on stdin; sets STATUS and OUTPUT
# (stdout and stderr).  Environment: VAR=value run_hook ...
run_hook() {
	STATUS=0
	OUTPUT=$(printf "%s" "$2" | "${HOOK[@]}" "$1" 2>&1) || STATUS=$?
}

# print_map FILE: a /proc uid_map file as the hook prints mappings
# ("0 0 4294967295").
print_map() {
	awk '{ printf "%s%s %s %s", (NR > 1 ? ", " : ""), $1, $2, $3 }' "$1"
}

# parser_user_ns: set PARSER_NS to a command prefix that runs a program
# in a private mount namespace whose /etc/passwd also lists the parser
# child's user, shiftbind-parser (a free system uid), as the install step
# creates it (shiftbind-hook(8)).  The real root hook refuses to start
# without that user, and the host running these tests need not have it.
# Sets PARSER_UID too.  Needs $SCRATCH.
parser_user_ns() {
	PARSER_UID=999
	while getent passwd "$PARSER_UID" >/dev/null || getent group "$PARSER_UID" >/dev/null; do
		PARSER_UID=$((PARSER_UID - 1))
	done
	grep -v '^shiftbind-parser:' /etc/passwd >"$SCRATCH/passwd"
	echo "shiftbind-parser:x:$PARSER_UID:$PARSER_UID::/nonexistent:/usr/sbin/nologin" >>"$SCRATCH/passwd"
	PARSER_NS=(unshare -m --propagation private
		sh -c 'mount --bind "$0" /etc/passwd && exec "$@"' "$SCRATCH/passwd")
}

# store_base NAME: $BASE, a new directory /srv/shiftbind-NAME.XXXXXX with
# a nosuid, nodev tmpfs on it, for stores that `shiftbind allow` checks
# pass (root's and 0755 all the way; /srv is where shiftbind(8) puts
# stores, and no suid mount reaches a nosuid tmpfs).  Every mount below
# it and the directory go when the test exits, with $SCRATCH.
store_base() {
	[ "$(stat -c '%u %A' /srv)" = "0 drwxr-xr-x" ] ||
		fail "/srv must be root's and 0755 for this test, is $(stat -c '%u %A' /srv)"
	BASE=$(mktemp -d "/srv/shiftbind-$1.XXXXXX")
	trap remove_store_base EXIT
	mount -t tmpfs -o mode=0755,nosuid,nodev "shiftbind-$1" "$BASE"
}

remove_store_base() {
	local mnt
	# Deepest first: a mount on top of another goes before it.
	while read -r mnt; do
		umount "$mnt" 2>/dev/null || true
	done < <(awk -v b="$BASE" '$5 == b || index($5, b "/") == 1 { print $5 }' \
		/proc/self/mountinfo | sort -r)
	rm -rf "$BASE" "${SCRATCH:-}"
}
