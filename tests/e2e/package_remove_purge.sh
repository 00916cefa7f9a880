#!/bin/bash
# The package's removal, purge and reinstall, with a shifted container
# running all along:
#   - apt-get remove takes the hook, the CLI and the registration files
#     away, keeps the conffile allow.conf, and stops nothing that runs
#     containers: the container keeps running with its shift live, the
#     runtimes stay installed, and the mount table is as it was (the
#     marks are the site's until `shiftbind disallow` or a reboot; the
#     package leaves no mount of its own)
#   - apt-get purge removes the configuration and the unit's enablement,
#     and still unmounts nothing
#   - a reinstall brings back the files, the package's own allow.conf and
#     the enabled unit, and its hook shifts a new container.
. "$(dirname "$0")/../lib/testlib.sh"
. "$(dirname "$0")/packagelib.bash"
require_guest
scratch_dir

readonly CONTAINER=e2e-package-removal
readonly PACKAGE_FILES=(/usr/libexec/shiftbind/shiftbind-hook /usr/sbin/shiftbind
	/usr/share/containers/oci/hooks.d/shiftbind.json "/lib/systemd/system/$UNIT")
readonly ENABLED_LINK=/etc/systemd/system/multi-user.target.wants/$UNIT
deb=$(image_package)
version=$(dpkg-deb -f "$deb" Version)
assert_eq "$version" "$(installed_version)" "installed shiftbind version (the image's package)"

cleanup() {
	crun kill "$CONTAINER" KILL 2>/dev/null || true
	crun delete -f "$CONTAINER" 2>/dev/null || true
	restore_image_package
	rm -rf "$SCRATCH"
}
trap cleanup EXIT

# assert_container_shifted WHEN: the running container still sees the
# image's real owners through its shift.
assert_container_shifted() {
	assert_eq running "$(crun state "$CONTAINER" | jq -r .status)" "the container's state $1"
	assert_status 0 crun exec "$CONTAINER" /bin/probe stat /etc/shadow
	assert_eq "0:42 0640 /etc/shadow" "$OUTPUT" "an owner in the running container $1"
}

# assert_runtimes_installed WHEN: what runs containers is still there.
assert_runtimes_installed() {
	local pkg
	for pkg in crun podman; do
		assert_eq ii "$(dpkg-query -W -f='${db:Status-Abbrev}' "$pkg" | tr -d ' ')" \
			"dpkg status of $pkg $1"
	done
}

make_bundle "$SCRATCH/c" "$SHARED_IMAGE" "0 100000 65536" "0 100000 65536" /bin/sleep 600
with_hook "$SCRATCH/c"
# Detached, its output to a file: a pipe would keep $(...) waiting for
# the container's end.
crun --cgroup-manager=cgroupfs run -d -b "$SCRATCH/c" "$CONTAINER" \
	</dev/null >"$SCRATCH/run.out" 2>&1 ||
	fail "crun run -d of $CONTAINER failed: $(cat "$SCRATCH/run.out")"
assert_container_shifted "before the removal"
mounts_before=$(mount_table)

assert_status 0 env DEBIAN_FRONTEND=noninteractive apt-get remove -y shiftbind
assert_eq "rc" "$(dpkg-query -W -f='${db:Status-Abbrev}' shiftbind | tr -d ' ')" \
	"dpkg status after remove (configuration files left)"
for file in "${PACKAGE_FILES[@]}"; do
	[ ! -e "$file" ] || fail "apt-get remove left $file"
done
assert_eq "$SITE_ALLOW_CONF" "$(cat /etc/shiftbind/allow.conf)" "allow.conf after remove (a conffile)"
assert_container_shifted "after remove"
assert_runtimes_installed "after remove"
assert_eq "$mounts_before" "$(mount_table)" "mount table after remove"

assert_status 0 env DEBIAN_FRONTEND=noninteractive apt-get purge -y shiftbind
assert_eq "" "$(dpkg-query -W -f='${db:Status-Abbrev}' shiftbind 2>/dev/null | tr -d ' ' | grep -v '^un$' || true)" \
	"dpkg status after purge (not installed, no configuration)"
[ ! -e /etc/shiftbind ] || fail "apt-get purge left /etc/shiftbind: $(ls -la /etc/shiftbind)"
[ ! -L "$ENABLED_LINK" ] || fail "apt-get purge left the unit enabled: $ENABLED_LINK"
assert_container_shifted "after purge"
assert_eq "$mounts_before" "$(mount_table)" "mount table after purge"

assert_status 0 apt_install "$deb"
assert_eq "$version" "$(installed_version)" "installed version after the reinstall"
for file in "${PACKAGE_FILES[@]}"; do
	[ -e "$file" ] || fail "the reinstall did not bring back $file"
done
assert_eq "$(dpkg-deb --fsys-tarfile "$deb" | tar -xOf - ./etc/shiftbind/allow.conf)" \
	"$(cat /etc/shiftbind/allow.conf)" "allow.conf after purge and reinstall (the package's own)"
assert_unit_enabled
make_bundle "$SCRATCH/n" "$SHARED_IMAGE" "0 100000 65536" "0 100000 65536" \
	/bin/probe stat "${OWNER_PATHS[@]}"
with_hook "$SCRATCH/n"
assert_status 0 crun_run "$SCRATCH/n" e2e-package-reinstalled
assert_eq "$REAL_OWNERS" "$OUTPUT" "owners through the reinstalled package's shift"
