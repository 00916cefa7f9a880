#!/bin/bash
# build-image.sh BIN_DIR [KSELFTEST_DIR]: print the path of the guest root
# image of the kernel base KERNEL (default: scripts/lib.sh's
# DEFAULT_KERNEL), building it first when any of its inputs changed.
#
# The guest runs the Debian release of that base (scripts/lib.sh's
# guest_release: bookworm for 6.1; GUEST_RELEASE=SUITE for another).
# The image is that release's debootstrapped base
# (rootfs-builder/debootstrap.sh) plus
# an overlay of the project's files: the guest init, the test suites, the
# programs built into BIN_DIR, the kernel selftests built into
# KSELFTEST_DIR (scripts/kselftests.sh), a test user with subordinate ids, and the
# shared image store.  The hook and the CLI come as a user gets them: the
# package BIN_DIR/deb/shiftbind_*.deb (make userspace builds it) is
# installed with apt-get in the image, which keeps it for the package
# tests (e2e.package_*).  The overlay is assembled first (a second), its
# content hash keys the image, and only a new key costs a copy of the base,
# the package install and `mkfs.ext4 -d` (seconds, no loop mount, no
# debootstrap).
#
# Selftests are built per kernel base, so an image with them is one base's:
# rootfs-BASE-RELEASE-KEY.img, which the key includes too.  Without them
# (make demo, shell, bench) the image, rootfs-RELEASE-KEY.img, boots on
# any base whose guest runs RELEASE.  Each of these kinds keeps its own
# newest images (prune_old_images), so a run on two bases never deletes
# the image of the other; a release's debootstrapped base is shared by
# all of its images.
#
# GUEST_VARIANT=cluster builds the image of the cluster suite's nodes
# (tests/cluster/, docs/cluster.md): the base with
# rootfs-builder/packages-cluster (Slurm, munge, NFS), the site's
# configuration of configs/cluster/, a second user outside the cluster's
# group, and the shared image packed as erofs and squashfs image files in
# /srv/shared/images; rootfs-cluster-RELEASE-KEY.img, without selftests.
#
# GUEST_BASE=DIR uses DIR as the base instead of the debootstrapped one
# (tests/host/guest_image_first_build.sh builds from a small stand-in);
# GUEST_IMAGE_SIZE sets the image size (default 3G, sparse).
set -euo pipefail
. "$(dirname "$0")/../scripts/lib.sh"

readonly GUEST_LIB=usr/lib/shiftbind
readonly IMAGE_SIZE=${GUEST_IMAGE_SIZE:-3G}
readonly TEST_USER=tester TEST_UID=1001
readonly SUBID_START=300000 SUBID_COUNT=65536
work= # scratch directory, removed on exit
kselftests= # KSELFTEST_DIR, optional
kind= # the kernel base of the kselftests, empty without them
release= # the Debian suite of the guest
variant=${GUEST_VARIANT:-} # cluster, or empty for the ordinary guest
readonly CLUSTER_USER=outsider CLUSTER_UID=1002 CLUSTER_GROUP=hpc CLUSTER_GID=2000
readonly OUTSIDER_SUBID_START=400000
deb= # the shiftbind package, BIN_DIR/deb/shiftbind_*.deb

