# shellcheck shell=bash
# Shared helpers for the shiftbind build and test scripts.  Sourced, never run.
#
# Every script reports failure the same way: one line saying what failed,
# on what, and what to do next, on stderr, then a non-zero exit.

SHIFTBIND_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
SHIFTBIND_CACHE=${SHIFTBIND_CACHE:-/var/cache/shiftbind}
SHIFTBIND_OUT=${SHIFTBIND_OUT:-$SHIFTBIND_ROOT/out}
JOBS=${JOBS:-$(( $(nproc) + 1 ))}

log() { printf '%s: %s\n' "${0##*/}" "$*" >&2; }

die() {
	printf '%s: error: %s\n' "${0##*/}" "$*" >&2
	exit 1
}

# require_cmd CMD PACKAGE: fail with the package to install when CMD is missing.
require_cmd() {
	command -v "$1" >/dev/null 2>&1 ||
		die "command '$1' not found; install it with 'make deps' (Debian package $2)"
}

# hash_files FILE...: one short content hash over the named files, in order,
# including their names so that a rename also changes the key.
hash_files() {
	local f
	for f in "$@"; do
		printf '%s\0' "${f##*/}"
		cat -- "$f"
	done | sha256sum | cut -c1-16
}

# hash_string STRING: short content hash of a string.
hash_string() { printf '%s' "$1" | sha256sum | cut -c1-16; }

# check_free_space DIR MIB: fail early, naming DIR, when it has too little room.
check_free_space() {
	local avail
	mkdir -p "$1"
	avail=$(df -Pm "$1" | awk 'NR == 2 { print $4 }')
	[ "$avail" -ge "$2" ] ||
		die "only ${avail} MiB free in $1, need ${2} MiB; free space or set SHIFTBIND_CACHE to a larger disk"
}

# with_lock NAME CMD...: run CMD holding an exclusive lock in the cache, so
# two builds of the same thing never interleave.
with_lock() {
	local name=$1
	shift
	mkdir -p "$SHIFTBIND_CACHE/locks"
	(
		flock 9
		"$@"
	) 9>"$SHIFTBIND_CACHE/locks/$name.lock"
}
