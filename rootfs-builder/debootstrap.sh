#!/bin/bash
# debootstrap.sh [SUITE [VARIANT]]: print the path of the cached
# debootstrapped guest base of Debian SUITE (default: the release of the
# kernel base KERNEL, scripts/lib.sh's guest_release), creating it first
# when its inputs changed.
#
# The base is keyed by the suite and its package list (rootfs-builder/
# packages: the lines for every release and those naming SUITE), so it is
# fetched once per release and reused until that list changes.  A
# VARIANT (cluster) adds the lines of rootfs-builder/packages-VARIANT,
# same format, and is a base of its own (base-SUITE-VARIANT-KEY), so
# that its packages never weigh on the ordinary guests' images.  The
# mirror is the one the host's apt sources name for the host's own
# release (a Debian mirror serves every suite); DEBOOTSTRAP_MIRROR=URI
# uses another.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/../scripts/lib.sh"

readonly PACKAGES_FILE=$SHIFTBIND_ROOT/rootfs-builder/packages
# Where the host's apt configuration is (a test points it elsewhere).
readonly APT_ETC=${APT_ETC:-/etc/apt}
readonly DEBOOTSTRAP_SCRIPTS=${DEBOOTSTRAP_SCRIPTS:-/usr/share/debootstrap/scripts}
suite= # the Debian suite of this base
variant= # the package list's variant (packages-VARIANT), or none
tmp=   # scratch directory of a running debootstrap, removed on exit

# packages SUITE [VARIANT]: the packages of SUITE's guest, comma-separated,
# in the list's order: lines of one word, and lines naming SUITE after the
# word, of rootfs-builder/packages and then of packages-VARIANT.
packages() {
	local files=("$PACKAGES_FILE")
	if [ -n "${2:-}" ]; then
		[ -f "$PACKAGES_FILE-$2" ] ||
			die "no package list for guest variant '$2' ($PACKAGES_FILE-$2); name a variant that has one (cluster)"
		files+=("$PACKAGES_FILE-$2")
	fi
	awk -v suite="$1" '
		/^[[:space:]]*(#|$)/ { next }
		NF == 1 { print $1; next }
		{ for (i = 2; i <= NF; i++) if ($i == suite) { print $1; next } }
	' "${files[@]}" | paste -sd, -
}

# host_codename: the codename of the host's own Debian release.
host_codename() {
	# shellcheck source=/dev/null # the host's, not ours
	(. "${OS_RELEASE:-/etc/os-release}" && echo "${VERSION_CODENAME:-}")
}

# apt_sources_uri CODENAME: the first URI the host's apt sources name for
# suite CODENAME (exactly: not CODENAME-security or -updates) of component
# main, from the deb822 files (sources.list.d/*.sources, Enabled: no
# left out) and the one-line ones (sources.list, sources.list.d/*.list),
# as apt reads them.  Nothing when none does.
apt_sources_uri() {
	local codename=$1 file
	{
		for file in "$APT_ETC"/sources.list.d/*.sources; do
			[ -f "$file" ] || continue
			awk -v want="$codename" '
				function has(list, word) { return (" " list " ") ~ (" " word " ") }
				function flush(  u) {
					if (has(f["types"], "deb") && has(f["suites"], want) &&
					    has(f["components"], "main") && tolower(f["enabled"]) != "no" &&
					    split(f["uris"], u, " ") > 0)
						print u[1]
					delete f; key = ""
				}
				/^#/ { next }
				/^[[:space:]]*$/ { flush(); next }
				/^[[:space:]]/ { if (key != "") f[key] = f[key] " " $0; next }
				{
					key = tolower($0); sub(/:.*/, "", key)
					value = $0; sub(/^[^:]*:[[:space:]]*/, "", value)
					f[key] = value
				}
				END { flush() }
			' "$file"
		done
		for file in "$APT_ETC/sources.list" "$APT_ETC"/sources.list.d/*.list; do
			[ -f "$file" ] || continue
			sed -E 's/#.*//; s/\[[^]]*\]//' "$file" | awk -v want="$codename" '
				$1 == "deb" && $3 == want {
					for (i = 4; i <= NF; i++) if ($i == "main") { print $2; next }
				}'
		done
	} | head -n 1
}

