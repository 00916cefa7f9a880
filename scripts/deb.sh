#!/bin/bash
# deb.sh: build the Debian package of the hook and the CLI (debian/) into
# $SHIFTBIND_OUT/deb/ and print the paths of the .deb files.
#
# dpkg-buildpackage writes into the tree it builds (debian/build,
# debian/shiftbind, debian/.debhelper, debian/files...) and puts the
# packages in the directory above it, so it builds a copy: the files git
# tracks or would add (not those it ignores), as they are in the work
# tree, under $SHIFTBIND_OUT/deb/.  The checkout is only read.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

readonly DEB_OUT=$SHIFTBIND_OUT/deb
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

main() {
	local version src log deb
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

	log=$DEB_OUT/build.log
	log "building shiftbind $version in $work (log: $log)"
	# The top-level make's flags (-s, its jobserver) are not debian/rules'.
	if ! (cd "$src" && env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL \
		dpkg-buildpackage -b --no-sign -J"$JOBS") >"$log" 2>&1; then
		tail -n 30 "$log" >&2
		die "dpkg-buildpackage of shiftbind $version failed (log: $log); a missing Build-Depends is installed by 'make deps'"
	fi
	# Only this build's packages in $DEB_OUT.
	rm -f "$DEB_OUT"/*.deb "$DEB_OUT"/*.buildinfo "$DEB_OUT"/*.changes
	mv "$work"/*.deb "$work"/*.buildinfo "$work"/*.changes "$DEB_OUT"/
	for deb in "$DEB_OUT"/*.deb; do
		echo "$deb"
	done
}

main "$@"
