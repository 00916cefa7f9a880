#!/bin/bash
# deps.sh: install the Debian packages the build and the tests need, only
# those that are missing.  Uses the host's apt sources.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

readonly PACKAGES=(
	# kernel build: the source of each kernel base (kernel-patches/BASE/;
	# Debian 12 has 6.12 from its security archive)
	linux-source-6.1 linux-source-6.12
	build-essential bc bison flex libelf-dev libssl-dev
	cpio kmod rsync dwarves python3 xz-utils git
	# scripts/checkpatch.pl (its SPDX check)
	python3-ply python3-git
	# guest
	qemu-system-x86 debootstrap e2fsprogs
	# user space: hook, CLI, tests (clang + libclang-rt: libFuzzer, ASan)
	libyajl-dev pkg-config jq crun uidmap
	# the hook's seccomp filters, generated at build time
	libseccomp-dev
	clang libclang-rt-14-dev valgrind
	# man pages: render checks
	man-db mandoc groff-base
	# make bench: the plot
	gnuplot-nox
	# make deb (debian/control's Build-Depends above, plus these) and
	# host.deb_contents, which checks the packages with lintian; 6.1's
	# bindeb-pkg runs its packaging steps under fakeroot
	debhelper dpkg-dev lintian fakeroot
)

missing=()
for pkg in "${PACKAGES[@]}"; do
	dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed' ||
		missing+=("$pkg")
done
[ "${#missing[@]}" -eq 0 ] && exit 0

[ "$(id -u)" -eq 0 ] || die "missing packages ${missing[*]}; run 'make deps' as root or install them with apt-get"
log "installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq || die "apt-get update failed; check the host's apt sources and network"
apt-get install -y -qq --no-install-recommends "${missing[@]}" ||
	die "apt-get install of ${missing[*]} failed; see the messages above"
