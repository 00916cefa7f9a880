#!/bin/bash
# An unprivileged user namespace can be created and maps its creator to 0.
. "$(dirname "$0")/../lib/testlib.sh"
require_guest

assert_status 0 su "$TEST_USER" -s /bin/sh -c 'unshare -Ur sh -c "id -u; cat /proc/self/uid_map"'
assert_eq "0" "$(head -n 1 <<<"$OUTPUT")" "uid inside unshare -Ur"
user_uid=$(id -u "$TEST_USER")
assert_match "^ +0 +$user_uid +1$" "$(tail -n 1 <<<"$OUTPUT")" "uid_map inside unshare -Ur"
