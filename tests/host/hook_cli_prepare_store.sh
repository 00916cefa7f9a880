#!/bin/bash
# shiftbind prepare-store (release build) on a store laid out as real
# root's podman lays out an overlay store:
#   - the metadata (overlay-images/ and overlay-layers/ with their
#     lists, manifests and locks, the store's lock files) becomes
#     readable by all, the store searchable; the layers (overlay/, each
#     layer's directory, link file and contents) keep their modes
#   - everything else at the store's top (podman's defaultNetworkBackend
#     and db.sql, 0644, its libpod/, 0755) is made private to root, so
#     that the searchable store shows no user what rootless podman does
#     not read; the report names them
#   - a live graphroot (a container listed, a secret kept) is refused,
#     unchanged, unless --force
#   - a directory with trusted.overlay.opaque gets user.overlay.opaque
#     with the same value; one without gets none
#   - a second run changes nothing and says so (0 / 0 / 0)
#   - a directory that is no overlay store, and a store under a directory
#     others can write, are refused with what to do
#   - podman-setup as root is refused (it is the rootless user's step)
. "$(dirname "$0")/../lib/testlib.sh"
. "$(dirname "$0")/hook/lib.sh"
require_root
scratch_dir

build_oci_hook all
cli=$BUILD/shiftbind

# Under /srv (root's, 0755, on a disk file system: user.* xattrs, which
# tmpfs lacks before Linux 6.6): /tmp is 1777 and /var/lib every
# service's state, which the store checks refuse.
mkdir -p /srv
base=$(mktemp -d /srv/shiftbind-prepare-store.XXXXXX)
chmod 0755 "$base"
trap 'rm -rf "$base" "$SCRATCH"' EXIT
store=$base/store
layer=$store/overlay/0123abcd
mkdir -p "$layer/diff/home" "$layer/diff/etc" "$store/overlay/l" \
	"$store/overlay-images/img1" "$store/overlay-layers"
echo '[]' >"$store/overlay-layers/layers.json"
echo manifest >"$store/overlay-images/img1/manifest"
echo L1 >"$layer/link"
echo secret >"$layer/diff/etc/shadow"
touch "$store/storage.lock" "$store/overlay-layers/layers.lock"
# What real root's podman leaves at a store's top besides: 0644 files
# (podman writes defaultNetworkBackend so), a directory others can search.
echo netavark >"$store/defaultNetworkBackend"
echo sqlite >"$store/db.sql"
mkdir "$store/libpod"
echo state >"$store/libpod/bolt_state.db"
chmod 0644 "$store/defaultNetworkBackend" "$store/db.sql" "$store/libpod/bolt_state.db"
chmod 0755 "$store/libpod"
chmod 0700 "$store/overlay" "$layer" "$store/overlay-images" "$store/overlay-images/img1" \
	"$store/overlay-layers"
chmod 0600 "$store/overlay-layers/layers.json" "$store/overlay-images/img1/manifest" \
	"$layer/link" "$layer/diff/etc/shadow" "$store/storage.lock"
chmod 0755 "$store"
python3 -c 'import os, sys; os.setxattr(sys.argv[1], "trusted.overlay.opaque", b"y")' \
	"$layer/diff/home"
# Links in the metadata and in a layer lead outside: never followed.
echo secret >"$base/outside-file"
chmod 0600 "$base/outside-file"
mkdir "$base/outside-dir"
python3 -c 'import os, sys; os.setxattr(sys.argv[1], "trusted.overlay.opaque", b"y")' \
	"$base/outside-dir"
ln -s "$base/outside-file" "$store/overlay-images/img1/link-out"
ln -s "$base/outside-dir" "$layer/diff/link-out"

assert_status 0 "$cli" prepare-store "$store"
assert_eq "$store: prepared for rootless podman: 3 directories and 3 files of its metadata made readable by all users (no image file, and the layers' modes unchanged), 1 opaque directories marked user.overlay.opaque" \
	"$(sed -n 1p <<<"$OUTPUT")" "report"