# mirror: DEBOOTSTRAP_MIRROR, else the URI of the host's apt sources.
mirror() {
	local codename uri
	if [ -n "${DEBOOTSTRAP_MIRROR:-}" ]; then
		echo "$DEBOOTSTRAP_MIRROR"
		return 0
	fi
	codename=$(host_codename)
	[ -n "$codename" ] ||
		die "cannot tell the host's Debian release (no VERSION_CODENAME in ${OS_RELEASE:-/etc/os-release}), so not which apt source to debootstrap $suite from; set DEBOOTSTRAP_MIRROR to a Debian mirror's URI"
	uri=$(apt_sources_uri "$codename")
	[ -n "$uri" ] ||
		die "no apt source in $APT_ETC/sources.list or $APT_ETC/sources.list.d/ names suite $codename with component main, the Debian mirror to debootstrap $suite from; add one, or set DEBOOTSTRAP_MIRROR to a Debian mirror's URI"
	echo "$uri"
}

# debootstrap_script: the script debootstrap needs for the suite: its
# own when it knows the suite, else that of sid (every Debian suite since
# squeeze uses it: a debootstrap older than the suite still works).
debootstrap_script() {
	if [ -e "$DEBOOTSTRAP_SCRIPTS/$suite" ]; then
		echo "$DEBOOTSTRAP_SCRIPTS/$suite"
	elif [ -e "$DEBOOTSTRAP_SCRIPTS/sid" ]; then
		log "this debootstrap has no script for $suite; using sid's ($DEBOOTSTRAP_SCRIPTS/sid)"
		echo "$DEBOOTSTRAP_SCRIPTS/sid"
	else
		die "debootstrap has neither a script for $suite nor sid's in $DEBOOTSTRAP_SCRIPTS; install a newer debootstrap"
	fi
}

base_dir() {
	local list
	list=$(packages "$suite" "$variant") || exit 1
	echo "$SHIFTBIND_CACHE/guest/base-$suite${variant:+-$variant}-$(hash_string "$suite $list")"
}

create_base() {
	local dir=$1 uri script start size
	[ -d "$dir" ] && return 0 # another build made it while we waited
	require_cmd debootstrap debootstrap
	check_free_space "$SHIFTBIND_CACHE/guest" 1500
	uri=$(mirror)
	script=$(debootstrap_script)
	tmp=$(mktemp -d "$SHIFTBIND_CACHE/guest/.debootstrap.XXXXXX")
	trap 'rm -rf "$tmp"' EXIT
	log "debootstrapping $suite from $uri into $dir (once per package list; log: $tmp/debootstrap.log)"
	start=$SECONDS
	if ! debootstrap --variant=minbase --include="$(packages "$suite" "$variant")" "$suite" "$tmp/root" \
		"$uri" "$script" >"$tmp/debootstrap.log" 2>&1; then
		# Why a package failed to configure is in the target's own log.
		if [ -f "$tmp/root/debootstrap/debootstrap.log" ]; then
			printf '\n--- %s:\n' "the target's debootstrap/debootstrap.log" >>"$tmp/debootstrap.log"
			cat "$tmp/root/debootstrap/debootstrap.log" >>"$tmp/debootstrap.log"
		fi
		tail -n 20 "$tmp/debootstrap.log" >&2
		cp "$tmp/debootstrap.log" "$SHIFTBIND_CACHE/guest/debootstrap-$suite-failed.log"
		die "debootstrap of $suite from $uri failed (log: $SHIFTBIND_CACHE/guest/debootstrap-$suite-failed.log); check the network and the host's apt sources, and that rootfs-builder/packages names only packages $suite has"
	fi
	# The package cache is 100+ MB the guest never needs.
	rm -rf "$tmp/root/var/cache/apt/archives/"*.deb "$tmp/root/var/lib/apt/lists/"*
	size=$(du -sm "$tmp/root" | cut -f1)
	log "debootstrapped $suite in $((SECONDS - start)) s, $size MB"
	mv "$tmp/root" "$dir"
}

main() {
	local dir
	suite=${1:-}
	variant=${2:-}
	[ -n "$suite" ] || suite=$(guest_release "${KERNEL:-$DEFAULT_KERNEL}") || exit 1
	[[ $suite =~ ^[a-z]+$ ]] ||
		die "'$suite' is not a Debian suite name such as bookworm; name the release to debootstrap"
	[[ $variant =~ ^[a-z]*$ ]] ||
		die "'$variant' is not a guest variant name such as cluster"
	[ -n "$(packages "$suite" "$variant")" ] ||
		die "rootfs-builder/packages lists no package for $suite"
	mkdir -p "$SHIFTBIND_CACHE/guest"
	dir=$(base_dir) || exit 1
	[ -d "$dir" ] || with_lock "debootstrap-$suite${variant:+-$variant}" create_base "$dir"
	echo "$dir"
}

# Sourced by tests/host/guest_mirror_from_apt_sources.sh for its
# functions; run, it prints the base.
[ "${BASH_SOURCE[0]}" != "$0" ] || main "$@"
