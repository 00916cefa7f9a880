#!/bin/bash
# The contrast to rootless_create_container_shifts_rootfs: the same
# rootless container without the hook sees every file of the shared image
# as nobody (65534), including the uid-1000 file, which its mapping cannot
# express either.
. "$(dirname "$0")/../lib/testlib.sh"
require_guest

bundle=$(rootless_bundle "$SHARED_IMAGE" /bin/probe stat "${OWNER_PATHS[@]}")
trap 'rm -rf "$bundle"' EXIT

assert_eq null "$(jq -c .hooks "$bundle/config.json")" "hooks in the bundle"
assert_status 0 crun_run_as "$TEST_USER" "$bundle" hook-rootless-nohook-$$
assert_eq "65534:65534 0755 /
65534:65534 0777 /bin/sh
65534:65534 0640 /etc/shadow
65534:65534 0644 /home/user/file" "$OUTPUT" "owners without the hook"
