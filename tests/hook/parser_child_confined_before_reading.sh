#!/bin/bash
# The container's JSON is parsed by a child of the hook that gives up
# everything first: seen from outside with strace -f, the child becomes
# shiftbind-parser and loads its seccomp filter before it reads any of
# its input (its stdin, the hook's pipe); with
# SHIFTBIND_HOOK_SECCOMP_TEST=1 it then tries to open a file for reading
# and for writing, create a socket, connect and mkdirat, and each is
# refused with EPERM.  The hook itself reads config.json for it; before
# its filter the child opens only what the dynamic loader maps when it
# re-executes itself (the package links libyajl and libc dynamically:
# ld.so.cache and shared libraries, read-only), and after it nothing.
. "$(dirname "$0")/../lib/testlib.sh"
. "$(dirname "$0")/hooklib.bash"
require_guest
scratch_dir

id=hook-privsep-$$
make_bundle "$SCRATCH/c" "$SHARED_IMAGE" none none /bin/probe id
state_json "$id" $$ "$SCRATCH/c" >"$SCRATCH/state"
puid=$(id -u shiftbind-parser)
pgid=$(id -g shiftbind-parser)
assert_status 0 env SHIFTBIND_HOOK_SECCOMP_TEST=1 \
	strace -ff -o "$SCRATCH/hook.trace" \
	-e trace=setresuid,capset,prctl,seccomp,read,openat,socket,connect,mkdirat \
	"$HOOK" prestart <"$SCRATCH/state"
assert_contains "shiftbind-hook: prestart: parser child: uid $puid, gid $pgid, no capabilities, re-executed" \
	"$OUTPUT" "hook's stderr"
assert_contains "seccomp self-test (parser filter): refused with EPERM: open for reading, open for writing, socket, connect, mkdirat" \
	"$OUTPUT" "hook's stderr"
assert_contains "container $id: no user namespace in config.json: nothing to do" \
	"$OUTPUT" "hook's stderr (it went on after the self-test)"

# strace -ff: one file per process, hook.trace.PID, calls never split;
# strace pads before " = RESULT".
child_file=$(grep -l -E "^setresuid\\($puid, $puid, $puid\\) += 0\$" "$SCRATCH"/hook.trace.*) ||
	fail "no process of the hook became uid $puid: $(grep -h setresuid "$SCRATCH"/hook.trace.*)"
child_trace=$(cat "$child_file")
filter=$(grep -n -m 1 -E '^prctl\(PR_SET_SECCOMP, SECCOMP_MODE_FILTER.* = 0$' <<<"$child_trace" | cut -d: -f1)
first_read=$(grep -n -m 1 '^read(0,' <<<"$child_trace" | cut -d: -f1)
[ -n "$filter" ] || fail "the parser child loaded no filter: $child_trace"
[ -n "$first_read" ] || fail "the parser child read nothing of its input: $child_trace"
[ "$filter" -lt "$first_read" ] || fail "the parser child read its input (line $first_read) before its filter (line $filter): $child_trace"
loader_open='^openat\(AT_FDCWD, "(/etc/ld\.so\.cache|/(usr/)?lib/[^"]+\.so(\.[0-9]+)*)", O_RDONLY\|O_CLOEXEC\) += [0-9]+$'
other_opens=$(head -n "$filter" <<<"$child_trace" | grep -E '^openat\(' | grep -v -E "$loader_open" || true)
assert_eq "" "$other_opens" "what the parser child opened before its filter, besides the dynamic loader's libraries"
setuid=$(grep -n -m 1 "^setresuid($puid" <<<"$child_trace" | cut -d: -f1)
[ "$setuid" -lt "$filter" ] || fail "the parser child became shiftbind-parser after its filter: $child_trace"

# Each of the child's calls after its filter that names a file or a
# socket was refused; the hook opened config.json.
after=$(tail -n +"$filter" <<<"$child_trace")
refused=$(grep -E '^(openat|socket|connect|mkdirat)\(' <<<"$after")
[ -n "$refused" ] || fail "the self-test made no call: $after"
if grep -v -q '= -1 EPERM' <<<"$refused"; then
	fail "a call of the parser child was not refused: $refused"
fi
assert_match "openat\\(AT_FDCWD, \"/proc/self/status\", O_RDONLY\\|O_CLOEXEC\\) += -1 EPERM" "$refused" \
	"the child's read-only open"
hook_trace=$(grep -L "setresuid($puid" "$SCRATCH"/hook.trace.* | xargs cat)
assert_match "openat\\([0-9]+, \"config.json\", [^)]*\\) += [0-9]+" "$(grep config.json <<<"$hook_trace")" "the hook's open of config.json"