install_project_files() {
	local overlay=$1 bin=$2 suite
	install -d "$overlay/$GUEST_LIB/tests"
	install -m 755 "$SHIFTBIND_ROOT/rootfs-builder/guest/init" \
		"$SHIFTBIND_ROOT/rootfs-builder/guest/demo.sh" "$overlay/$GUEST_LIB/"
	install -m 755 "$bin/probe" "$overlay/$GUEST_LIB/probe"
	# The fuzz suite's programs (tests/fuzz/src), when built.
	if compgen -G "$bin/fuzz/*" >/dev/null; then
		install -d "$overlay/$GUEST_LIB/fuzz"
		install -m 755 "$bin"/fuzz/* "$overlay/$GUEST_LIB/fuzz/"
	fi
	# The benchmark's programs and its in-guest driver (make bench), when built.
	if [ -d "$bin/bench" ]; then
		install -d "$overlay/$GUEST_LIB/bench"
		install -m 755 "$bin"/bench/* "$SHIFTBIND_ROOT/bench/guest.sh" \
			"$SHIFTBIND_ROOT/bench/podman.sh" "$overlay/$GUEST_LIB/bench/"
	fi
	# The man pages and the programs of their EXAMPLES (the Makefile
	# builds them from the pages), for man.man_examples_run.
	install -d "$overlay/$GUEST_LIB/man" "$overlay/$GUEST_LIB/man-examples"
	install -m 644 "$SHIFTBIND_ROOT"/docs/man/*.[1-8] "$overlay/$GUEST_LIB/man/"
	if compgen -G "$bin/man-examples/*" >/dev/null; then
		find "$bin/man-examples" -maxdepth 1 -type f -perm -u+x \
			-exec install -m 755 {} "$overlay/$GUEST_LIB/man-examples/" \;
	fi
	# The package of the hook and the CLI, installed by make_image.
	install -D -m 644 "$deb" "$overlay/$GUEST_LIB/deb/${deb##*/}"
	# The hook. suite's attacker, which runs the hook's own code
	# (tests/hook/src), and the host's CLI, which prepares the shared image.
	make -s -C "$SHIFTBIND_ROOT/oci-hook" O="$bin/oci-hook" all guest-tests >&2
	install -m 755 "$bin/oci-hook/hook-confined-attacker" "$overlay/$GUEST_LIB/"
	# The guest's stores live under /srv, nosuid from boot on: no local
	# user may run an image's setuid program from a store's host path,
	# marked or not (shiftbind-security(7), "Set-ID programs of a store").
	install -d "$overlay/etc"
	printf '%s\n' '# Image stores: no set-ID program runs from their host paths.' \
		'/srv /srv none bind,nosuid,nodev 0 0' >"$overlay/etc/fstab"
	[ -z "$kselftests" ] || install_kselftests "$overlay/$GUEST_LIB/kselftests"
	# Guest suites only: host/ runs on the host, probe/ is source.
	for suite in "$SHIFTBIND_ROOT"/tests/*/; do
		case $(basename "$suite") in host | probe) continue ;; esac
		cp -a "$suite" "$overlay/$GUEST_LIB/tests/"
		# C sources of a suite's programs are built on the host (Makefile).
		rm -rf "$overlay/$GUEST_LIB/tests/$(basename "$suite")/src"
	done
}

# Only the test programs, not the objects and logs next to them.
install_kselftests() {
	local dest=$1 dir program
	for dir in "$kselftests"/*/; do
		install -d "$dest/$(basename "$dir")"
		for program in "$dir"*; do
			[ -f "$program" ] && [ -x "$program" ] &&
				install -m 755 "$program" "$dest/$(basename "$dir")/"
		done
	done
}

# The shared container image: a small busybox tree owned by real root, as
# an image store holds it, with what the tests look at: a setuid-root
# binary, /etc/shadow owned by root:shadow, a file of uid 1000, and the
# mount targets runtimes bind into a container.
install_shared_image() {
	local image=$1/srv/images/busybox base=$2 bin=$3 applet
	install -d -m 755 "$image"/{bin,etc,dev,proc,sys,tmp,run,root,home/user}
	chmod 1777 "$image/tmp"
	chmod 700 "$image/root"
	install -m 755 "$base/bin/busybox" "$image/bin/busybox"
	for applet in sh ls cat id stat touch mkdir rm sleep echo true false mount; do
		ln -s busybox "$image/bin/$applet"
	done
	install -m 755 "$bin/probe" "$image/bin/probe"
	install -m 4755 "$bin/probe" "$image/bin/probe-suid"
	printf 'root:x:0:0:root:/root:/bin/sh\nuser:x:1000:1000:user:/home/user:/bin/sh\nnobody:x:65534:65534:nobody:/:/bin/false\n' >"$image/etc/passwd"
	printf 'root:x:0:\nshadow:x:42:\nuser:x:1000:\nnogroup:x:65534:\n' >"$image/etc/group"
	printf 'root:*:19000:0:99999:7:::\nuser:*:19000:0:99999:7:::\n' >"$image/etc/shadow"
	chown 0:42 "$image/etc/shadow"
	chmod 640 "$image/etc/shadow"
	: >"$image/etc/hosts"
	: >"$image/etc/resolv.conf"
	echo shiftbind >"$image/etc/hostname"
	echo "owned by uid 1000" >"$image/home/user/file"
	chown -R 1000:1000 "$image/home/user"
	chown 0:0 "$1/srv" "$1/srv/images"
	# The mount targets runtimes bind into a container, with the tool
	# the docs tell image owners to use.
	"$bin/oci-hook/shiftbind" prepare-image "$image" >&2
}

