#!/bin/bash
# check-kconfig.sh passes when every =y, =value and "is not set" line of a
# fragment is what the final configuration has.
. "$(dirname "$0")/../lib/testlib.sh"
scratch_dir

cat >"$SCRATCH/fragment" <<'FRAG'
# a comment is ignored
CONFIG_USER_NS=y
CONFIG_LOCALVERSION="-shiftbind"
# CONFIG_DRM is not set
# CONFIG_SOUND is not set
FRAG
printf 'CONFIG_USER_NS=y\nCONFIG_LOCALVERSION="-shiftbind"\n# CONFIG_DRM is not set\n' >"$SCRATCH/config"

assert_status 0 "$SHIFTBIND_TESTS/../scripts/check-kconfig.sh" "$SCRATCH/config" "$SCRATCH/fragment"
