#!/bin/bash
# The hook's seccomp filters refuse nothing its processes need, libc's
# own calls included (issue 47: the parser child's filter refused
# getrandom, which glibc 2.36's first malloc makes for its tcache key,
# and clock_gettime(CLOCK_MONOTONIC), glibc's fallback, a syscall where
# the clock source has no vDSO as on 6.1; libc swallows both EPERMs).
# A real container start with the hook, every process traced:
#   - rootful: `strace -ff crun run` (crun starts the hook, the hook its
#     parser child);
#   - rootless: the hook registered by patch-config --rootless, run by
#     crun under strace -ff (hook-strace-all.bash): crun itself cannot run
#     under an unprivileged tracer, which drops newuidmap's privileges.
# In each, both processes of the hook (its binary executed, and the
# parser child it re-executes) load a filter, and after it no call of
# either returns EPERM or ENOSYS (the filters' answer: tools/seccomp-gen.c)
# and none gets SIGSYS (their kill); the container shows the image's
# real owners.
. "$(dirname "$0")/../lib/testlib.sh"
. "$(dirname "$0")/hooklib.bash"
require_guest
scratch_dir

# check_hook_traces DIR WHAT: DIR/trace.PID from strace -ff; the hook's
# processes are those that executed its binary (the hook by its path,
# the parser child by fd, as argv[0] "shiftbind-hook" "parser").
check_hook_traces() {
	local dir=$1 what=$2 file filter after bad hooks=0 parsers=0
	for file in "$dir"/trace.*; do
		grep -q -E "^execve(at)?\\(.*(\"$HOOK\", |\\[\"shiftbind-hook\", \"parser\").*\\) += 0\$" "$file" ||
			continue
		filter=$(grep -n -m 1 -E '^prctl\(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, .*\) += 0$' "$file" | cut -d: -f1)
		[ -n "$filter" ] ||
			fail "$what: process ${file##*.} of the hook loaded no seccomp filter (the container has a user namespace, so both the hook and its parser child must): $(cat "$file")"
		if grep -q '^execveat(.*"shiftbind-hook", "parser"' "$file"; then
			parsers=$((parsers + 1))
		else
			hooks=$((hooks + 1))
		fi
		after=$(tail -n +"$((filter + 1))" "$file")
		bad=$(grep -E '= -1 (EPERM|ENOSYS) |SIGSYS' <<<"$after" || true)
		[ -z "$bad" ] ||
			fail "$what: process ${file##*.} of the hook had calls refused after its seccomp filter (line $filter of its trace): allow what the process needs in oci-hook/tools/seccomp-gen.c, or stop making the call:
$bad"
	done
	[ "$hooks.$parsers" = 1.1 ] ||
		fail "$what: expected the traces of 1 hook and 1 parser child in $dir, found $hooks and $parsers (strace -ff follows forks: did the hook run? $(ls "$dir"))"
}

# Rootful: crun and everything it starts under strace -ff.
id=hook-filter-$$
mkdir "$SCRATCH/trace"
make_bundle "$SCRATCH/c" "$SHARED_IMAGE" "0 100000 65536" "0 100000 65536" \
	/bin/probe stat "${OWNER_PATHS[@]}"
with_hook "$SCRATCH/c"
# strace under TCG is slow: patch-config's 10 s timeout would be the test.
jq --arg h "$HOOK" '.hooks[] |= map(if .path == $h then .timeout = 120 else . end)' \
	"$SCRATCH/c/config.json" >"$SCRATCH/c/config.json.new"
mv "$SCRATCH/c/config.json.new" "$SCRATCH/c/config.json"
status=0
out=$(strace -ff -o "$SCRATCH/trace/trace" crun --cgroup-manager=cgroupfs run -b "$SCRATCH/c" "$id" 2>&1) ||
	status=$?
[ "$status" -eq 0 ] ||
	fail "rootful container under strace -ff failed ($status): $out; hook: $(cat "$SCRATCH/c/hook.stderr" 2>/dev/null)"
assert_eq "$REAL_OWNERS" "$out" "owners inside the rootful container (crun under strace)"
check_hook_traces "$SCRATCH/trace" "rootful start"

# Rootless: the user's crun runs the hook under strace -ff.
bundle=$(rootless_bundle "$SHARED_IMAGE" /bin/probe stat "${OWNER_PATHS[@]}")
trap 'rm -rf "$bundle" "$SCRATCH"' EXIT
id=hook-filter-rootless-$$
with_hook "$bundle" --rootless
stage=$(jq -r --arg h "$HOOK" '.hooks | to_entries[] | select(.value[].path == $h) | .key' "$bundle/config.json")
[ -n "$stage" ] || fail "patch-config --rootless registered no $HOOK: $(jq -c .hooks "$bundle/config.json")"
jq --arg h "$HOOK" --arg w "$HOOK_SUITE_DIR/hook-strace-all.bash" --arg out "$bundle/trace" \
	--arg stage "$stage" \
	'.hooks[$stage] |= map(if .path == $h then .path = $w | .args = [$w, $out, $stage] | .timeout = 120 else . end)' \
	"$bundle/config.json" >"$bundle/config.json.new"
mv "$bundle/config.json.new" "$bundle/config.json"
mkdir "$bundle/trace"
status=0
out=$(crun_run_as "$TEST_USER" "$bundle" "$id" 2>&1) || status=$?
[ "$status" -eq 0 ] ||
	fail "rootless container with the hook under strace failed ($status): $out; hook: $(cat "$bundle/hook.stderr" 2>/dev/null)"
assert_eq "$REAL_OWNERS" "$out" "owners inside the rootless container (the hook under strace)"
check_hook_traces "$bundle/trace" "rootless start"
