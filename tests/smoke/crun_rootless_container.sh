#!/bin/bash
# An unprivileged user runs a rootless crun container with its subordinate
# id range (newuidmap) on the shared image.
. "$(dirname "$0")/../lib/testlib.sh"
require_guest

bundle=$(rootless_bundle "$SHARED_IMAGE" /bin/probe id)
trap 'rm -rf "$bundle"' EXIT
assert_status 0 crun_run_as "$TEST_USER" "$bundle" smoke-rootless
assert_eq "uid=0 gid=0 euid=0 egid=0" "$OUTPUT" "identity inside the rootless container"
