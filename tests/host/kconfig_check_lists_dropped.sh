#!/bin/bash
# Kconfig drops options whose dependencies are missing; check-kconfig.sh
# must fail and name every one of them, with the value the config has.
. "$(dirname "$0")/../lib/testlib.sh"
scratch_dir

printf 'CONFIG_USER_NS=y\nCONFIG_CGROUP_BPF=y\nCONFIG_LOCALVERSION="-shiftbind"\n# CONFIG_DRM is not set\n' >"$SCRATCH/fragment"
printf '# CONFIG_USER_NS is not set\nCONFIG_LOCALVERSION=""\nCONFIG_DRM=y\n' >"$SCRATCH/config"

assert_status 1 "$SHIFTBIND_TESTS/../scripts/check-kconfig.sh" "$SCRATCH/config" "$SCRATCH/fragment"
assert_contains 'CONFIG_USER_NS=y (have: # CONFIG_USER_NS is not set)' "$OUTPUT"
assert_contains 'CONFIG_CGROUP_BPF=y (have: unset)' "$OUTPUT"
assert_contains 'CONFIG_LOCALVERSION="-shiftbind" (have: CONFIG_LOCALVERSION="")' "$OUTPUT"
assert_contains '# CONFIG_DRM is not set (have: CONFIG_DRM=y)' "$OUTPUT"
assert_contains '4 option(s)' "$OUTPUT"
