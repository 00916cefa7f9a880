#!/bin/bash
# The real shiftbind-hook (release build, seccomp filter on) on the host,
# whose kernel has no configfd: everything up to the kernel works.
#   - usage: the stage comes from argv, exit 2 otherwise
#   - no user namespace: exit 0, says it did nothing, also in the log file;
#     also with a duplicate key it does not read, not with one it reads
#   - opt-out annotation: exit 0
#   - a pid whose uid_map is not config.json's (this shell's, as host root):
#     refused with the mismatch message, at both stages
#   - a pid in a user namespace with config.json's mapping: accepted, then
#     the missing kernel support is named
#   - prestart as non-root: told to use createContainer
#   - seccomp: an unlisted syscall is refused inside the hook
#   - the parser child: re-executed as shiftbind-parser; without that
#     user in /etc/passwd the hook says how to create it and exits 1
#   - control characters from the input are escaped in the log
. "$(dirname "$0")/../lib/testlib.sh"
. "$(dirname "$0")/hook/lib.sh"
require_root
scratch_dir

build_oci_hook all
parser_user_ns
HOOK=("${PARSER_NS[@]}" "$BUILD/shiftbind-hook")
export SHIFTBIND_HOOK_LOG=$SCRATCH/hook.log
map="0 100000 65536"
make_bundle "$SCRATCH/plain" "$SCRATCH/rootfs" none none /bin/true
make_bundle "$SCRATCH/userns" "$SCRATCH/rootfs" "$map" "$map" /bin/true

# Usage.
assert_status 0 "${HOOK[@]}" --help
assert_contains "createRuntime|createContainer|prestart" "$OUTPUT"
assert_status 2 "${HOOK[@]}"
assert_status 2 "${HOOK[@]}" poststart

# No user namespace: nothing to do, exit 0, logged to the file too.
run_hook prestart "$(hook_state $$ "$SCRATCH/plain")"
assert_eq 0 "$STATUS" "exit status without a user namespace; output: $OUTPUT"
assert_contains "container hooktest: no user namespace in config.json: nothing to do" "$OUTPUT"
assert_contains "info: prestart: container hooktest: no user namespace in config.json: nothing to do" \
	"$(cat "$SHIFTBIND_HOOK_LOG")" "log file"

# A duplicate key the hook never reads is not its business (with a
# hooks.d registration it runs for every container); one it reads is.
jq -c . "$SCRATCH/plain/config.json" | sed 's|"process":{|"process":{"cwd":"/x",|' \
	>"$SCRATCH/dup.json"
mkdir "$SCRATCH/dup"
cp "$SCRATCH/dup.json" "$SCRATCH/dup/config.json"
run_hook prestart "$(hook_state $$ "$SCRATCH/dup")"
assert_eq 0 "$STATUS" "exit status with a duplicate process.cwd; output: $OUTPUT"
assert_contains "no user namespace in config.json: nothing to do" "$OUTPUT"
sed 's|"root":{|"root":{"path":"/x",|' "$SCRATCH/dup.json" >"$SCRATCH/dup/config.json"
run_hook prestart "$(hook_state $$ "$SCRATCH/dup")"
assert_eq 1 "$STATUS" "exit status with a duplicate root.path; output: $OUTPUT"
assert_contains 'config.json: root: duplicate key "path"' "$OUTPUT"

# Opted out.
run_hook prestart "$(hook_state $$ "$SCRATCH/userns" '{"org.shiftbind.shift":"false"}')"
assert_eq 0 "$STATUS" "exit status when opted out; output: $OUTPUT"
assert_contains "org.shiftbind.shift=false: not shifting, nothing to do" "$OUTPUT"

# Mismatch: this shell's own mapping is not config.json's.
actual=$(print_map /proc/$$/uid_map)
run_hook prestart "$(hook_state $$ "$SCRATCH/userns")"
assert_eq 1 "$STATUS" "exit status on a mapping mismatch; output: $OUTPUT"
assert_contains "container hooktest: /proc/$$/uid_map ($actual) does not match config.json linux.uidMappings ($map): refusing" "$OUTPUT"
run_hook createContainer "$(hook_state 0 "$SCRATCH/userns")"
assert_eq 1 "$STATUS" "exit status at createContainer; output: $OUTPUT"
assert_contains "/proc/self/uid_map ($(print_map /proc/self/uid_map)) does not match config.json" "$OUTPUT"
run_hook prestart "$(hook_state 0 "$SCRATCH/userns")"
assert_contains "state: pid: 0 is no process" "$OUTPUT"

