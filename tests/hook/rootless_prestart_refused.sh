#!/bin/bash
# Registered at the rootful stage (createRuntime, or an old bundle's
# prestart) by a rootless runtime, where it cannot join the container's
# namespaces, the hook refuses with a message saying which stage to use,
# and rootless crun does not start the container.
. "$(dirname "$0")/../lib/testlib.sh"
require_guest

bundle=$(rootless_bundle "$SHARED_IMAGE" /bin/probe id)
trap 'rm -rf "$bundle"' EXIT

id=hook-rootless-prestart-$$
uid=$(id -u "$TEST_USER")
with_hook "$bundle" # the rootful registration: createRuntime

status=0
out=$(crun_run_as "$TEST_USER" "$bundle" "$id" 2>&1) || status=$?
[ "$status" -ne 0 ] || fail "rootless container started with the hook at createRuntime: $out"
[[ $out != *uid=* ]] || fail "the container's process ran: $out"
assert_contains "shiftbind-hook: createRuntime: container $id: createRuntime runs as uid $uid, not root: rootless runtimes must register the hook at createContainer (createRuntime is for rootful runtimes); run: shiftbind patch-config --rootless BUNDLE" \
	"$(cat "$bundle/hook.stderr")" "hook's stderr"