assemble_overlay() {
	local overlay=$1 base=$2 bin=$3
	[ -x "$bin/probe" ] || die "missing $bin/probe; build it with 'make guest'"
	install_project_files "$overlay" "$bin"
	install_shared_image "$overlay" "$base" "$bin"
	[ "$variant" != cluster ] || install_cluster_files "$overlay"
}

# install_cluster_files OVERLAY: the site's configuration of the cluster
# nodes (configs/cluster/, as docs/cluster.md has an admin write it) and
# the rig's boot of a node (rootfs-builder/guest/cluster-node.sh).
install_cluster_files() {
	local o=$1 c=$SHIFTBIND_ROOT/configs/cluster
	install -m 755 "$SHIFTBIND_ROOT/rootfs-builder/guest/cluster-node.sh" "$o/$GUEST_LIB/"
	install -D -m 644 "$c/slurm.conf" "$c/cgroup.conf" -t "$o/etc/slurm/"
	install -m 755 "$c/prolog-scratch.sh" "$c/epilog-scratch.sh" "$o/etc/slurm/"
	install -D -m 644 "$c/exports" "$o/etc/exports"
	install -D -m 644 "$c/nfs.conf" "$o/etc/nfs.conf.d/cluster.conf"
	install -m 644 "$c/hosts" "$o/etc/hosts"
	cat "$c/fstab" >>"$o/etc/fstab"
	install -D -m 644 "$c/shiftbind-allow-refresh.path" "$c/shiftbind-allow-refresh.service" \
		-t "$o/etc/systemd/system/"
	install -D -m 644 "$c/shiftbind-allow-slurmd.conf" \
		"$o/etc/systemd/system/shiftbind-allow.service.d/cluster.conf"
	install -D -m 755 "$c/cluster-image-switch" "$c/node-reboot" -t "$o/usr/local/sbin/"
	install -d -m 755 "$o/srv/shared" "$o/srv/cluster/erofs" "$o/srv/cluster/squashfs" \
		"$o/etc/shiftbind/images"
	ln -s /srv/shared/images/busybox-v1.erofs "$o/etc/shiftbind/images/busybox.erofs"
	ln -s /srv/shared/images/busybox-v1.squashfs "$o/etc/shiftbind/images/busybox.squashfs"
}

# configure_cluster ROOT: what needs the staging copy's own tools: the
# cluster's group (the test user a member) and a user outside it, both
# with subordinate ids; and the image files the nodes mount, packed from
# the shared image by the guest's mkfs.erofs and mksquashfs: a directory
# holding busybox/ (the rootfs) with etc/image-version "v1".  Made here,
# after the key: their bytes (timestamps, UUIDs) differ at every build.
configure_cluster() {
	local root=$1 src=/tmp/cluster-image-src
	groupadd --root "$root" --gid "$CLUSTER_GID" "$CLUSTER_GROUP"
	usermod --root "$root" -a -G "$CLUSTER_GROUP" "$TEST_USER"
	useradd --root "$root" --create-home --uid "$CLUSTER_UID" --shell /bin/bash "$CLUSTER_USER"
	# One range of its own, in place of any useradd chose.
	sed -i "/^$CLUSTER_USER:/d" "$root/etc/subuid" "$root/etc/subgid"
	echo "$CLUSTER_USER:$OUTSIDER_SUBID_START:$SUBID_COUNT" >>"$root/etc/subuid"
	echo "$CLUSTER_USER:$OUTSIDER_SUBID_START:$SUBID_COUNT" >>"$root/etc/subgid"
	install -m 644 "$SHIFTBIND_ROOT/configs/cluster/allow.conf" "$root/etc/shiftbind/allow.conf"
	install -d -m 0711 "$root$src"
	cp -a "$root/srv/images/busybox" "$root$src/busybox"
	echo v1 >"$root$src/busybox/etc/image-version"
	install -d -m 0755 "$root/srv/shared/images"
	if ! { chroot "$root" mkfs.erofs /srv/shared/images/busybox-v1.erofs "$src" &&
		chroot "$root" mksquashfs "$src" /srv/shared/images/busybox-v1.squashfs -noappend -quiet; } \
		>"$work/mkfs.log" 2>&1; then
		cat "$work/mkfs.log" >&2
		die "packing the cluster's image files in the $release guest image failed (above); are erofs-utils and squashfs-tools in rootfs-builder/packages?"
	fi
	chmod 0644 "$root"/srv/shared/images/busybox-v1.*
	rm -rf "${root:?}$src"
}

