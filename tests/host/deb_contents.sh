#!/bin/bash
# The Debian package of the hook and the CLI (make deb, debian/):
#   - make deb builds it into OUT/deb/ and leaves the checkout as it was
#     (dpkg-buildpackage's products and debian/ scratch are elsewhere)
#   - dpkg-deb -c: exactly the installed files, with their modes: hook,
#     CLI, man pages, unit, allow.conf, sysusers file, the registration
#     files, the opt-in one also in podman's default hooks.d directory
#   - dpkg-deb -f: Package, Version (debian/changelog), Architecture, and
#     Depends computed from the CLI (shared libyajl2 and libc6: it is
#     linked dynamically) and systemd-sysusers for the user; the hook is
#     static-pie (debian/rules says why), and Built-Using names the glibc
#     and yajl it carries, at the versions it was built with
#   - conffiles lists /etc/shiftbind/allow.conf; the postinst enables the
#     unit and starts nothing; no maintainer script starts it
#   - the postinst's systemd-sysusers line, run on a root holding the
#     package's files, creates shiftbind-parser as shiftbind-hook(8) asks
#     (a system uid and a group of its own, no home, no shell)
#   - the packaged binaries run and know their installed paths
#   - lintian: no error and no warning (overrides carry their reason in
#     debian/shiftbind.lintian-overrides)
# and the kernels' packages, for each base of the run (make deb builds
# them with the kernel's own bindeb-pkg from the cached build):
#   - linux-image-RELEASE and linux-headers-RELEASE of the build's
#     release, version SOURCE-VERSION+shiftbindVERSION; no linux-libc-dev
#   - the image's kernel is the cached build's bzImage, byte for byte (no
#     second build), with its configuration, System.map and modules
#   - lintian: no error
. "$(dirname "$0")/../lib/testlib.sh"
scratch_dir

top=$(cd "$SHIFTBIND_TESTS/.." && pwd)
for cmd in dpkg-deb lintian readelf systemd-sysusers; do
	command -v "$cmd" >/dev/null ||
		fail "$cmd not found: make deps installs what make deb and this test need (systemd-sysusers: systemd)"
done

# git status of the checkout, without the output directory (make test
# writes its logs there while this runs).
checkout_state() {
	git -C "$top" status --porcelain --ignored --untracked-files=all | grep -v ' out/' || true
}

before=$(checkout_state)
out=$SCRATCH/out
assert_status 0 make -s -C "$top" deb OUT="$out"
made=$OUTPUT # the packages make deb listed
project_version=$(dpkg-parsechangelog -l "$top/debian/changelog" -S Version)
deb=$out/deb/shiftbind_${project_version}_amd64.deb
[ -f "$deb" ] || fail "make deb did not write $deb; it printed: $OUTPUT"
assert_contains "$deb" "$OUTPUT" "make deb's list of packages"
assert_eq "$before" "$(checkout_state)" "git status of the checkout after make deb"
for leftover in debian/build debian/shiftbind debian/.debhelper debian/files \
	debian/debhelper-build-stamp debian/shiftbind.substvars; do
	[ ! -e "$top/$leftover" ] || fail "make deb wrote $leftover into the checkout"
done
if compgen -G "$top/../shiftbind_*" >/dev/null; then
	fail "make deb wrote next to the checkout: $(echo "$top"/../shiftbind_*)"
fi

