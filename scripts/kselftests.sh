#!/bin/bash
# kselftests.sh [VARIANT]: build the kernel selftests the guest runs, from
# the patched source tree against the build's exported uapi headers, and
# print the directory holding them (one subdirectory per selftest).  Of
# the kernel base KERNEL (kernel.sh's): each base's selftests are built
# in, and from, its own trees.
#
# The series' own selftests (configfd, ...) and the upstream mount API
# selftests the series must keep passing (regress. suite) are listed in
# SELFTESTS.  Run after `kernel.sh build`, which exports the headers.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

readonly SELFTESTS=(configfd mount_setattr move_mount_set_group)

variant=${1:-test}
src=$("$SHIFTBIND_ROOT/scripts/kernel.sh" source-tree)
build=$("$SHIFTBIND_ROOT/scripts/kernel.sh" build-dir "$variant")
headers=$build/usr/include
out=$build/kselftests

[ -f "$headers/linux/mount.h" ] ||
	die "no exported kernel headers in $headers; run 'make kernel' first"

for t in "${SELFTESTS[@]}"; do
	dir=$src/tools/testing/selftests/$t
	[ -d "$dir" ] || die "selftest $t not found in $dir; is the series applied?"
	mkdir -p "$out/$t"
	if ! make -s -C "$dir" OUTPUT="$out/$t" KHDR_INCLUDES="-isystem $headers" \
		>"$out/$t.log" 2>&1; then
		cat "$out/$t.log" >&2
		die "building selftest $t failed (log: $out/$t.log)"
	fi
done
echo "$out"