# Content hash of a directory tree: names, modes, owners, link targets and
# file contents, independent of timestamps.
tree_hash() {
	tar -C "$1" --sort=name --mtime=@0 --numeric-owner -cf - . | sha256sum | cut -c1-16
}

# Edits to the base that need the guest's own tools, on the staging copy.
configure_users() {
	local root=$1
	# --root: the host's useradd edits the copy's own /etc (no tools of
	# the copy run, so a stand-in base works too).
	useradd --root "$root" --create-home --uid "$TEST_UID" --shell /bin/bash "$TEST_USER"
	echo "$TEST_USER:$SUBID_START:$SUBID_COUNT" >"$root/etc/subuid"
	echo "$TEST_USER:$SUBID_START:$SUBID_COUNT" >"$root/etc/subgid"
	# Nobody but root may list the store; everyone must be able to walk
	# through it, because runtimes resolve the rootfs path as the
	# container's root, an unprivileged host uid (shiftbind-security(7),
	# "Safe use").
	chmod 0711 "$root/srv/images"
	echo shiftbind-guest >"$root/etc/hostname"
}

# install_package ROOT: apt-get install of the overlay's shiftbind package
# in the staging copy ROOT, as an administrator installs it: apt resolves
# its dependencies (the base holds them: the image has no package lists),
# and its maintainer scripts run in ROOT (the parser's system user,
# shiftbind-allow.service enabled).
install_package() {
	local root=$1 deb
	deb=$(cd "$root" && echo "$GUEST_LIB"/deb/shiftbind_*.deb)
	if ! DEBIAN_FRONTEND=noninteractive chroot "$root" \
		apt-get install -y --no-install-recommends "/$deb" >"$work/apt-get.log" 2>&1; then
		tail -n 20 "$work/apt-get.log" >&2
		cp "$work/apt-get.log" "$SHIFTBIND_CACHE/guest/package-install-failed.log"
		die "installing /$deb in the $release guest image failed (log: $SHIFTBIND_CACHE/guest/package-install-failed.log); is a dependency missing from $release's lines of rootfs-builder/packages?"
	fi
}

# configure_site ROOT: what the guest's administrator sets up after the
# install: the guest's store in /etc/shiftbind/allow.conf (the package's
# conffile), delegated to real root's (rootful) and the test user's
# (rootless) containers.  Read-write and suid, explicitly (a mark is
# read-only and ignores set-ID bits by default): the tests write through
# shifts, and the image's setuid probe runs as the container's root in its
# shift (the host path stays nosuid).
configure_site() {
	[ -f "$1/etc/shiftbind/allow.conf" ] ||
		die "the shiftbind package installed no /etc/shiftbind/allow.conf in the guest image; check debian/ (make deb, host.deb_contents)"
	echo "/srv/images rw suid owner=0 owner=$TEST_USER" >"$1/etc/shiftbind/allow.conf"
}

