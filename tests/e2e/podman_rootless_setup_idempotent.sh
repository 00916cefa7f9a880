#!/bin/bash
# Both steps are idempotent, and each says what is missing: prepare-store
# a second time changes nothing; podman-setup a second time leaves the
# shift as it is; podman-setup on a store not marked for the user names
# the admin's command; as root it is refused; prepare-store on a
# directory that is no podman overlay store says how to fill one.
. "$(dirname "$0")/../lib/testlib.sh"
. "$(dirname "$0")/podmanlib.bash"
podman_test_setup prepared
status=0
out=$(as_user shiftbind podman-setup "$PODMAN_STORE" 2>&1) || status=$?
[ "$status" -ne 0 ] || fail "podman-setup succeeded on an unmarked store: $out"
assert_contains "$PODMAN_STORE is not marked allow-shift in podman's rootless mount namespace: real root runs \`shiftbind allow --owner YOUR-USER $PODMAN_STORE\`" \
	"$out" "podman-setup on an unmarked store"

podman_store_share
podman_store_unshare
assert_status 0 shiftbind prepare-store "$PODMAN_STORE"
assert_eq "$PODMAN_STORE: prepared for rootless podman: 0 directories and 0 files of its metadata made readable by all users (no image file, and the layers' modes unchanged), 0 opaque directories marked user.overlay.opaque" \
	"$OUTPUT" "prepare-store a second time"
podman_store_share
user_podman_fresh
assert_status 0 as_user shiftbind podman-setup "$PODMAN_STORE"
assert_status 0 as_user shiftbind podman-setup "$PODMAN_STORE"
assert_eq "$PODMAN_STORE: already shifted in podman's rootless mount namespace" "$OUTPUT" \
	"podman-setup a second time"
assert_eq 1 "$(user_podman unshare awk -v s="$PODMAN_STORE" \
	'$5 == s && ("," $6 ",") ~ /,shift,/ { n++ } END { print n + 0 }' /proc/self/mountinfo 2>/dev/null)" \
	"shift mounts of the store in podman's namespace"

status=0
out=$(shiftbind podman-setup "$PODMAN_STORE" 2>&1) || status=$?
[ "$status" -ne 0 ] || fail "podman-setup as root succeeded: $out"
assert_contains "podman-setup is for a rootless podman user, not root" "$out" "podman-setup as root"

mkdir -p /srv/not-a-store-$$
status=0
out=$(shiftbind prepare-store /srv/not-a-store-$$ 2>&1) || status=$?
rmdir /srv/not-a-store-$$
[ "$status" -ne 0 ] || fail "prepare-store succeeded on an empty directory: $out"
assert_contains "is not a containers/storage store of the overlay driver" "$out" "prepare-store elsewhere"
