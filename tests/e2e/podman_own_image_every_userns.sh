#!/bin/bash
# The user's own images (imported into its own storage, not the shared
# store) keep working in every --userns mode now that containers/storage
# idmaps lower layers: for keep-id, auto and --uidmap it idmaps the
# user's own layers with the container's namespace, an idmap of the
# user's own ids, so the image's owners are the image's, as with the
# default mapping.
. "$(dirname "$0")/../lib/testlib.sh"
. "$(dirname "$0")/podmanlib.bash"
podman_test_setup
# A layer of its own: the shared store's image with one more file (the
# same content would be the same layer, which podman finds in the store).
cp -a "$SHARED_IMAGE" "$SCRATCH/own"
echo own >"$SCRATCH/own/own-image"
tar -C "$SCRATCH/own" -cf "$SCRATCH/own.tar" .
chmod 0755 "$SCRATCH"
chmod 0644 "$SCRATCH/own.tar"
assert_status 0 user_podman import "$SCRATCH/own.tar" localhost/own

for userns in --userns=host --userns=keep-id --userns=auto --uidmap=0:1:65536; do
	assert_status 0 user_run "$userns" localhost/own /bin/probe stat "${OWNER_PATHS[@]}"
	assert_real_owners "$OUTPUT" "the user's own image with $userns"
done
assert_status 0 user_podman run --network none --name own --userns=keep-id localhost/own /bin/probe id
assert_idmapped_lowers own