# Contents: every file with its mode and owner, directories aside.
expected_files="-rw-r--r-- root/root ./etc/shiftbind/allow.conf
-rw-r--r-- root/root ./lib/systemd/system/shiftbind-allow.service
-rw-r--r-- root/root ./usr/lib/sysusers.d/shiftbind.conf
-rw-r--r-- root/root ./usr/lib/tmpfiles.d/shiftbind.conf
-rwxr-xr-x root/root ./usr/libexec/shiftbind/shiftbind-hook
-rwxr-xr-x root/root ./usr/sbin/shiftbind
-rw-r--r-- root/root ./usr/share/containers/oci/hooks.d/shiftbind.json
-rw-r--r-- root/root ./usr/share/doc/shiftbind/changelog.gz
-rw-r--r-- root/root ./usr/share/doc/shiftbind/copyright
-rw-r--r-- root/root ./usr/share/lintian/overrides/shiftbind
-rw-r--r-- root/root ./usr/share/man/man2/configfd_action.2.gz
-rw-r--r-- root/root ./usr/share/man/man2/configfd_open.2.gz
-rw-r--r-- root/root ./usr/share/man/man7/configfd-bind.7.gz
-rw-r--r-- root/root ./usr/share/man/man7/configfd-fs.7.gz
-rw-r--r-- root/root ./usr/share/man/man7/configfd-shift.7.gz
-rw-r--r-- root/root ./usr/share/man/man7/mount_setattr-shift.7.gz
-rw-r--r-- root/root ./usr/share/man/man7/shiftbind-security.7.gz
-rw-r--r-- root/root ./usr/share/man/man8/shiftbind-hook.8.gz
-rw-r--r-- root/root ./usr/share/man/man8/shiftbind.8.gz
-rw-r--r-- root/root ./usr/share/shiftbind/hooks/crun-rootful.json
-rw-r--r-- root/root ./usr/share/shiftbind/hooks/crun-rootless.json
-rw-r--r-- root/root ./usr/share/shiftbind/hooks/hooks.d/opt-in/shiftbind.json
-rw-r--r-- root/root ./usr/share/shiftbind/hooks/hooks.d/rootful/shiftbind.json
-rw-r--r-- root/root ./usr/share/shiftbind/hooks/hooks.d/rootless/shiftbind.json"
listing=$(dpkg-deb -c "$deb") || fail "dpkg-deb -c $deb failed"
assert_eq "$expected_files" "$(awk '$1 !~ /^d/ { print $1, $2, $6, $7, $8 }' <<<"$listing" |
	sed 's/ *$//' | LC_ALL=C sort -k3)" "files of the package (dpkg-deb -c)"

# The files themselves: the ones a runtime or systemd reads are the
# repository's, for the installed paths.
root=$SCRATCH/root
dpkg-deb -x "$deb" "$root"
cmp -s "$top/configs/hooks/hooks.d/opt-in/shiftbind.json" \
	"$root/usr/share/containers/oci/hooks.d/shiftbind.json" ||
	fail "the default hooks.d file is not configs/hooks/hooks.d/opt-in/shiftbind.json"
for mode in rootful rootless; do
	cmp -s "$top/configs/hooks/hooks.d/$mode/shiftbind.json" \
		"$root/usr/share/shiftbind/hooks/hooks.d/$mode/shiftbind.json" ||
		fail "usr/share/shiftbind/hooks/hooks.d/$mode/shiftbind.json differs from configs/"
done
cmp -s "$top/configs/shiftbind-allow.conf" "$root/etc/shiftbind/allow.conf" ||
	fail "etc/shiftbind/allow.conf is not configs/shiftbind-allow.conf"
assert_contains "ExecStart=/usr/sbin/shiftbind apply-config /etc/shiftbind/allow.conf" \
	"$(cat "$root/lib/systemd/system/shiftbind-allow.service")" "the packaged unit"
# Every man page of docs/man, as it is there (the list above says which).
for page in "$top"/docs/man/*.[1-8]; do
	installed=$root/usr/share/man/man${page##*.}/${page##*/}.gz
	[ -f "$installed" ] || fail "the package lacks the man page ${page##*/} (oci-hook/Makefile install)"
	zcat "$installed" | cmp -s - "$page" || fail "$installed is not docs/man/${page##*/}"
done

# Fields.
field() { dpkg-deb -f "$deb" "$1"; }
assert_eq shiftbind "$(field Package)" "Package"
assert_eq amd64 "$(field Architecture)" "Architecture"
assert_eq "$(dpkg-parsechangelog -l "$top/debian/changelog" -S Version)" "$(field Version)" "Version"
depends=$(field Depends)
# needed BIN: the shared libraries BIN loads, sorted, on one line.
needed() { readelf -d "$root/$1" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | sort | paste -sd' '; }
# ${shlibs:Depends}: one package per library the CLI loads.
assert_eq "libc.so.6 libyajl.so.2" "$(needed usr/sbin/shiftbind)" \
	"shared libraries of usr/sbin/shiftbind (linked dynamically)"
