# shellcheck shell=bash
# Helpers of the package_* tests (sourced after testlib.sh): the shiftbind
# package the guest image was built with (rootfs-builder installs it with
# apt-get and keeps it in PACKAGE_DIR), installed, upgraded, removed and
# purged as an administrator does.  Not a test: the runner runs only *.sh.

readonly PACKAGE_DIR=$SHIFTBIND_GUEST_LIB/deb
readonly UNIT=shiftbind-allow.service
# What the image's administrator put in the package's conffile
# (rootfs-builder/build-image.sh, configure_site).
SITE_ALLOW_CONF=$(cat /etc/shiftbind/allow.conf 2>/dev/null || true)
readonly SITE_ALLOW_CONF

# image_package: the path of the package the image was built with.
image_package() {
	local debs=("$PACKAGE_DIR"/shiftbind_*.deb)
	[ -f "${debs[0]}" ] || fail "no shiftbind package in $PACKAGE_DIR: the image was not built from one"
	echo "${debs[0]}"
}

# installed_version: shiftbind's version as dpkg has it installed, or
# nothing when it is not installed (removed, or purged).
installed_version() {
	dpkg-query -W -f='${db:Status-Abbrev} ${Version}' shiftbind 2>/dev/null |
		awk '$1 == "ii" { print $2 }'
}

# apt_install DEB...: apt-get install of package files, as an
# administrator runs it (dependencies from the installed system).
apt_install() {
	DEBIAN_FRONTEND=noninteractive apt-get install -y --allow-downgrades "$@"
}

# rebuild_package DEB VERSION DIR: the package DEB rebuilt as VERSION in
# DIR (its files and maintainer scripts unchanged), as the next release
# of the same source would be; prints its path.
rebuild_package() {
	local deb=$1 version=$2 dir=$3 tree=$3/tree
	dpkg-deb -R "$deb" "$tree" || fail "dpkg-deb -R $deb failed"
	sed -i "s/^Version: .*/Version: $version/" "$tree/DEBIAN/control"
	dpkg-deb -b "$tree" "$dir/shiftbind_${version}_amd64.deb" >/dev/null ||
		fail "dpkg-deb -b of shiftbind $version failed"
	echo "$dir/shiftbind_${version}_amd64.deb"
}

# restore_image_package: the guest as the image left it, for the tests
# after this one: the image's package installed and the site's allow.conf.
restore_image_package() {
	local deb
	deb=$(image_package)
	if [ "$(installed_version)" != "$(dpkg-deb -f "$deb" Version)" ]; then
		apt_install "$deb" >/dev/null 2>&1 || echo "restoring $deb failed" >&2
	fi
	[ "$(cat /etc/shiftbind/allow.conf 2>/dev/null)" = "$SITE_ALLOW_CONF" ] ||
		printf '%s\n' "$SITE_ALLOW_CONF" >/etc/shiftbind/allow.conf
}

# assert_unit_enabled: shiftbind-allow.service is enabled, as the package
# leaves it.
assert_unit_enabled() {
	assert_eq enabled "$(systemctl is-enabled "$UNIT" 2>&1)" "systemctl is-enabled $UNIT"
}
