#!/bin/bash
# Rootless containers on the shared store write into the user's own
# storage: files created in the container are owned by the user's ids on
# disk, in the user's home, and the store is byte-for-byte and
# owner-for-owner what it was.
. "$(dirname "$0")/../lib/testlib.sh"
. "$(dirname "$0")/podmanlib.bash"
podman_test_setup
before=$(store_fingerprint)
assert_status 0 as_user shiftbind podman-setup "$PODMAN_STORE"
assert_status 0 user_podman run --network none --name writer localhost/layered \
	/bin/busybox sh -c 'echo new >/etc/passwd && echo x >/home/upper/only-upper && touch /created'
home=$(getent passwd "$TEST_USER" | cut -d: -f6)
merged_upper=$(find "$home/.local/share/containers/storage/overlay" -path '*/diff/created')
[ -n "$merged_upper" ] || fail "the container's new file is not in the user's storage"
[[ $merged_upper == "$home"/* ]] || fail "the container wrote outside the user's home: $merged_upper"
assert_eq "$(id -u "$TEST_USER")" "$(stat -c %u "$merged_upper")" "disk owner of the container's new file"
user_podman rm -f writer >/dev/null
assert_eq "$before" "$(store_fingerprint)" "the store after the containers"
