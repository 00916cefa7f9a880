#!/bin/bash
# The guest image step on an empty cache, as on a fresh machine: the first
# image is built, published and printed; a rerun with nothing changed
# reuses it; a changed input builds a second one and keeps the first.
# The base is a small stand-in (GUEST_BASE) so that this takes seconds
# instead of a debootstrap.
. "$(dirname "$0")/../lib/testlib.sh"
. "$(dirname "$0")/hook/lib.sh"
require_root
scratch_dir

build_image=$SHIFTBIND_TESTS/../rootfs-builder/build-image.sh
export SHIFTBIND_CACHE=$SCRATCH/cache GUEST_BASE=$SCRATCH/base GUEST_IMAGE_SIZE=64M

# A base with what the image step uses of it: the account files useradd
# edits, and a busybox binary for the shared image.
make_standin_base() {
	install -d "$GUEST_BASE"/{bin,etc,home,srv,usr/lib}
	printf 'root:x:0:0:root:/root:/bin/sh\n' >"$GUEST_BASE/etc/passwd"
	printf 'root:x:0:\nshadow:x:42:\n' >"$GUEST_BASE/etc/group"
	printf 'root:*:19000:0:99999:7:::\n' >"$GUEST_BASE/etc/shadow"
	install -m 755 /bin/true "$GUEST_BASE/bin/busybox"
	install -m 755 /bin/true "$GUEST_BASE/bin/bash" # the test user's shell
}

# BIN_DIR as the Makefile fills it, with a stand-in probe; the hook and
# CLI are built by the image step itself (oci-hook's install target).
make_bin_dir() {
	install -d "$SCRATCH/bin"
	printf '#!/bin/sh\necho %s\n' "$1" >"$SCRATCH/bin/probe"
	chmod 755 "$SCRATCH/bin/probe"
}

make_standin_base
make_bin_dir first
[ ! -e "$SHIFTBIND_CACHE" ] || fail "the cache must start empty"

assert_status 0 "$build_image" "$SCRATCH/bin"
first=$(tail -n 1 <<<"$OUTPUT")
assert_match "^$SHIFTBIND_CACHE/guest/rootfs-[0-9a-f]{16}\.img\$" "$first" "image path printed"
[ -s "$first" ] || fail "build-image.sh printed $first but left no image there; output: $OUTPUT"
assert_contains "filesystem volume name:   shiftbind-root" \
	"$(dumpe2fs -h "$first" 2>/dev/null | tr 'A-Z' 'a-z')" "the image is an ext4 file system"
# The test user and its subordinate ids are in the image.
assert_contains "tester:x:1001:" "$(debugfs -R 'cat /etc/passwd' "$first" 2>/dev/null)" "test user"
# The parser child's system user, which the install step creates.
assert_match "(^|"$'\n'")shiftbind-parser:x:[1-9][0-9]*:[1-9][0-9]*:" \
	"$(debugfs -R 'cat /etc/passwd' "$first" 2>/dev/null)" "the parser's user"
assert_eq "" "$(find "$SHIFTBIND_CACHE/guest" -maxdepth 1 -name '.image.*')" "scratch left in the cache"

assert_status 0 "$build_image" "$SCRATCH/bin"
assert_eq "$first" "$(tail -n 1 <<<"$OUTPUT")" "image of an unchanged rerun"
assert_eq "" "$(grep 'building guest image' <<<"$OUTPUT" || true)" "rebuild on an unchanged rerun"

make_bin_dir second
assert_status 0 "$build_image" "$SCRATCH/bin"
second=$(tail -n 1 <<<"$OUTPUT")
[ "$second" != "$first" ] || fail "a changed probe kept the image key $first"
[ -s "$second" ] && [ -s "$first" ] || fail "expected both images in the cache: $(ls "$SHIFTBIND_CACHE/guest")"
