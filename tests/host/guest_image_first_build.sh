#!/bin/bash
# The guest image step on an empty cache, as on a fresh machine: the first
# image is built, published and printed; a rerun with nothing changed
# reuses it; a changed input builds a second one and keeps the first.
# Its name carries the Debian release of the kernel base's guest
# (rootfs-RELEASE-KEY.img); another release's image is another kind,
# kept beside it.  With a kernel base's selftests the image is that
# base's (rootfs-BASE-RELEASE-KEY.img): two bases get two images from
# one guest base, and pruning old images of one base leaves the other's
# and the selftest-less ones alone.  The base is a small stand-in (GUEST_BASE),
# and so are the selftests, the package and apt-get, so that this takes
# seconds instead of a debootstrap, a package build and kernel builds.
. "$(dirname "$0")/../lib/testlib.sh"
. "$(dirname "$0")/hook/lib.sh"
require_root
scratch_dir

build_image=$SHIFTBIND_TESTS/../rootfs-builder/build-image.sh
export SHIFTBIND_CACHE=$SCRATCH/cache GUEST_BASE=$SCRATCH/base GUEST_IMAGE_SIZE=64M

# A base with what the image step uses of it: the account files useradd
# edits, a busybox binary for the shared image, and a stand-in apt-get
# (with the real bash it runs on) that records how it was called and
# installs what the package would: the conffile the site then edits.
make_standin_base() {
	local lib
	install -d "$GUEST_BASE"/{bin,etc,home,srv,usr/bin,usr/lib,var/log}
	printf 'root:x:0:0:root:/root:/bin/sh\n' >"$GUEST_BASE/etc/passwd"
	printf 'root:x:0:\nshadow:x:42:\n' >"$GUEST_BASE/etc/group"
	printf 'root:*:19000:0:99999:7:::\n' >"$GUEST_BASE/etc/shadow"
	install -m 755 /bin/true "$GUEST_BASE/bin/busybox"
	install -m 755 /bin/bash "$GUEST_BASE/bin/bash"
	for lib in $(ldd /bin/bash | grep -o '/[^ ]*'); do
		install -D -m 755 "$lib" "$GUEST_BASE$lib"
	done
	# bash's builtins only: the directory is made here.
	install -d "$GUEST_BASE/etc/shiftbind"
	cat >"$GUEST_BASE/usr/bin/apt-get" <<'EOF_APT'
#!/bin/bash
echo "$*" >>/var/log/apt-get.args
echo "# the package's allow.conf" >/etc/shiftbind/allow.conf
EOF_APT
	chmod 755 "$GUEST_BASE/usr/bin/apt-get"
}

# BIN_DIR as the Makefile fills it, with a stand-in probe and package (the
# hook's test programs are built by the image step itself).
make_bin_dir() {
	install -d "$SCRATCH/bin/deb"
	printf '#!/bin/sh\necho %s\n' "$1" >"$SCRATCH/bin/probe"
	chmod 755 "$SCRATCH/bin/probe"
	echo "stand-in package" >"$SCRATCH/bin/deb/shiftbind_0.0-test_amd64.deb"
}

make_standin_base
make_bin_dir first
[ ! -e "$SHIFTBIND_CACHE" ] || fail "the cache must start empty"

# release_of BASE: the Debian release of BASE's guest (scripts/lib.sh).
release_of() {
	with_scripts_lib guest_release "$1" || fail "no guest release for kernel base $1"
}
default_release=$(release_of "${KERNEL:-$(with_scripts_lib eval 'echo "$DEFAULT_KERNEL"')}")

assert_status 0 "$build_image" "$SCRATCH/bin"
first=$(tail -n 1 <<<"$OUTPUT")
assert_match "^$SHIFTBIND_CACHE/guest/rootfs-$default_release-[0-9a-f]{16}\.img\$" "$first" "image path printed"
assert_contains "building the Debian $default_release guest image" "$OUTPUT" "what the image step says it builds"
[ -s "$first" ] || fail "build-image.sh printed $first but left no image there; output: $OUTPUT"
assert_contains "filesystem volume name:   shiftbind-root" \
	"$(dumpe2fs -h "$first" 2>/dev/null | tr '[:upper:]' '[:lower:]')" "the image is an ext4 file system"
