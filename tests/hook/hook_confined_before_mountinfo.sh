#!/bin/bash
# Before the hook reads anything the container can influence (mountinfo
# lines with the mount points it chose), it confines itself: in a
# shifted rootful container with SHIFTBIND_HOOK_SECCOMP_TEST=1, after it
# joined the container's mount namespace and before it shifted, opening
# for writing or read-write, openat2, a new socket, connect, mkdirat,
# configfd_open, mount_setattr and open_tree are refused with EPERM,
# while a read-only open still works; the shift prepared before then
# succeeds under the filter.
. "$(dirname "$0")/../lib/testlib.sh"
require_guest
scratch_dir

id=hook-confined-$$
make_bundle "$SCRATCH/c" "$SHARED_IMAGE" "0 100000 65536" "0 100000 65536" \
	/bin/probe stat "${OWNER_PATHS[@]}"
with_hook "$SCRATCH/c"
jq '.hooks.createRuntime[0].env = ["SHIFTBIND_HOOK_SECCOMP_TEST=1"]' "$SCRATCH/c/config.json" \
	>"$SCRATCH/config.json"
mv "$SCRATCH/config.json" "$SCRATCH/c/config.json"
assert_status 0 crun_run "$SCRATCH/c" "$id"
assert_eq "$REAL_OWNERS" "$OUTPUT" "owners inside the container"

stderr=$(cat "$SCRATCH/c/hook.stderr")
assert_contains "container $id: seccomp self-test (hook filter): refused with EPERM: open for writing, open read-write, openat2, socket, connect, mkdirat, configfd_open, mount_setattr, open_tree; allowed: open for reading" \
	"$stderr" "hook's stderr"
line_of() { grep -n -m 1 -F "$1" <<<"$stderr" | cut -d: -f1; }
joined=$(line_of "joined the mount namespace")
confined=$(line_of "seccomp self-test (hook filter)")
shifted=$(line_of "shifted $SHARED_IMAGE")
[ -n "$joined" ] && [ -n "$shifted" ] || fail "hook's stderr lacks the join or the shift: $stderr"
[ "$joined" -lt "$confined" ] && [ "$confined" -lt "$shifted" ] ||
	fail "the hook confined itself at line $confined, expected between the join ($joined) and the shift ($shifted): $stderr"
