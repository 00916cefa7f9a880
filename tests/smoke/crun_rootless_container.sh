#!/bin/bash
# An unprivileged user runs a rootless crun container with its subordinate
# id range (newuidmap) on the shared image.
. "$(dirname "$0")/../lib/testlib.sh"
require_guest

uid=$(id -u "$TEST_USER")
gid=$(id -g "$TEST_USER")
read -r subuid_start _ < <(subid_range "$TEST_USER" /etc/subuid)
read -r subgid_start _ < <(subid_range "$TEST_USER" /etc/subgid)
bundle=$(su "$TEST_USER" -s /bin/sh -c 'mktemp -d /tmp/rootless.XXXXXX')
trap 'rm -rf "$bundle"' EXIT

make_bundle "$bundle" "$SHARED_IMAGE" "0 $uid 1,1 $subuid_start 65535" \
	"0 $gid 1,1 $subgid_start 65535" /bin/probe id
chown -R "$TEST_USER:" "$bundle"
assert_status 0 crun_run_as "$TEST_USER" "$bundle" smoke-rootless
assert_eq "uid=0 gid=0 euid=0 egid=0" "$OUTPUT" "identity inside the rootless container"
