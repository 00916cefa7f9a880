#!/bin/bash
# The configfd wrappers (oci-hook/lib/configfd.c) built with the sanitizers
# and run on the host kernel, which has no configfd: the probe must say so
# without leaking or closing fds, and the log and name helpers must work
# on any fd.
. "$(dirname "$0")/../lib/testlib.sh"
scratch_dir

lib=$SHIFTBIND_TESTS/../oci-hook/lib
cc=${CC:-gcc}
# The project's warnings (oci-hook/warnings.mk), as every C build has them.
read -ra warnings < <(make -s --no-print-directory -C "$SHIFTBIND_TESTS/../oci-hook" print-warnings)
[ "${#warnings[@]}" -gt 0 ] || fail "make -C oci-hook print-warnings printed no flags"
flags=(-std=gnu11 -O1 -g -fsanitize=address,undefined -fno-sanitize-recover=all
	"${warnings[@]}")

assert_status 0 "$cc" "${flags[@]}" -I "$lib" -o "$SCRATCH/configfd_wrapper_test" \
	"$SHIFTBIND_TESTS/host/configfd_wrapper_test.c" "$lib/configfd.c"
assert_status 0 "$SCRATCH/configfd_wrapper_test"
printf '%s\n' "$OUTPUT"
