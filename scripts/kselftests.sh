#!/bin/bash
# kselftests.sh [VARIANT]: build the kernel selftests the guest runs
# (KSELFTESTS, lib.sh), from the patched source tree against the build's
# exported uapi headers, and print the directory holding them (one
# subdirectory per selftest).  Of the kernel base KERNEL (kernel.sh's):
# each base's selftests are built in, and from, its own trees.  Run after
# `kernel.sh build`, which exports the headers.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

variant=${1:-test}
src=$("$SHIFTBIND_ROOT/scripts/kernel.sh" source-tree)
build=$("$SHIFTBIND_ROOT/scripts/kernel.sh" build-dir "$variant")
build_kselftests "$src" "$build" "${KSELFTESTS[@]}"
echo "$build/kselftests"
