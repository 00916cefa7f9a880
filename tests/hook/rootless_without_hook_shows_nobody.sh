#!/bin/bash
# The contrast to rootless_create_container_shifts_rootfs: the same
# rootless container without the hook sees every file of the shared image
# as nobody (65534), including the uid-1000 file, which its mapping cannot
# express either.
. "$(dirname "$0")/../lib/testlib.sh"
require_guest

uid=$(id -u "$TEST_USER")
gid=$(id -g "$TEST_USER")
read -r subuid_start _ < <(subid_range "$TEST_USER" /etc/subuid)
read -r subgid_start _ < <(subid_range "$TEST_USER" /etc/subgid)
bundle=$(su "$TEST_USER" -s /bin/sh -c 'mktemp -d /tmp/hook-rootless.XXXXXX')
trap 'rm -rf "$bundle"' EXIT

make_bundle "$bundle" "$SHARED_IMAGE" "0 $uid 1,1 $subuid_start 65535" \
	"0 $gid 1,1 $subgid_start 65535" /bin/probe stat "${OWNER_PATHS[@]}"
assert_eq null "$(jq -c .hooks "$bundle/config.json")" "hooks in the bundle"
chown -R "$TEST_USER:" "$bundle"
assert_status 0 crun_run_as "$TEST_USER" "$bundle" hook-rootless-nohook-$$
assert_eq "65534:65534 0755 /
65534:65534 0777 /bin/sh
65534:65534 0640 /etc/shadow
65534:65534 0644 /home/user/file" "$OUTPUT" "owners without the hook"
