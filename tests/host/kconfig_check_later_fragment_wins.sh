#!/bin/bash
# With several fragments (the debug kernel adds one), a later fragment
# overrides an earlier one, as merge_config.sh merges them: only the last
# value of each option is required.
. "$(dirname "$0")/../lib/testlib.sh"
scratch_dir

printf 'CONFIG_LOCALVERSION="-shiftbind"\nCONFIG_KASAN=y\n' >"$SCRATCH/base"
printf 'CONFIG_LOCALVERSION="-shiftbind-debug"\n# CONFIG_KASAN is not set\n' >"$SCRATCH/debug"
printf 'CONFIG_LOCALVERSION="-shiftbind-debug"\n' >"$SCRATCH/config"

check=$SHIFTBIND_TESTS/../scripts/check-kconfig.sh
assert_status 0 "$check" "$SCRATCH/config" "$SCRATCH/base" "$SCRATCH/debug"
assert_status 1 "$check" "$SCRATCH/config" "$SCRATCH/debug" "$SCRATCH/base"
assert_contains 'CONFIG_LOCALVERSION="-shiftbind" (have: CONFIG_LOCALVERSION="-shiftbind-debug")' "$OUTPUT"
assert_contains 'CONFIG_KASAN=y (have: unset)' "$OUTPUT"
