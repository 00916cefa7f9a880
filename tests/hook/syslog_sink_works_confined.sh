#!/bin/bash
# The hook's syslog sink works once the hook is confined (issue 25,
# point 8: under the hook's filter glibc's syslog(3) asked for a new
# socket(AF_UNIX, SOCK_DGRAM|SOCK_CLOEXEC), was refused, and every later
# line was silently lost).  The hook makes its syslog socket before
# confining and only sends on it afterwards:
#   - with no syslog daemon (the guest runs none), the confined hook
#     makes no call its filter refuses: strace of a shifted container's
#     hook shows no "= -1 EPERM" after its seccomp filter (glibc's
#     syslog asked for a socket at every line there);
#   - with a stand-in daemon on /dev/log (busybox syslogd), the lines
#     the hook logs under its filter (its seccomp self-test, the shift,
#     "done") reach it, after the filter's self-test line, as daemon.info
#     from shiftbind-hook[PID], with the container's id.
. "$(dirname "$0")/../lib/testlib.sh"
. "$(dirname "$0")/hooklib.bash"
require_guest
scratch_dir

[ ! -e /dev/log ] || fail "/dev/log exists before the test: the guest runs no syslog daemon (found $(ls -l /dev/log))"
syslogd=
# Under set -e a trap's failed command is the test's status: syslogd,
# when there is one, ends by the signal (wait: 143).
trap '{ kill "$syslogd" && wait "$syslogd"; } 2>/dev/null || true; rm -f /dev/log; rm -rf "$SCRATCH"' EXIT

# No daemon: nothing of the confined hook's logging is refused.
id=hook-syslog-none-$$
mkdir "$SCRATCH/trace"
make_bundle "$SCRATCH/a" "$SHARED_IMAGE" "0 100000 65536" "0 100000 65536" \
	/bin/probe stat "${OWNER_PATHS[@]}"
with_wrapper_hook "$SCRATCH/a" hook-strace.bash "$SCRATCH/trace"
status=0
out=$(crun_run "$SCRATCH/a" "$id" 2>&1) || status=$?
[ "$status" -eq 0 ] || fail "container failed ($status): $out; hook: $(cat "$SCRATCH/trace/stderr")"
assert_eq "$REAL_OWNERS" "$out" "owners inside (the hook ran under strace)"
trace=$(cat "$SCRATCH/trace/trace")
filter=$(grep -n -m 1 -E '^prctl\(PR_SET_SECCOMP, SECCOMP_MODE_FILTER.* = 0$' <<<"$trace" | cut -d: -f1) ||
	fail "the hook loaded no seccomp filter: $trace"
confined=$(tail -n +"$filter" <<<"$trace")
refused=$(grep -E '= -1 EPERM' <<<"$confined" || true)
assert_eq "" "$refused" "calls refused by the hook's filter (syslog's new socket was one)"
head -n "$filter" <<<"$trace" | grep -qE '^socket\(AF_UNIX, SOCK_DGRAM\|SOCK_CLOEXEC, 0\) += [0-9]+$' ||
	fail "the hook made no syslog socket before its filter: $trace"

# A stand-in daemon: the confined hook's lines reach it.
busybox syslogd -n -O "$SCRATCH/syslog" &
syslogd=$!
for ((i = 0; i < 200; i++)); do
	[ -S /dev/log ] && break
	sleep 0.05
done
[ -S /dev/log ] || fail "busybox syslogd made no /dev/log"
id=hook-syslog-$$
make_bundle "$SCRATCH/b" "$SHARED_IMAGE" "0 100000 65536" "0 100000 65536" \
	/bin/probe stat "${OWNER_PATHS[@]}"
with_hook "$SCRATCH/b"
jq '.hooks.createRuntime[0].env = ["SHIFTBIND_HOOK_SECCOMP_TEST=1"]' "$SCRATCH/b/config.json" \
	>"$SCRATCH/config.json"
mv "$SCRATCH/config.json" "$SCRATCH/b/config.json"
assert_status 0 crun_run "$SCRATCH/b" "$id"
assert_eq "$REAL_OWNERS" "$OUTPUT" "owners inside the container"
for ((i = 0; i < 100; i++)); do
	grep -q "container $id: done" "$SCRATCH/syslog" 2>/dev/null && break
	sleep 0.05
done
lines=$(grep -F "container $id: " "$SCRATCH/syslog" || true)
prefix="daemon\\.info shiftbind-hook\\[[0-9]+\\]: createRuntime: container $id: "
line_of() { grep -n -m 1 -E "$prefix$1" <<<"$lines" | cut -d: -f1; }
self_test=$(line_of "seccomp self-test \\(hook filter\\): refused with EPERM: .*configfd_open")
shifted=$(line_of "shifted $SHARED_IMAGE\$")
done_line=$(line_of "done: 1 mount\\(s\\) shifted\$")
[ -n "$self_test" ] && [ -n "$shifted" ] && [ -n "$done_line" ] ||
	fail "the stand-in syslog lacks the confined hook's lines (self-test '$self_test', shift '$shifted', done '$done_line'): $lines"
[ "$self_test" -lt "$shifted" ] && [ "$shifted" -lt "$done_line" ] ||
	fail "expected the filter's self-test, then the shift, then done: $lines"
