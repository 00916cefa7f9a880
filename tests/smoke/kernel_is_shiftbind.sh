#!/bin/bash
# The guest runs the kernel built from kernel-patches/BASE/, not some other
# one: its release carries the fragment's local version, is the base the
# results are named after (SUITE@BASE.NAME), and the configuration it was
# built with is the one the fragment asks for.
. "$(dirname "$0")/../lib/testlib.sh"
require_guest

release=$(uname -r)
assert_match '^[0-9]+\.[0-9]+\.[0-9]+-shiftbind$' "$release" "uname -r"
assert_eq "$(cat /run/shiftbind-expected-release)" "$release" "release the host built"
base=$(cat /run/shiftbind-expected-kernel)
[ -z "$base" ] || assert_match "^${base//./\\.}\\." "$release" "uname -r of kernel base $base"

config=$(zcat /proc/config.gz)
for option in CONFIG_USER_NS=y CONFIG_CGROUP_BPF=y CONFIG_EXT4_FS=y CONFIG_SECCOMP_FILTER=y; do
	assert_contains "$option" "$config" "/proc/config.gz"
done