# The test user and its subordinate ids are in the image.
assert_contains "tester:x:1001:" "$(debugfs -R 'cat /etc/passwd' "$first" 2>/dev/null)" "test user"
# The package, kept in the image and installed from there with apt-get
# in the image's root, then the site's allow.conf over its conffile.
assert_contains "shiftbind_0.0-test_amd64.deb" \
	"$(debugfs -R 'ls -l /usr/lib/shiftbind/deb' "$first" 2>/dev/null)" "the package in the image"
assert_eq "install -y --no-install-recommends /usr/lib/shiftbind/deb/shiftbind_0.0-test_amd64.deb" \
	"$(debugfs -R 'cat /var/log/apt-get.args' "$first" 2>/dev/null)" "how the image step ran apt-get"
assert_eq "/srv/images rw suid owner=0 owner=tester" \
	"$(debugfs -R 'cat /etc/shiftbind/allow.conf' "$first" 2>/dev/null)" "the site's allow.conf"
assert_eq "" "$(find "$SHIFTBIND_CACHE/guest" -maxdepth 1 -name '.image.*')" "scratch left in the cache"

assert_status 0 "$build_image" "$SCRATCH/bin"
assert_eq "$first" "$(tail -n 1 <<<"$OUTPUT")" "image of an unchanged rerun"
assert_eq "" "$(grep 'building guest image' <<<"$OUTPUT" || true)" "rebuild on an unchanged rerun"

make_bin_dir second
assert_status 0 "$build_image" "$SCRATCH/bin"
second=$(tail -n 1 <<<"$OUTPUT")
[ "$second" != "$first" ] || fail "a changed probe kept the image key $first"
{ [ -s "$second" ] && [ -s "$first" ]; } || fail "expected both images in the cache: $(ls "$SHIFTBIND_CACHE/guest")"

# Another release (GUEST_RELEASE) is another image, of its own kind.
other=sid
GUEST_RELEASE=$other assert_status 0 "$build_image" "$SCRATCH/bin"
other_image=$(tail -n 1 <<<"$OUTPUT")
assert_match "^$SHIFTBIND_CACHE/guest/rootfs-$other-[0-9a-f]{16}\.img\$" "$other_image" "image path of release $other"
{ [ -s "$second" ] && [ -s "$first" ]; } || fail "the $other image pruned a $default_release one: $(ls "$SHIFTBIND_CACHE/guest")"

# Stand-in selftests, as scripts/kselftests.sh lays them out.
install -d "$SCRATCH/kselftests/configfd"
printf '#!/bin/sh\necho 1..0\n' >"$SCRATCH/kselftests/configfd/configfd_test"
chmod 755 "$SCRATCH/kselftests/configfd/configfd_test"

# build_for BASE: the image with the stand-in selftests for BASE; sets $image.
build_for() {
	KERNEL=$1 assert_status 0 "$build_image" "$SCRATCH/bin" "$SCRATCH/kselftests"
	image=$(tail -n 1 <<<"$OUTPUT")
	assert_match "^$SHIFTBIND_CACHE/guest/rootfs-${1//./\\.}-$(release_of "$1")-[0-9a-f]{16}\.img\$" "$image" "image path for kernel $1"
}
build_for 6.1
old_61=$image
assert_contains "configfd_test" "$(debugfs -R 'ls -l /usr/lib/shiftbind/kselftests/configfd' "$old_61" 2>/dev/null)" \
	"the selftests in the image"
build_for 6.12
[ "$image" != "$old_61" ] || fail "two kernel bases got one image: $image"
old_612=$image

# A new image keeps the two newest of its kind beside it: after three
# more 6.1 images the oldest 6.1 one is gone, and no other.
for probe in third fourth fifth; do
	make_bin_dir "$probe"
	build_for 6.1
done
[ ! -e "$old_61" ] || fail "the oldest 6.1 image $old_61 was kept beside three newer ones"
for kept in "$old_612" "$first" "$second" "$other_image"; do
	[ -s "$kept" ] || fail "building 6.1 images pruned $kept: $(ls "$SHIFTBIND_CACHE/guest")"
done
