#!/bin/bash
# Rootless podman's --userns=auto and --uidmap on an image of the shared
# store, unmodified: as for keep-id, containers/storage idmaps the store's
# layers with each container's own user namespace instead of chowning a
# copy of them for each, so every mapping sees the image's real owners
# and the user's storage grows by far less than the image per container.
. "$(dirname "$0")/../lib/testlib.sh"
. "$(dirname "$0")/podmanlib.bash"
podman_test_setup
assert_status 0 as_user shiftbind podman-setup "$PODMAN_STORE"

for userns in --userns=auto --uidmap=0:1:65536; do
	before=$(user_storage_kib)
	assert_status 0 user_podman run --network none --name mapped "$userns" \
		localhost/busybox-shared /bin/probe stat "${OWNER_PATHS[@]}"
	assert_real_owners "$OUTPUT" "the container with $userns"
	assert_idmapped_lowers mapped
	assert_storage_grew_less_than_image "$before" "a container with $userns"
	user_podman rm mapped >/dev/null
done
