#!/bin/bash
# After the first boot's package tests (upgrade, remove, purge, reinstall
# of shiftbind: tests/e2e/package_*.sh), the package is the image's again,
# its unit is enabled, and at this boot it marked the stores of the
# site's allow.conf, as on the first boot: nothing else marks them.
. "$(dirname "$0")/../../lib/testlib.sh"
. "$(dirname "$0")/../../e2e/packagelib.bash"
require_guest

deb=$(image_package)
assert_eq "$(dpkg-deb -f "$deb" Version)" "$(installed_version)" "installed shiftbind version"
assert_unit_enabled
assert_eq "/srv/images rw suid owner=0 owner=$TEST_USER" "$SITE_ALLOW_CONF" "the site's allow.conf"
assert_match 'allow-shift' "$(mark_of "$IMAGE_STORE")" "the unit's mark on $IMAGE_STORE at this boot"
