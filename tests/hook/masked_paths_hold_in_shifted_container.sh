#!/bin/bash
# crun's later steps still apply to the rootfs the hook shifted in place,
# rootful (createRuntime) and rootless (createContainer): /proc/kcore is
# masked by /dev/null, /proc/acpi by a read-only tmpfs mounted on it, and
# with root.readonly the shifted root refuses writes (EROFS).  A hook that
# mounted a shifted clone over the rootfs instead would leave crun masking
# the covered tree (docs/kernel-api.md, "Why the hook shifts the
# runtime's rootfs in place"): these would all fail.
. "$(dirname "$0")/../lib/testlib.sh"
require_guest
scratch_dir

# The masks are only tested where there is something to mask.
[ -e /proc/kcore ] || fail "the guest kernel has no /proc/kcore: the masked path cannot be tested"
[ -d /proc/acpi ] || fail "the guest kernel has no /proc/acpi: the masked directory cannot be tested"

readonly SCRIPT='
	/bin/busybox stat -c "kcore %F %t:%T" /proc/kcore
	/bin/busybox grep " /proc/acpi " /proc/self/mountinfo
	/bin/probe stat / /etc/shadow
	/bin/probe create /masked-test-'$$'
	true'

# readonly_bundle BUNDLE: root.readonly, as in the runtimes' default profiles.
readonly_bundle() {
	jq '.root.readonly = true' "$1/config.json" >"$1/config.json.new"
	mv "$1/config.json.new" "$1/config.json"
}

# check_container OUTPUT WHAT: what every shifted container must show.
check_container() {
	assert_contains "kcore character special file 1:3" "$1" "/proc/kcore in the $2 container"
	assert_match " /proc/acpi ro[, ].* - tmpfs " "$1" "/proc/acpi's mount in the $2 container"
	assert_contains "0:0 0755 /" "$1" "owner of / in the $2 container (shifted)"
	assert_contains "0:42 0640 /etc/shadow" "$1" "owner of /etc/shadow in the $2 container"
	assert_contains "create /masked-test-$$: errno=EROFS" "$1" "write to the read-only root of the $2 container"
}

make_bundle "$SCRATCH/c" "$SHARED_IMAGE" "0 100000 65536" "0 100000 65536" /bin/sh -c "$SCRIPT"
readonly_bundle "$SCRATCH/c"
with_hook "$SCRATCH/c"
assert_status 0 crun_run "$SCRATCH/c" "hook-masked-$$"
check_container "$OUTPUT" rootful

bundle=$(rootless_bundle "$SHARED_IMAGE" /bin/sh -c "$SCRIPT")
trap 'rm -rf "$bundle" "$SCRATCH"' EXIT
readonly_bundle "$bundle"
with_hook "$bundle" --rootless
status=0
out=$(crun_run_as "$TEST_USER" "$bundle" "hook-masked-rl-$$" 2>&1) || status=$?
[ "$status" -eq 0 ] || fail "rootless container failed ($status): $out; hook: $(cat "$bundle/hook.stderr" 2>/dev/null)"
check_container "$out" rootless
[ ! -e "$SHARED_IMAGE/masked-test-$$" ] || fail "a file was created in the image"
