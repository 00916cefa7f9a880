#!/bin/bash
# Rootless podman with its normal storage (native kernel overlay, no
# fuse-overlayfs, no --rootfs) runs an image from a root-owned store it
# uses as an additional image store: after the admin's step (allow for
# the user, prepare-store) and the user's (podman-setup), the container
# sees the image's real owners.
. "$(dirname "$0")/../lib/testlib.sh"
. "$(dirname "$0")/podmanlib.bash"
podman_test_setup
# Podman 5's containers/storage lists the store under both of its option
# names (overlay.additionalImageStores too); podman 4's under one.
assert_status 0 user_podman info --format '{{.Store.GraphDriverName}} {{.Store.GraphOptions}}'
assert_match '^overlay map\[(overlay\.additionalImageStores:\[/srv/podman-store\] )?overlay\.imagestore:/srv/podman-store\]$' \
	"$(tail -n 1 <<<"$OUTPUT")" "the user's storage driver: native overlay, no mount program"

assert_status 0 as_user shiftbind podman-setup "$PODMAN_STORE"
assert_eq "$PODMAN_STORE: shifted in podman's rootless mount namespace" "$OUTPUT" "podman-setup"

assert_status 0 user_run localhost/busybox-shared /bin/probe stat "${OWNER_PATHS[@]}"
assert_real_owners "$OUTPUT" "the rootless container"
