#!/bin/bash
# Registered at prestart by a rootless runtime, where it cannot join the
# container's namespaces, the hook refuses with a message saying which
# stage to use, and rootless crun does not start the container.
. "$(dirname "$0")/../lib/testlib.sh"
require_guest

uid=$(id -u "$TEST_USER")
gid=$(id -g "$TEST_USER")
read -r subuid_start _ < <(subid_range "$TEST_USER" /etc/subuid)
read -r subgid_start _ < <(subid_range "$TEST_USER" /etc/subgid)
bundle=$(su "$TEST_USER" -s /bin/sh -c 'mktemp -d /tmp/hook-rootless.XXXXXX')
trap 'rm -rf "$bundle"' EXIT

id=hook-rootless-prestart-$$
make_bundle "$bundle" "$SHARED_IMAGE" "0 $uid 1,1 $subuid_start 65535" \
	"0 $gid 1,1 $subgid_start 65535" /bin/probe id
with_hook "$bundle" # the rootful registration: prestart
chown -R "$TEST_USER:" "$bundle"

status=0
out=$(crun_run_as "$TEST_USER" "$bundle" "$id" 2>&1) || status=$?
[ "$status" -ne 0 ] || fail "rootless container started with the hook at prestart: $out"
[[ $out != *uid=* ]] || fail "the container's process ran: $out"
assert_contains "shiftbind-hook: prestart: container $id: prestart runs as uid $uid, not root: rootless runtimes must register the hook at createContainer" \
	"$(cat "$bundle/hook.stderr")" "hook's stderr"
