#!/bin/bash
# Every source of oci-hook/ and of its tests builds warning-free with
# -Werror and the project's warning list under gcc and clang
# (oci-hook/Makefile: check-warnings).
. "$(dirname "$0")/../lib/testlib.sh"
. "$(dirname "$0")/hook/lib.sh"
scratch_dir
need_clang

build_oci_hook check-warnings
printf '%s\n' "$OUTPUT"
