#!/bin/bash
# An unprivileged user runs rootless crun with its subordinate ids (0 ->
# its uid, 1.. -> its subuids) and the hook registered at createContainer:
# the hook runs inside the container's namespaces, shifts the rootfs, and
# the container sees the image's real owners.
. "$(dirname "$0")/../lib/testlib.sh"
require_guest

uid=$(id -u "$TEST_USER")
gid=$(id -g "$TEST_USER")
read -r subuid_start _ < <(subid_range "$TEST_USER" /etc/subuid)
read -r subgid_start _ < <(subid_range "$TEST_USER" /etc/subgid)
bundle=$(su "$TEST_USER" -s /bin/sh -c 'mktemp -d /tmp/hook-rootless.XXXXXX')
trap 'rm -rf "$bundle"' EXIT

id=hook-rootless-$$
make_bundle "$bundle" "$SHARED_IMAGE" "0 $uid 1,1 $subuid_start 65535" \
	"0 $gid 1,1 $subgid_start 65535" /bin/probe stat "${OWNER_PATHS[@]}"
with_hook "$bundle" --rootless
assert_eq createContainer "$(jq -r '.hooks | keys | join(",")' "$bundle/config.json")" \
	"hook stages registered by patch-config --rootless"
chown -R "$TEST_USER:" "$bundle"

status=0
out=$(crun_run_as "$TEST_USER" "$bundle" "$id" 2>&1) || status=$?
stderr=$(cat "$bundle/hook.stderr" 2>/dev/null || true)
[ "$status" -eq 0 ] || fail "rootless container failed ($status): $out; hook: $stderr"
assert_eq "$REAL_OWNERS" "$out" "owners in the rootless container"
assert_contains "shiftbind-hook: createContainer: container $id: shifted $SHARED_IMAGE" \
	"$stderr" "hook's stderr"
assert_contains "shiftbind-hook: createContainer: container $id: done: 1 mount(s) shifted" \
	"$stderr" "hook's stderr"
