# shellcheck shell=bash
# Helpers of the hook. suite (sourced after tests/lib/testlib.sh, and by
# hook-fds.bash).  Not a test: the runner runs only *.sh and *.tap.

HOOK=${HOOK:-/usr/libexec/shiftbind/shiftbind-hook}
# shellcheck disable=SC2034 # used by the tests
HOOK_SUITE_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

# state_json ID PID BUNDLE: an OCI state as crun passes it at prestart.
state_json() {
	jq -nc --arg id "$1" --argjson pid "$2" --arg bundle "$3" \
		'{ociVersion: "1.0.2", id: $id, pid: $pid, status: "created",
		  bundle: $bundle}'
}

# userns_sleeper UID_MAP GID_MAP [UNSHARE_OPTION...]: start `sleep` in a
# new user namespace (and nothing else new, unless the options say so:
# --mount) and write its maps as real root, one "CONTAINER HOST SIZE"
# line each.  Its pid is in $SLEEPER; the caller kills it.
userns_sleeper() {
	local i
	unshare --user "${@:3}" sleep 120 &
	SLEEPER=$!
	for ((i = 0; i < 200; i++)); do
		[ "$(readlink "/proc/$SLEEPER/ns/user")" != "$(readlink /proc/self/ns/user)" ] && break
		sleep 0.05
	done
	[ "$(readlink "/proc/$SLEEPER/ns/user")" != "$(readlink /proc/self/ns/user)" ] ||
		fail "unshare --user did not create a user namespace"
	echo "$1" >"/proc/$SLEEPER/uid_map"
	echo "$2" >"/proc/$SLEEPER/gid_map"
}

# child_of PID: the pid of a child process of PID, if any (builtins only:
# this runs in a polling loop on a slow guest).
child_of() {
	local f rest ppid
	for f in /proc/[0-9]*/stat; do
		read -r rest 2>/dev/null <"$f" || continue
		rest=${rest##*) }
		read -r _ ppid _ <<<"$rest"
		if [ "$ppid" = "$1" ]; then
			f=${f#/proc/}
			echo "${f%/stat}"
			return 0
		fi
	done
	return 1
}

# fds_at_exit OUT CMD...: run CMD (stdin, stdout, stderr inherited) under
# strace, which holds it for a few seconds on entry to exit_group; list
# the fds it has open at that moment ("FD TARGET" lines, sorted) into
# OUT, or what went wrong.  Returns CMD's exit status.  exit_group is
# x86_64 syscall 231.
fds_at_exit() {
	local out=$1 tracer tracee='' nr='' status=0 fd deadline=$((SECONDS + 60))
	shift
	exec 9<&0
	strace -qq -o /dev/null -e trace=exit_group \
		-e inject=exit_group:delay_enter=4000000 "$@" <&9 9<&- &
	tracer=$!
	exec 9<&-
	while [ "$SECONDS" -lt "$deadline" ] && kill -0 "$tracer" 2>/dev/null; do
		[ -n "$tracee" ] || tracee=$(child_of "$tracer") || tracee=''
		nr=''
		[ -z "$tracee" ] || read -r nr _ 2>/dev/null <"/proc/$tracee/syscall" || nr=''
		[ "$nr" = 231 ] && break
		sleep 0.02
	done
	if [ "$nr" = 231 ]; then
		for fd in "/proc/$tracee/fd/"*; do
			printf '%s %s\n' "${fd##*/}" "$(readlink "$fd")"
		done | sort >"$out"
	else
		echo "did not see '$*' enter exit_group: tracer $tracer, tracee '$tracee', last syscall '$nr'" >"$out"
	fi
	wait "$tracer" || status=$?
	return "$status"
}

# refusing_store DIR [SUBDIR...]: a store on the guest's ext4 at DIR,
# holding a copy of the shared image as DIR/busybox and the empty
# directories DIR/SUBDIR (made before the read-only mark), marked
# allow-shift by real root for TEST_USER's user namespaces only.  The
# hook's own checks pass (a mount root, marked, not shifted), and the
# kernel refuses to shift anything there for a rootful container, whose
# user namespace is real root's, saying why ($KERNEL_REFUSAL) in the
# configfd log.  It is $STORE: remove_image_store undoes it; the EXIT
# trap set here calls it and removes $SCRATCH.
refusing_store() {
	STORE=$1
	trap 'remove_image_store; rm -rf "$SCRATCH"' EXIT
	mkdir -m 0711 "$1"
	cp -a "$SHARED_IMAGE" "$1/busybox"
	local dir
	for dir in "${@:2}"; do mkdir "$1/$dir"; done
	shiftbind allow --owner "$TEST_USER" "$1" >/dev/null
}

# The kernel's reason for refusing a shift in a refusing_store.
# shellcheck disable=SC2034 # used by the tests that source this file
readonly KERNEL_REFUSAL="allow-shift does not delegate to the owner of the caller's user namespace"

# with_wrapper_hook BUNDLE WRAPPER OUTDIR: register WRAPPER (a script of
# this suite, such as hook-fds.bash) as BUNDLE's only prestart hook, run
# as `WRAPPER OUTDIR prestart`; it runs shiftbind-hook its own way.
with_wrapper_hook() {
	jq --arg w "$HOOK_SUITE_DIR/$2" --arg out "$3" \
		'.hooks.prestart = [{path: $w, args: [$w, $out, "prestart"], timeout: 120}]' \
		"$1/config.json" >"$1/config.json.new"
	mv "$1/config.json.new" "$1/config.json"
}

# assert_line ERE TEXT WHAT: some line of TEXT matches ERE as a whole.
assert_line() {
	grep -Eqx -- "$1" <<<"$2" ||
		fail "$3: expected a line matching /$1/, got: $2"
}