make_image() {
	local image=$1 base=$2 overlay=$3
	[ -f "$image" ] && return 0
	check_free_space "$SHIFTBIND_CACHE/guest" 4000
	log "building the Debian $release guest image $image"
	cp -a "$base" "$work/root"
	cp -a "$overlay/." "$work/root/"
	configure_users "$work/root"
	install_package "$work/root"
	configure_site "$work/root"
	[ "$variant" != cluster ] || configure_cluster "$work/root"
	mkfs.ext4 -q -F -L shiftbind-root -d "$work/root" "$work/rootfs.img" "$IMAGE_SIZE" >/dev/null
	prune_old_images 2
	mv "$work/rootfs.img" "$image"
}

# image_name KEY: the file name of the image of this kind with KEY.
image_name() { echo "rootfs-${variant:+$variant-}${kind:+$kind-}$release-$1.img"; }

# prune_old_images KEEP: delete all but the KEEP newest cached images of
# this kind (up to $IMAGE_SIZE of sparse file each; a run in progress may
# still be copying an older one, and another kind's may be in use).
# Having none is the normal first run: find(1), unlike a glob given to
# ls(1), succeeds when nothing matches.
prune_old_images() {
	local keep=$1 old=()
	mapfile -t old < <(find "$SHIFTBIND_CACHE/guest" -maxdepth 1 \
		-name "$(image_name '????????????????')" \
		-printf '%T@ %p\n' | sort -rn | cut -d' ' -f2- | tail -n "+$((keep + 1))")
	[ "${#old[@]}" -eq 0 ] || rm -f -- "${old[@]}"
}

main() {
	local bin=${1:?usage: build-image.sh BIN_DIR [KSELFTEST_DIR]} base key image debs
	# Absolute: oci-hook/'s make runs in another directory.
	bin=$(realpath -- "$bin")
	kselftests=${2:-}
	debs=("$bin"/deb/shiftbind_*.deb)
	if [ "${#debs[@]}" -ne 1 ] || [ ! -f "${debs[0]}" ]; then
		die "expected one shiftbind package in $bin/deb/, found: $(find "$bin/deb" -maxdepth 1 -name '*.deb' -printf '%f ' 2>/dev/null); build it with 'make userspace'"
	fi
	deb=${debs[0]}
	if [ -n "$kselftests" ]; then
		kind=${KERNEL:-$DEFAULT_KERNEL}
		# Only a label here (kernel.sh, which built the selftests, checked
		# the base), but one that goes into a file name.
		[[ $kind =~ ^[0-9]+(\.[0-9]+)+$ ]] ||
			die "KERNEL='$kind' is not a kernel base such as $DEFAULT_KERNEL; set it to the base the selftests in $kselftests were built for"
		[ -d "$kselftests" ] || die "no selftests at $kselftests; build them with 'KERNEL=$kind scripts/kselftests.sh'"
	fi
	release=$(guest_release "${KERNEL:-$DEFAULT_KERNEL}") || exit 1
	case $variant in
	'') ;;
	cluster) [ -z "$kselftests" ] || die "the cluster image holds no selftests; build it without KSELFTEST_DIR" ;;
	*) die "GUEST_VARIANT='$variant' is not a guest variant; unset it, or set it to cluster" ;;
	esac
	require_cmd mkfs.ext4 e2fsprogs
	base=${GUEST_BASE:-$("$SHIFTBIND_ROOT/rootfs-builder/debootstrap.sh" "$release" "$variant")} || exit 1
	[ -d "$base" ] || die "guest base $base is not a directory; unset GUEST_BASE to debootstrap one"
	mkdir -p "$SHIFTBIND_CACHE/guest"
	work=$(mktemp -d "$SHIFTBIND_CACHE/guest/.image.XXXXXX")
	trap 'rm -rf "$work"' EXIT
	assemble_overlay "$work/overlay" "$base" "$bin"
	key=$(hash_string "${variant:+$variant }$kind $release $(basename "$base") $(tree_hash "$work/overlay") \
		$(hash_files "$0")")
	image=$SHIFTBIND_CACHE/guest/$(image_name "$key")
	with_lock image make_image "$image" "$base" "$work/overlay"
	echo "$image"
}

main "$@"
