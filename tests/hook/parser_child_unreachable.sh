#!/bin/bash
# The parser child of a rootful hook cannot be reached by anyone else
# (issue 25: a `nobody` process killed the old forked child, and 5 of 5
# container starts failed).  Each hook here waits for its state on a
# pipe, so its parser child is alive and waiting too; then, as an
# attacker would:
#   - the child is a re-exec of the hook's binary (argv "shiftbind-hook
#     parser ..."), all four uids shiftbind-parser's, not dumpable (its
#     /proc/PID/environ is root's, not the parser's), no capabilities;
#   - kill -KILL from uid 65534 (nobody), from the delegated user
#     (tester), and from 100000 (container root of the usual mapping)
#     gets EPERM, and the child lives on;
#   - given its state, the hook then parses it and succeeds;
#   - a child that dies anyway (root kills it) fails that container's
#     hook with what happened and what to do, while another container's
#     hook, started alongside, succeeds;
#   - a rootful container still starts shifted with the hook (the whole
#     flow, the child parsing for real).
. "$(dirname "$0")/../lib/testlib.sh"
. "$(dirname "$0")/hooklib.bash"
require_guest
scratch_dir

puid=$(id -u shiftbind-parser) || fail "no user shiftbind-parser in the guest (rootfs-builder creates it)"
chmod 0755 "$SCRATCH"
make_bundle "$SCRATCH/plain" "$SHARED_IMAGE" none none /bin/probe id
pids=()
# Under set -e a trap's failed command is the test's status: the hooks
# are gone by the end.
trap 'kill "${pids[@]}" 2>/dev/null || true; rm -rf "$SCRATCH"' EXIT

# start_hook NAME: shiftbind-hook prestart reading its state from the
# fifo NAME.in, which the caller then opens for writing (fd 7, 8 or 9;
# no hook holds another's, or its end of file would never come); stdout
# and stderr to NAME.out.  Sets HOOK_PID.
start_hook() {
	mkfifo "$SCRATCH/$1.in"
	"$HOOK" prestart <"$SCRATCH/$1.in" >"$SCRATCH/$1.out" 2>&1 7>&- 8>&- 9>&- &
	HOOK_PID=$!
	pids+=("$HOOK_PID")
}

# parser_of PID: the hook's parser child once it runs as shiftbind-parser
# and has re-executed (its cmdline is the parser's).
parser_of() {
	local child i
	for ((i = 0; i < 400; i++)); do
		child=$(child_of "$1") &&
			[ "$(awk '/^Uid:/ { print $2 }' "/proc/$child/status" 2>/dev/null)" = "$puid" ] &&
			[[ "$(tr '\0' ' ' <"/proc/$child/cmdline" 2>/dev/null)" == "shiftbind-hook parser $1 "* ]] &&
			{ echo "$child"; return 0; }
		sleep 0.05
	done
	fail "hook $1 has no parser child running as uid $puid: $(ls /proc/"$1"/task 2>&1)"
}

# kill_as USER CHILD: kill -KILL CHILD as USER (uid or name) with bash's builtin.
kill_as() {
	setpriv --reuid="$1" --regid="$1" --clear-groups bash -c "kill -KILL $2" 2>&1 || true
}

start_hook a
exec 7>"$SCRATCH/a.in"
child=$(parser_of "$HOOK_PID")

# Who the child is.
status=$(cat "/proc/$child/status")
assert_line "Uid:[[:space:]]+${puid}[[:space:]]+${puid}[[:space:]]+${puid}[[:space:]]+${puid}" "$status" "child's uids"
assert_line "Gid:[[:space:]]+$(id -g shiftbind-parser)([[:space:]]+$(id -g shiftbind-parser)){3}" "$status" "child's gids"
assert_line "CapEff:[[:space:]]+0+" "$status" "child's effective capabilities"
assert_line "CapPrm:[[:space:]]+0+" "$status" "child's permitted capabilities"
assert_line "NoNewPrivs:[[:space:]]+1" "$status" "child's no_new_privs"
# Not dumpable (its first act after the exec): the files of /proc/PID
# of a process that is not are owned by root, not by the process's uid.
for ((i = 0; i < 200; i++)); do
	[ "$(stat -c %u "/proc/$child/environ")" = 0 ] && break
	sleep 0.05
done
assert_eq "0" "$(stat -c %u "/proc/$child/environ")" "owner of /proc/$child/environ (root when not dumpable)"
assert_eq "$(readlink /proc/"$HOOK_PID"/exe)" "$(readlink /proc/"$child"/exe)" "the child's binary (the hook's own)"

# The attackers: nobody, the delegated user, a container's root.
for who in 65534 "$(id -u "$TEST_USER")" 100000; do
	out=$(kill_as "$who" "$child")
	assert_contains "kill: ($child) - Operation not permitted" "$out" "kill -KILL of the parser child as uid $who"
	kill -0 "$child" || fail "the parser child died after uid $who's kill: $out"
done

# The hook, given its state, goes on and succeeds.
state_json hook-unreachable-a-$$ $$ "$SCRATCH/plain" >&7
exec 7>&-
wait "$HOOK_PID" || fail "hook a failed after the attempts: $(cat "$SCRATCH/a.out")"
assert_contains "container hook-unreachable-a-$$: no user namespace in config.json: nothing to do" \
	"$(cat "$SCRATCH/a.out")" "hook a's output"

# A child that dies fails its own container, and only that one.
start_hook b
b=$HOOK_PID
exec 8>"$SCRATCH/b.in"
start_hook c
c=$HOOK_PID
exec 9>"$SCRATCH/c.in"
child_b=$(parser_of "$b")
parser_of "$c" >/dev/null
kill -KILL "$child_b"
state_json hook-unreachable-b-$$ $$ "$SCRATCH/plain" >&8
state_json hook-unreachable-c-$$ $$ "$SCRATCH/plain" >&9
exec 8>&- 9>&-
status=0
wait "$b" || status=$?
assert_eq 1 "$status" "exit status of the hook whose parser child was killed"
assert_contains "parser child (pid $child_b) killed by signal 9 (Killed) before it answered: the container's input was not parsed, so it is not started; only root (and the parser's own uid) can signal it: find what did" \
	"$(cat "$SCRATCH/b.out")" "hook b's message"
wait "$c" || fail "hook c failed when another hook's parser child was killed: $(cat "$SCRATCH/c.out")"
assert_contains "container hook-unreachable-c-$$: no user namespace in config.json: nothing to do" \
	"$(cat "$SCRATCH/c.out")" "hook c's output"

# The whole flow: a rootful container shifted by the hook.
id=hook-unreachable-run-$$
make_bundle "$SCRATCH/run" "$SHARED_IMAGE" "0 100000 65536" "0 100000 65536" \
	/bin/probe stat "${OWNER_PATHS[@]}"
with_hook "$SCRATCH/run"
assert_status 0 crun_run "$SCRATCH/run" "$id"
assert_eq "$REAL_OWNERS" "$OUTPUT" "owners inside the container"
