#!/bin/bash
# The hook confines itself before reading its input: with
# SHIFTBIND_HOOK_SECCOMP_TEST=1 it tries mkdirat, which its seccomp
# allowlist does not contain.  Seen from outside with strace: the filter
# is loaded before the first read of stdin, and mkdirat fails with EPERM
# (the same call from an unconfined process fails with ENOENT: the
# parent directory does not exist).
. "$(dirname "$0")/../lib/testlib.sh"
. "$(dirname "$0")/hooklib.bash"
require_guest
scratch_dir

path=/nonexistent-shiftbind-seccomp-test/dir
strace -o "$SCRATCH/mkdir.trace" -e trace=mkdir,mkdirat mkdir "$path" 2>/dev/null &&
	fail "mkdir $path succeeded"
assert_match '= -1 ENOENT' "$(grep -F "\"$path\"" "$SCRATCH/mkdir.trace")" "unconfined mkdirat"

id=hook-seccomp-$$
make_bundle "$SCRATCH/c" "$SHARED_IMAGE" none none /bin/probe id
state_json "$id" $$ "$SCRATCH/c" >"$SCRATCH/state"
assert_status 0 env SHIFTBIND_HOOK_SECCOMP_TEST=1 \
	strace -o "$SCRATCH/hook.trace" -e trace=seccomp,prctl,mkdirat,read \
	"$HOOK" prestart <"$SCRATCH/state"
assert_contains "shiftbind-hook: prestart: seccomp self-test: mkdirat refused with EPERM" \
	"$OUTPUT" "hook's stderr"
assert_contains "container $id: no user namespace in config.json: nothing to do" \
	"$OUTPUT" "hook's stderr (it went on after the self-test)"

trace=$(cat "$SCRATCH/hook.trace")
assert_match "mkdirat\\(AT_FDCWD, \"$path\", 0700\\) = -1 EPERM" "$trace" "the hook's mkdirat"
filter=$(grep -n -m 1 -E '^(seccomp\(SECCOMP_SET_MODE_FILTER|prctl\(PR_SET_SECCOMP, SECCOMP_MODE_FILTER).* = 0$' \
	<<<"$trace" | cut -d: -f1)
stdin=$(grep -n -m 1 '^read(0, ' <<<"$trace" | cut -d: -f1)
[ -n "$filter" ] || fail "no seccomp filter loaded in the trace: $trace"
[ -n "$stdin" ] || fail "no read of stdin in the trace: $trace"
[ "$filter" -lt "$stdin" ] || fail "stdin read (line $stdin) before the filter was loaded (line $filter): $trace"
