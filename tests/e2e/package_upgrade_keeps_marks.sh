#!/bin/bash
# The package's upgrade path.  The guest runs the shiftbind package its
# image was built with (installed with apt-get), whose enabled unit marked
# the stores of the site's /etc/shiftbind/allow.conf at boot.  Installing
# a rebuilt package of a newer version over it, with apt-get as an
# administrator does:
#   - keeps the site's allow.conf (a conffile the site edited)
#   - keeps the marks and every other mount: the upgrade unmarks, remounts
#     and stops nothing (the unit is not restarted: marks are not redone)
#   - leaves the unit enabled
#   - and the new package's hook shifts a container on the marked store.
. "$(dirname "$0")/../lib/testlib.sh"
. "$(dirname "$0")/packagelib.bash"
require_guest
scratch_dir

deb=$(image_package)
version=$(dpkg-deb -f "$deb" Version)
assert_eq "$version" "$(installed_version)" "installed shiftbind version (the image's package)"
assert_unit_enabled
assert_match 'allow-shift' "$(mark_of "$IMAGE_STORE")" "the unit's mark on $IMAGE_STORE at boot"
[ -n "$SITE_ALLOW_CONF" ] || fail "/etc/shiftbind/allow.conf is empty: the image's site configuration is missing"

trap 'restore_image_package; rm -rf "$SCRATCH"' EXIT
mounts_before=$(mount_table)
newer=$(rebuild_package "$deb" "$version+upgrade1" "$SCRATCH")
assert_status 0 apt_install "$newer"
assert_eq "$version+upgrade1" "$(installed_version)" "installed version after the upgrade"
assert_eq "$SITE_ALLOW_CONF" "$(cat /etc/shiftbind/allow.conf)" "allow.conf after the upgrade"
assert_eq "$mounts_before" "$(mount_table)" "mount table after the upgrade"
assert_unit_enabled

make_bundle "$SCRATCH/c" "$SHARED_IMAGE" "0 100000 65536" "0 100000 65536" \
	/bin/probe stat "${OWNER_PATHS[@]}"
with_hook "$SCRATCH/c"
assert_status 0 crun_run "$SCRATCH/c" e2e-package-upgraded
assert_eq "$REAL_OWNERS" "$OUTPUT" "owners through the upgraded package's shift"
