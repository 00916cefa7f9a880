#!/bin/bash
# The failure users have today, measured: without podman-setup the same
# rootless podman cannot use the shared store's root-owned image (crun
# cannot even create /etc/mtab in it), and the store is shifted only in
# the namespace where podman-setup ran.
. "$(dirname "$0")/../lib/testlib.sh"
. "$(dirname "$0")/podmanlib.bash"
podman_test_setup
status=0
out=$(user_run localhost/busybox-shared /bin/probe stat "${OWNER_PATHS[@]}" 2>&1) || status=$?
if [ "$status" -eq 0 ]; then
	assert_contains "65534:65534 0640 /etc/shadow" "$out" "owners without podman-setup"
else
	assert_contains "permission denied" "$out" "podman's error without podman-setup"
fi
assert_status 0 as_user shiftbind podman-setup "$PODMAN_STORE"
assert_status 0 user_run localhost/busybox-shared /bin/probe stat /etc/shadow
assert_eq "0:42 0640 /etc/shadow" "$OUTPUT" "owner with podman-setup"
store_opts=$(awk -v s="$PODMAN_STORE" '$5 == s { print $6 }' /proc/self/mountinfo)
[[ ,$store_opts, != *,shift,* ]] || fail "the host's store mount was shifted: $store_opts"
