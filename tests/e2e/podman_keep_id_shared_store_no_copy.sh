#!/bin/bash
# Rootless podman's --userns=keep-id on an image of the shared store,
# podman, crun and containers/storage unmodified: containers/storage's
# probe in the user's own storage passes (an idmap of the user's own
# ids), so it idmaps the store's layers, which rootless podman reaches
# through its shift, with the container's user namespace (a clone of the
# shift idmapped again through the store's mark) instead of chowning a
# copy of them.  Inside, the image's files have their real owners and the
# user's uid is its own; the user's storage grows by far less than the
# image.
. "$(dirname "$0")/../lib/testlib.sh"
. "$(dirname "$0")/podmanlib.bash"
podman_test_setup
assert_status 0 as_user shiftbind podman-setup "$PODMAN_STORE"
before=$(user_storage_kib)

assert_status 0 user_podman run --network none --name keepid --userns=keep-id \
	localhost/busybox-shared /bin/busybox sh -c "/bin/probe id && /bin/probe stat ${OWNER_PATHS[*]}"
uid=$(id -u "$TEST_USER") gid=$(id -g "$TEST_USER")
assert_eq "uid=$uid gid=$gid euid=$uid egid=$gid" "$(head -n 1 <<<"$OUTPUT")" \
	"the user's own ids in the keep-id container"
assert_real_owners "$(tail -n +2 <<<"$OUTPUT")" "the keep-id container"

assert_idmapped_lowers keepid
assert_storage_grew_less_than_image "$before" "a keep-id container"
