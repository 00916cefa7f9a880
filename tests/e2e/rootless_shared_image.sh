#!/bin/bash
# An unprivileged user runs rootless crun with its subordinate ids and the
# hook registered at createContainer, on the same store: it sees the same
# real owners as a rootful container.
. "$(dirname "$0")/../lib/testlib.sh"
require_guest

bundle=$(rootless_bundle "$SHARED_IMAGE" /bin/probe stat "${OWNER_PATHS[@]}")
trap 'rm -rf "$bundle"' EXIT
with_hook "$bundle" --rootless
status=0
out=$(crun_run_as "$TEST_USER" "$bundle" e2e-rootless 2>&1) || status=$?
[ "$status" -eq 0 ] || fail "rootless container failed ($status): $out $(cat "$bundle/hook.stderr" 2>/dev/null)"
assert_eq "$REAL_OWNERS" "$out" "owners in the rootless container"
