#!/bin/bash
# The guest runs the Debian release its kernel base names
# (scripts/lib.sh's GUEST_RELEASES: the host passes it as
# shiftbind.guest_release=SUITE), so that each base's results are those
# of its release's runtimes; the result says which release ran.
. "$(dirname "$0")/../lib/testlib.sh"
require_guest

expected=$(cat /run/shiftbind-expected-guest-release 2>/dev/null || true)
[ -n "$expected" ] ||
	fail "no expected release on the kernel command line (shiftbind.guest_release=SUITE); boot the guest through scripts/test.sh, which passes it"
# shellcheck source=/dev/null # the guest's own
codename=$(. /etc/os-release && echo "${VERSION_CODENAME:-}")
assert_eq "$expected" "$codename" "VERSION_CODENAME in the guest's /etc/os-release"
# Its point release too (base-files' /etc/debian_version): the base was
# debootstrapped from that suite, not merely labelled.
declare -A major=([bookworm]=12 [trixie]=13)
[ -z "${major[$expected]:-}" ] ||
	assert_match "^${major[$expected]}\.[0-9]+\$" "$(cat /etc/debian_version)" "/etc/debian_version of $expected"
note "Debian $(cat /etc/debian_version) ($codename), crun $(crun --version | awk 'NR == 1 { print $3 }'), podman $(podman --version | awk '{ print $3 }'), systemd $(dpkg-query -W -f '${Version}' systemd)"