hook=usr/libexec/shiftbind/shiftbind-hook
assert_eq "" "$(needed "$hook")" "shared libraries of $hook (static-pie)"
assert_eq "DYN" "$(readelf -h "$root/$hook" | awk '$1 == "Type:" { print $2 }')" \
	"ELF type of $hook (position-independent: ASLR kept)"
assert_eq "" "$(readelf -l "$root/$hook" | grep -F 'program interpreter' || true)" \
	"program interpreter of $hook (none: static)"
assert_eq "$(dpkg-query -f '${source:Package} (= ${source:Version}), ' -W libc6-dev libyajl-dev | sed 's/, $//')" \
	"$(field Built-Using)" "Built-Using (the hook's static glibc and yajl)"
assert_match '(^|, )libyajl2 \(>= [0-9.]+\)(,|$)' "$depends" "Depends (libyajl2 from shlibs)"
assert_match '(^|, )libc6 \(>= [0-9.]+\)(,|$)' "$depends" "Depends (libc6 from shlibs)"
assert_match '(^|, )systemd \| systemd-standalone-sysusers \| systemd-sysusers(,|$)' "$depends" \
	"Depends (systemd-sysusers, which the postinst runs)"

# Maintainer scripts.
ctl=$SCRATCH/control
dpkg-deb -e "$deb" "$ctl"
assert_eq /etc/shiftbind/allow.conf "$(cat "$ctl/conffiles")" "conffiles"
for script in "$ctl"/preinst "$ctl"/postinst "$ctl"/prerm "$ctl"/postrm; do
	[ -e "$script" ] || continue
	sh -n "$script" || fail "$(basename "$script") is not valid sh"
	! grep -En "deb-systemd-invoke (start|restart)|systemctl.* (start|restart) " "$script" ||
		fail "$(basename "$script") starts shiftbind-allow.service; it must only be enabled"
done
postinst=$(cat "$ctl/postinst")
assert_contains "deb-systemd-helper enable 'shiftbind-allow.service'" "$postinst" "postinst"
assert_match 'systemd-tmpfiles .*--create shiftbind\.conf' "$postinst" \
	"postinst (the hook's log directory, /usr/lib/tmpfiles.d/shiftbind.conf)"
sysusers=$(grep -E '^[[:space:]]*systemd-sysusers .*shiftbind\.conf$' "$ctl/postinst") ||
	fail "the postinst runs no systemd-sysusers on shiftbind.conf: $postinst"

# That postinst line, on a root holding the package's files, makes the
# user the hook's parser child runs as (not this host's: DPKG_ROOT).
[ ! -e "$root/etc/passwd" ] || fail "the package ships an etc/passwd"
DPKG_ROOT=$root sh -ec "$sysusers" >"$SCRATCH/sysusers.out" 2>&1 ||
	fail "the postinst's '$sysusers' failed: $(cat "$SCRATCH/sysusers.out")"
IFS=: read -r name _ uid gid _ home shell < <(grep '^shiftbind-parser:' "$root/etc/passwd") ||
	fail "no shiftbind-parser in the postinst's etc/passwd: $(cat "$root/etc/passwd")"
assert_eq "shiftbind-parser /nonexistent /usr/sbin/nologin" "$name $home $shell" \
	"shiftbind-parser's passwd entry"
if [ "$uid" -le 0 ] || [ "$uid" -ge 1000 ]; then
	fail "shiftbind-parser's uid $uid is not a system uid"
fi
assert_eq "shiftbind-parser:x:$gid:" "$(grep '^shiftbind-parser:' "$root/etc/group")" \
	"shiftbind-parser's own group"
[ "$(grep -c ":x:$uid:" "$root/etc/passwd")" -eq 1 ] || fail "uid $uid is not shiftbind-parser's alone"
assert_match '^shiftbind-parser:!' "$(grep '^shiftbind-parser:' "$root/etc/shadow")" \
	"shiftbind-parser's password (locked)"

# The packaged binaries run here (libyajl2 comes with libyajl-dev), with
# the installed paths built in.
assert_status 0 "$root/usr/libexec/shiftbind/shiftbind-hook" --help
assert_contains "createRuntime|createContainer|prestart" "$OUTPUT" "shiftbind-hook --help"
assert_status 0 "$root/usr/sbin/shiftbind" patch-config --help
assert_contains "(default /usr/libexec/shiftbind/shiftbind-hook)" "$OUTPUT" "shiftbind patch-config --help"