hidden="$store: 3 entries at its top that rootless podman does not read made private to their owner (chmod go-rwx), since every user can now search the store's directory: "
assert_eq "$hidden" "$(sed -n 2p <<<"$OUTPUT" | cut -c "1-${#hidden}")" "report of the entries made private"
# In the order the directory lists them.
assert_eq "db.sql defaultNetworkBackend libpod" \
	"$(sed -n 2p <<<"$OUTPUT" | cut -c "$((${#hidden} + 1))-" | tr -d , | tr ' ' '\n' | sort | paste -sd' ')" \
	"the entries made private"
assert_eq 2 "$(wc -l <<<"$OUTPUT")" "lines of the report"
modes=$(cd "$store" && find . -printf '%m %p\n' | sort -k2)
assert_eq ". 755
./db.sql 600
./defaultNetworkBackend 600
./libpod 700
./libpod/bolt_state.db 644
./overlay 700
./overlay-images 755
./overlay-images/img1 755
./overlay-images/img1/link-out 777
./overlay-images/img1/manifest 644
./overlay-layers 755
./overlay-layers/layers.json 644
./overlay-layers/layers.lock 644
./overlay/0123abcd 700
./overlay/0123abcd/diff 755
./overlay/0123abcd/diff/etc 755
./overlay/0123abcd/diff/etc/shadow 600
./overlay/0123abcd/diff/home 755
./overlay/0123abcd/diff/link-out 777
./overlay/0123abcd/link 600
./overlay/l 755
./storage.lock 644" "$(awk '{ print $2, $1 }' <<<"$modes")" "modes after prepare-store"
# What a local user reaches from the store's path: the metadata, not
# podman's other files.
assert_status 0 setpriv --reuid=65534 --regid=65534 --clear-groups cat "$store/overlay-images/img1/manifest"
for f in defaultNetworkBackend db.sql libpod/bolt_state.db; do
	assert_status 1 setpriv --reuid=65534 --regid=65534 --clear-groups cat "$store/$f"
	assert_contains "Permission denied" "$OUTPUT" "uid 65534 reading the store's $f"
done
opaque() {
	python3 -c 'import os, sys
try:
    print(os.getxattr(sys.argv[1], "user.overlay.opaque").decode())
except OSError:
    print("none")' "$1"
}
assert_eq y "$(opaque "$layer/diff/home")" "user.overlay.opaque of the opaque directory"
assert_eq 600 "$(stat -c %a "$base/outside-file")" "a file outside the store, linked from its metadata"
assert_eq none "$(opaque "$base/outside-dir")" "a directory outside the store, linked from a layer"
assert_eq none "$(opaque "$layer/diff/etc")" "user.overlay.opaque of another directory"

assert_status 0 "$cli" prepare-store "$store"
assert_eq "$store: prepared for rootless podman: 0 directories and 0 files of its metadata made readable by all users (no image file, and the layers' modes unchanged), 0 opaque directories marked user.overlay.opaque" \
	"$OUTPUT" "a second run"

# A live graphroot: refused as it is, then with --force.
live_refused() {
	local before
	before=$(cd "$store" && find . -printf '%m %p\n' | sort)
	assert_status 1 "$cli" prepare-store "$store"
	assert_contains "refusing \`$store\`: it is a live podman graphroot ($1)" "$OUTPUT" "prepare-store on a store with $1"
	assert_eq "$before" "$(cd "$store" && find . -printf '%m %p\n' | sort)" "modes after the refusal"
	assert_status 0 "$cli" prepare-store --force "$store"
}
mkdir -p "$store/overlay-containers" "$store/secrets/filedriver"
echo '[]' >"$store/overlay-containers/containers.json"
echo '{}' >"$store/secrets/filedriver/secretsdata.json"
assert_status 0 "$cli" prepare-store "$store"
chmod 0600 "$store/overlay-layers/layers.json"
echo '[{"id":"c1","layer":"0123abcd"}]' >"$store/overlay-containers/containers.json"
live_refused "overlay-containers/containers.json lists containers"
echo '[]' >"$store/overlay-containers/containers.json"
echo '{"s1":"c2VjcmV0"}' >"$store/secrets/filedriver/secretsdata.json"
chmod 0600 "$store/overlay-layers/layers.json"
live_refused "secrets/ holds secrets"

mkdir "$base/empty"
assert_status 1 "$cli" prepare-store "$base/empty"
assert_contains "$base/empty is not a containers/storage store of the overlay driver (no overlay/ and overlay-layers/layers.json); fill it with: podman --root $base/empty --storage-driver overlay" \
	"$OUTPUT" "a directory that is no store"

# A store below a system directory is refused as `allow` refuses it
# (systemdirs.c), a bind of one too; --force prepares it.
sysbase=$(mktemp -d /var/lib/shiftbind-prepare-store.XXXXXX)
trap 'rm -rf "$base" "$sysbase" "$SCRATCH"' EXIT
chmod 0755 "$sysbase"
cp -a "$store" "$sysbase/store"
assert_status 1 "$cli" prepare-store "$sysbase/store"
assert_contains "refusing to mark \`$sysbase/store\` allow-shift: it is below /var/lib (every service's state)" \
	"$OUTPUT" "prepare-store below /var/lib"
assert_status 0 "$cli" prepare-store --force "$sysbase/store"

chmod 0777 "$base"
assert_status 1 "$cli" prepare-store "$store"
assert_contains "is writable by its group and others" "$OUTPUT" "a store under a world-writable directory"
chmod 0755 "$base"

assert_status 1 "$cli" podman-setup "$store"
assert_contains "podman-setup is for a rootless podman user, not root" "$OUTPUT" "podman-setup as root"
