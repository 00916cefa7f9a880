#!/bin/bash
# debootstrap.sh: print the path of the cached debootstrapped guest base,
# creating it first when its inputs changed.
#
# The base is keyed by the suite and rootfs-builder/packages, so it is
# fetched once and reused until the package list changes.  The mirror is
# debootstrap's default; set DEBOOTSTRAP_MIRROR to use another.
set -euo pipefail
. "$(dirname "$0")/../scripts/lib.sh"

readonly SUITE=bookworm
readonly PACKAGES_FILE=$SHIFTBIND_ROOT/rootfs-builder/packages
tmp= # scratch directory of a running debootstrap, removed on exit

packages() { grep -v '^#' "$PACKAGES_FILE" | grep -v '^$' | paste -sd, -; }

base_dir() {
	echo "$SHIFTBIND_CACHE/guest/base-$SUITE-$(hash_string "$SUITE $(packages)")"
}

create_base() {
	local dir=$1
	[ -d "$dir" ] && return 0 # another build made it while we waited
	require_cmd debootstrap debootstrap
	check_free_space "$SHIFTBIND_CACHE/guest" 1500
	tmp=$(mktemp -d "$SHIFTBIND_CACHE/guest/.debootstrap.XXXXXX")
	trap 'rm -rf "$tmp"' EXIT
	log "debootstrapping $SUITE into $dir (once per package list; log: $tmp/debootstrap.log)"
	# shellcheck disable=SC2086
	if ! debootstrap --variant=minbase --include="$(packages)" "$SUITE" "$tmp/root" \
		${DEBOOTSTRAP_MIRROR:-} >"$tmp/debootstrap.log" 2>&1; then
		tail -n 20 "$tmp/debootstrap.log" >&2
		cp "$tmp/debootstrap.log" "$SHIFTBIND_CACHE/guest/debootstrap-failed.log"
		die "debootstrap of $SUITE failed (log: $SHIFTBIND_CACHE/guest/debootstrap-failed.log); check the network and the host's apt sources"
	fi
	# The package cache is 100+ MB the guest never needs.
	rm -rf "$tmp/root/var/cache/apt/archives/"*.deb "$tmp/root/var/lib/apt/lists/"*
	mv "$tmp/root" "$dir"
}

main() {
	local dir
	mkdir -p "$SHIFTBIND_CACHE/guest"
	dir=$(base_dir)
	[ -d "$dir" ] || with_lock debootstrap create_base "$dir"
	echo "$dir"
}

main "$@"