# lintian on everything the build produced (the .changes: the package,
# its -dbgsym and the .buildinfo).  Info tags are not counted.
changes=${deb%.deb}.changes
status=0
lint=$(lintian --fail-on error,warning "$changes" 2>&1) || status=$?
lint=$(grep -v '^running with root privileges' <<<"$lint" || true)
issues=$(grep -E '^[EW]: ' <<<"$lint" || true)
assert_eq "" "$issues" "lintian errors and warnings on $(basename "$changes")"
assert_eq 0 "$status" "lintian's exit status (output: $lint)"
echo "package checked: $(basename "$deb"), Depends: $depends"

# The kernels' packages.
# kernel_build BASE: the O= build directory of BASE's test kernel.
kernel_build() {
	KERNEL=$1 "$top/scripts/kernel.sh" build-dir test
}

# assert_in_package DEB PATH: the package DEB holds the file PATH (./...).
assert_in_package() {
	# grep reads it all (not -q): an early exit would fail dpkg-deb's
	# write, and the pipeline with it.
	dpkg-deb -c "$1" | awk '{ print $6 }' | grep -xF "$2" >/dev/null ||
		fail "${1##*/} holds no $2"
}

# check_kernel_packages BASE: its image and headers packages in $out/deb.
check_kernel_packages() {
	local base=$1 build release version image headers pkg file lint
	build=$(kernel_build "$base") || fail "no build directory of the $base kernel"
	release=$(cat "$build/include/config/kernel.release") ||
		fail "the $base kernel was not built ($build/include/config/kernel.release)"
	version=$(dpkg-query -W -f='${Version}' "linux-source-$base")+shiftbind$project_version
	image=$out/deb/linux-image-${release}_${version}_amd64.deb
	headers=$out/deb/linux-headers-${release}_${version}_amd64.deb
	for pkg in "$image" "$headers"; do
		[ -f "$pkg" ] || fail "make deb did not write $pkg; it wrote: $(ls "$out/deb")"
		assert_contains "$pkg" "$made" "make deb's list of packages"
		assert_eq amd64 "$(dpkg-deb -f "$pkg" Architecture)" "Architecture of ${pkg##*/}"
		assert_eq "$version" "$(dpkg-deb -f "$pkg" Version)" "Version of ${pkg##*/}"
	done
	assert_eq "linux-image-$release" "$(dpkg-deb -f "$image" Package)" "Package of the $base image"
	assert_eq "linux-headers-$release" "$(dpkg-deb -f "$headers" Package)" "Package of the $base headers"

	for file in "./boot/vmlinuz-$release" "./boot/config-$release" "./boot/System.map-$release" \
		"./lib/modules/$release/modules.order"; do
		assert_in_package "$image" "$file"
	done
	dpkg-deb --fsys-tarfile "$image" | tar -xOf - "./boot/vmlinuz-$release" >"$SCRATCH/vmlinuz-$base"
	cmp -s "$SCRATCH/vmlinuz-$base" "$(KERNEL=$base "$top/scripts/kernel.sh" image test)" ||
		fail "the kernel in ${image##*/} is not the cached build's bzImage ($build)"
	assert_contains "CONFIG_TEST_CONFIGFD=y" \
		"$(dpkg-deb --fsys-tarfile "$image" | tar -xOf - "./boot/config-$release")" \
		"the configuration in ${image##*/}"
	assert_in_package "$headers" "./usr/src/linux-headers-$release/Module.symvers"

	lint=$(lintian --fail-on error "$image" "$headers" 2>&1) ||
		fail "lintian errors on the $base kernel's packages: $lint"
}

if compgen -G "$out/deb/linux-libc-dev_*" >/dev/null; then
	fail "make deb kept linux-libc-dev, which would replace Debian's uapi headers: $(ls "$out/deb")"
fi
bases=$(kernels_under_test)
for base in $bases; do
	check_kernel_packages "$base"
	echo "kernel packages checked: $base"
done
