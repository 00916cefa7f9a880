#!/bin/bash
# prepare-store opens nothing of the images to local users: every entry
# of the layers (overlay/: the layer directories, 0700 root, and their
# contents) keeps its owner and mode, so uid 65534 can neither read a
# layer's file nor run its setuid-root program from the store's path;
# only the metadata (image and layer lists, manifests, lock files, which
# hold no image file) becomes readable.  Nothing else at the store's top
# is open to uid 65534 through the store's searchable directory: not the
# defaultNetworkBackend real root's podman wrote there 0644, nor any
# other file or directory of podman's own.  Rootless podman still runs
# the store's images, reading the layers through its shift.
. "$(dirname "$0")/../lib/testlib.sh"
. "$(dirname "$0")/podmanlib.bash"
podman_test_setup prepared

# owners and modes below DIR, one line per entry
modes_below() { (cd "$1" && find . -printf '%U:%G %m %y %p\n' | sort); }

layer=$(find "$PODMAN_STORE/overlay" -path '*/diff/bin/probe-suid' -print -quit)
[ -n "$layer" ] || fail "no layer of the store holds bin/probe-suid"
podman_store_unshare
before=$(modes_below "$PODMAN_STORE/overlay")
assert_status 0 shiftbind prepare-store "$PODMAN_STORE"
assert_contains "no image file, and the layers' modes unchanged" "$OUTPUT" "prepare-store's report"
assert_eq "$before" "$(modes_below "$PODMAN_STORE/overlay")" "owners and modes of the layers after prepare-store"
assert_eq "0:0 700" "$(stat -c '%u:%g %a' "$(dirname "$(dirname "$(dirname "$layer")")")")" \
	"the layer's directory"

assert_eq "0:0 700" "$(stat -c '%u:%g %a' "$PODMAN_STORE/overlay")" "the store's overlay/"
assert_status 1 runuser -u nobody -- "$layer" id
assert_contains "Permission denied" "$OUTPUT" "uid 65534 running a layer's setuid program from the store's path"
assert_status 1 runuser -u nobody -- cat "${layer%/bin/probe-suid}/etc/shadow"
assert_contains "Permission denied" "$OUTPUT" "uid 65534 reading a layer's file"
assert_status 0 runuser -u nobody -- cat "$PODMAN_STORE/overlay-images/images.json"
[ -f "$PODMAN_STORE/defaultNetworkBackend" ] ||
	fail "real root's podman wrote no defaultNetworkBackend in $PODMAN_STORE: $(ls -A "$PODMAN_STORE")"
assert_status 1 runuser -u nobody -- cat "$PODMAN_STORE/defaultNetworkBackend"
assert_contains "Permission denied" "$OUTPUT" "uid 65534 reading the store's defaultNetworkBackend"
# At the store's top, only what rootless podman reads lets others in
# (a symbolic link's own mode grants nothing).
open=$(find "$PODMAN_STORE" -mindepth 1 -maxdepth 1 ! -type l -perm /077 \
	! \( -type d \( -name overlay-images -o -name overlay-layers \) \) \
	! \( -type f -name '*.lock' \) -printf '%m %f\n')
assert_eq "" "$open" "entries at the store's top open to group or others besides the metadata"

podman_store_share
assert_status 0 as_user shiftbind podman-setup "$PODMAN_STORE"
assert_status 0 user_run localhost/busybox-shared /bin/probe stat /etc/shadow
assert_eq "0:42 0640 /etc/shadow" "$OUTPUT" "a rootless container on the prepared store"