# The container's process is pinned by a pidfd before its /proc directory
# is opened: a pid that is gone is refused by number (pidfd_open: ESRCH),
# never looked up again by path.
sh -c 'exit 0' &
gone=$!
wait "$gone"
run_hook prestart "$(hook_state "$gone" "$SCRATCH/userns")"
assert_eq 1 "$STATUS" "exit status for a pid that is gone; output: $OUTPUT"
assert_contains "state: pid $gone: No such process" "$OUTPUT"

# A process whose namespace has config.json's mapping passes the checks;
# then the hook needs the kernel's configfd, which this host lacks.
unshare -U -m sleep 60 &
ns_pid=$!
trap 'kill "$ns_pid" 2>/dev/null || true; rm -rf "$SCRATCH"' EXIT
for _ in 1 2 3 4 5 6 7 8 9 10; do
	[ "$(readlink /proc/$ns_pid/ns/user)" != "$(readlink /proc/self/ns/user)" ] && break
	sleep 0.1
done
echo "$map" >/proc/$ns_pid/uid_map
echo "$map" >/proc/$ns_pid/gid_map
run_hook prestart "$(hook_state "$ns_pid" "$SCRATCH/userns")"
assert_eq 1 "$STATUS" "exit status on a kernel without configfd; output: $OUTPUT"
assert_contains "$NO_CONFIGFD" "$OUTPUT"
kill "$ns_pid"

# prestart by a rootless runtime (not root) says which stage to use.
chmod 0755 "$SCRATCH"
HOOK=("${PARSER_NS[@]}" setpriv --reuid=65534 --regid=65534 --clear-groups "$BUILD/shiftbind-hook")
SHIFTBIND_HOOK_LOG=/dev/null run_hook prestart "$(hook_state $$ "$SCRATCH/userns")"
assert_eq 1 "$STATUS" "exit status of a non-root prestart; output: $OUTPUT"
assert_contains "prestart runs as uid 65534, not root: rootless runtimes must register the hook at createContainer (createRuntime is for rootful runtimes); run: shiftbind patch-config --rootless BUNDLE" "$OUTPUT"
HOOK=("${PARSER_NS[@]}" "$BUILD/shiftbind-hook")

# The JSON is parsed by a re-executed child that runs as shiftbind-parser
# without capabilities, under a filter that refuses every open, socket
# and connect.
SHIFTBIND_HOOK_SECCOMP_TEST=1 run_hook prestart "$(hook_state $$ "$SCRATCH/plain")"
assert_eq 0 "$STATUS" "exit status of the seccomp self-test; output: $OUTPUT"
assert_contains "parser child: uid $PARSER_UID, gid $PARSER_UID, no capabilities, re-executed" "$OUTPUT"
assert_contains "seccomp self-test (parser filter): refused with EPERM: open for reading, open for writing, socket, connect, mkdirat" "$OUTPUT"
assert_contains "no user namespace in config.json: nothing to do" "$OUTPUT" "the hook went on after the self-test"
[ ! -e /nonexistent-shiftbind-seccomp-test ] || fail "the self-test created something"

# Real root's hook needs the parser's own user, and says how to make it.
HOOK=("$BUILD/shiftbind-hook")
if ! getent passwd shiftbind-parser >/dev/null; then
	run_hook prestart "$(hook_state $$ "$SCRATCH/plain")"
	assert_eq 1 "$STATUS" "exit status without the parser's user; output: $OUTPUT"
	assert_contains "parser child: user shiftbind-parser is not in /etc/passwd: the hook parses each container's JSON as this user; create it: useradd --system" "$OUTPUT"
fi
HOOK=("${PARSER_NS[@]}" "$BUILD/shiftbind-hook")

# A newline in root.path is logged as \x0a: one message, one line.
jq '.root.path = "rootfs\nforged: line"' "$SCRATCH/plain/config.json" >"$SCRATCH/plain/c.json"
mv "$SCRATCH/plain/c.json" "$SCRATCH/plain/config.json"
run_hook prestart "$(hook_state $$ "$SCRATCH/plain")"
assert_contains 'rootfs\x0aforged: line' "$OUTPUT"
! grep -q '^forged' "$SHIFTBIND_HOOK_LOG" || fail "a forged line reached the log file"
echo "hook log:"
cat "$SHIFTBIND_HOOK_LOG"
