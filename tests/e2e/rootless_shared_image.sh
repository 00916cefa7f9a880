#!/bin/bash
# An unprivileged user runs rootless crun with its subordinate ids and the
# hook registered at createContainer, on the same store: it sees the same
# real owners as a rootful container.
. "$(dirname "$0")/../lib/testlib.sh"
require_guest

uid=$(id -u "$TEST_USER")
gid=$(id -g "$TEST_USER")
read -r subuid_start _ < <(subid_range "$TEST_USER" /etc/subuid)
read -r subgid_start _ < <(subid_range "$TEST_USER" /etc/subgid)
bundle=$(su "$TEST_USER" -s /bin/sh -c 'mktemp -d /tmp/rootless.XXXXXX')
trap 'rm -rf "$bundle"' EXIT

make_bundle "$bundle" "$SHARED_IMAGE" "0 $uid 1,1 $subuid_start 65535" \
	"0 $gid 1,1 $subgid_start 65535" /bin/probe stat "${OWNER_PATHS[@]}"
with_hook "$bundle" --rootless
chown -R "$TEST_USER:" "$bundle"
status=0
out=$(crun_run_as "$TEST_USER" "$bundle" e2e-rootless 2>&1) || status=$?
[ "$status" -eq 0 ] || fail "rootless container failed ($status): $out $(cat "$bundle/hook.stderr" 2>/dev/null)"
assert_eq "$REAL_OWNERS" "$out" "owners in the rootless container"
