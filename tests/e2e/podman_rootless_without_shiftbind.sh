#!/bin/bash
# The failure users have today, measured: without podman-setup the same
# rootless podman cannot use the shared store's root-owned image (its
# layers are 0700 root, and were they readable, crun could not even
# create /etc/mtab in it), and the store is shifted only in the namespace
# where podman-setup ran.
. "$(dirname "$0")/../lib/testlib.sh"
. "$(dirname "$0")/podmanlib.bash"
podman_test_setup
status=0
out=$(user_run localhost/busybox-shared /bin/probe stat "${OWNER_PATHS[@]}" 2>&1) || status=$?
if [ "$status" -eq 0 ]; then
	assert_contains "65534:65534 0640 /etc/shadow" "$out" "owners without podman-setup"
else
	# Unshifted, the store's layer directories are out of its reach, so
	# podman looks for the layer in the user's own storage (podman 4
	# stats it, podman 5 checks it with faccessat).
	assert_match "(stat|faccessat) .*/overlay/[0-9a-f]{64}: no such file or directory|permission denied" \
		"$out" "podman's error without podman-setup"
fi
assert_status 0 as_user shiftbind podman-setup "$PODMAN_STORE"
assert_status 0 user_run localhost/busybox-shared /bin/probe stat /etc/shadow
assert_eq "0:42 0640 /etc/shadow" "$OUTPUT" "owner with podman-setup"
store_opts=$(awk -v s="$PODMAN_STORE" '$5 == s { print $6 }' /proc/self/mountinfo)
[[ ,$store_opts, != *,shift,* ]] || fail "the host's store mount was shifted: $store_opts"
