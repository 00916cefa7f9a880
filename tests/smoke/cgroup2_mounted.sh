#!/bin/bash
# crun needs the unified cgroup hierarchy with the controllers it manages.
. "$(dirname "$0")/../lib/testlib.sh"
require_guest

assert_eq cgroup2fs "$(stat -f -c %T /sys/fs/cgroup)" "filesystem on /sys/fs/cgroup"
controllers=$(cat /sys/fs/cgroup/cgroup.controllers)
for c in memory pids; do
	assert_contains "$c" "$controllers" "cgroup.controllers"
done
