#!/bin/bash
# deb.sh [shiftbind] [kernel]: build Debian packages into $SHIFTBIND_OUT/deb/
# and print the paths of the .deb files: shiftbind, the hook and the CLI
# (debian/); kernel, the patched kernel of each base (linux-image-*,
# linux-headers-*, from the cached build: scripts/kernel.sh deb).  Both by
# default.
#
# dpkg-buildpackage writes into the tree it builds (debian/build,
# debian/shiftbind, debian/.debhelper, debian/files...) and puts the
# packages in the directory above it, so it builds a copy: the files git
# tracks or would add (not those it ignores), as they are in the work
# tree, under $SHIFTBIND_OUT/deb/.  The checkout is only read.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

# DEB_OUT: where the packages go (make userspace builds the guest's into
# its build directory).
readonly DEB_OUT=${DEB_OUT:-$SHIFTBIND_OUT/deb}
work= # the build copy, removed on exit

# copy_tree DEST: the checkout's files (tracked or new, not ignored; not
# those deleted in the work tree) into DEST.
copy_tree() {
	local dest=$1 list
	list=$work/files
	git -C "$SHIFTBIND_ROOT" ls-files -z --cached --others --exclude-standard >"$list.all"
	(
		cd "$SHIFTBIND_ROOT"
		while IFS= read -r -d '' f; do
			if [ -e "$f" ] || [ -L "$f" ]; then printf '%s\0' "$f"; fi
		done <"$list.all" | sort -zu >"$list"
		tar --null --no-recursion -T "$list" -cf -
	) | tar -C "$dest" -xf -
}

# shiftbind_deb: the package of the hook and the CLI, built again only
# when the files it is built from changed: $DEB_OUT/.shiftbind-source
# holds their hash, that of the package there.
shiftbind_deb() {
	local version src log deb key
	require_cmd git git
	require_cmd dpkg-buildpackage dpkg-dev
	require_cmd dh debhelper
	git -C "$SHIFTBIND_ROOT" rev-parse --is-inside-work-tree >/dev/null 2>&1 ||
		die "$SHIFTBIND_ROOT is not a git work tree: make deb packages the files git lists"
	mkdir -p "$DEB_OUT"
	work=$(mktemp -d "$DEB_OUT/.build.XXXXXX")
	trap 'rm -rf "$work"' EXIT
	version=$(dpkg-parsechangelog -l "$SHIFTBIND_ROOT/debian/changelog" -S Version)
	src=$work/shiftbind-$version
	mkdir "$src"
	copy_tree "$src"
	key=$(tar -C "$src" --sort=name --mtime=@0 --owner=0 --group=0 --numeric-owner -cf - . |
		sha256sum | cut -c1-16)
	if [ "$(cat "$DEB_OUT/.shiftbind-source" 2>/dev/null)" = "$key" ] &&
		compgen -G "$DEB_OUT/shiftbind_${version}_*.deb" >/dev/null; then
		log "shiftbind $version up to date in $DEB_OUT"
		printf '%s\n' "$DEB_OUT"/shiftbind_*.deb
		return 0
	fi

	log=$DEB_OUT/build.log
	log "building shiftbind $version in $work (log: $log)"
	# The top-level make's flags (-s, its jobserver) are not debian/rules'.
	if ! (cd "$src" && env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL \
		dpkg-buildpackage -b --no-sign -J"$JOBS") >"$log" 2>&1; then
		tail -n 30 "$log" >&2
		die "dpkg-buildpackage of shiftbind $version failed (log: $log); a missing Build-Depends is installed by 'make deps'"
	fi
	# Only this build's shiftbind package in $DEB_OUT.
	rm -f "$DEB_OUT"/shiftbind_* "$DEB_OUT/.shiftbind-source"
	mv "$work"/*.deb "$work"/*.buildinfo "$work"/*.changes "$DEB_OUT"/
	echo "$key" >"$DEB_OUT/.shiftbind-source"
	for deb in "$DEB_OUT"/shiftbind_*.deb; do
		echo "$deb"
	done
}

# kernel_debs: the test kernel's packages of each base of the run
# (test_kernels: KERNEL, else TEST_KERNELS, else both), built first when
# stale (scripts/kernel.sh deb).
kernel_debs() {
	local bases base
	bases=$(test_kernels) || exit 1
	rm -f "$DEB_OUT"/linux-*
	for base in $bases; do
		KERNEL=$base "$SHIFTBIND_ROOT/scripts/kernel.sh" deb "$DEB_OUT"
	done
}

main() {
	local what
	[ "$#" -gt 0 ] || set -- shiftbind kernel
	for what in "$@"; do
		case $what in
		shiftbind) shiftbind_deb ;;
		kernel) kernel_debs ;;
		*) die "deb.sh: no package set '$what'; use 'shiftbind' (the hook and the CLI), 'kernel' (the patched kernels) or both" ;;
		esac
	done
}

main "$@"
