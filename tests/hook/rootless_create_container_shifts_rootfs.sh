#!/bin/bash
# An unprivileged user runs rootless crun with its subordinate ids (0 ->
# its uid, 1.. -> its subuids) and the hook registered at createContainer:
# the hook runs inside the container's namespaces, shifts the rootfs, and
# the container sees the image's real owners.  The hook's stderr has
# its decisions and nothing about real root's log file, which a rootless
# hook does not use.
. "$(dirname "$0")/../lib/testlib.sh"
require_guest

bundle=$(rootless_bundle "$SHARED_IMAGE" /bin/probe stat "${OWNER_PATHS[@]}")
trap 'rm -rf "$bundle"' EXIT

id=hook-rootless-$$
with_hook "$bundle" --rootless
assert_eq createContainer "$(jq -r '.hooks | keys | join(",")' "$bundle/config.json")" \
	"hook stages registered by patch-config --rootless"

status=0
out=$(crun_run_as "$TEST_USER" "$bundle" "$id" 2>&1) || status=$?
stderr=$(cat "$bundle/hook.stderr" 2>/dev/null || true)
[ "$status" -eq 0 ] || fail "rootless container failed ($status): $out; hook: $stderr"
assert_eq "$REAL_OWNERS" "$out" "owners in the rootless container"
assert_contains "shiftbind-hook: createContainer: container $id: shifted $SHARED_IMAGE" \
	"$stderr" "hook's stderr"
assert_contains "shiftbind-hook: createContainer: container $id: done: 1 mount(s) shifted" \
	"$stderr" "hook's stderr"
[ -d /run/shiftbind ] || fail "the guest has no /run/shiftbind, so the log file case is not tested"
assert_eq "" "$(grep 'log file' <<<"$stderr" || true)" "complaints about the log file"
