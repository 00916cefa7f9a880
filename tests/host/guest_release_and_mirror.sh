#!/bin/bash
# Which Debian release a kernel base's guest is debootstrapped from, with
# which packages, from where: scripts/lib.sh's guest_release (the table,
# GUEST_RELEASE, a base without an entry refused); rootfs-builder/
# packages' per-release lines; the mirror the host's apt sources name for
# the host's own release (deb822 and one-line files, security, -updates,
# other suites, disabled stanzas and options left out), or
# DEBOOTSTRAP_MIRROR, and an error saying what to do when there is none;
# and sid's debootstrap script for a suite the host's debootstrap does not
# know.  Nothing is fetched: the apt configuration is a scratch fixture.
. "$(dirname "$0")/../lib/testlib.sh"
scratch_dir

debootstrap_sh=$SHIFTBIND_TESTS/../rootfs-builder/debootstrap.sh

# in_lib VAR=VALUE... -- CMD...: CMD with scripts/lib.sh's functions.
in_lib() {
	local vars=()
	while [ "$1" != -- ]; do vars+=("$1") && shift; done
	shift
	# shellcheck disable=SC2016 # the inner bash expands them
	env -u GUEST_RELEASE "${vars[@]}" bash -c '. "$1"; shift; "$@"' in_lib \
		"$SHIFTBIND_TESTS/../scripts/lib.sh" "$@"
}

# in_debootstrap VAR=VALUE... -- CMD...: CMD with debootstrap.sh's
# functions, the host's apt configuration being $SCRATCH/apt.
in_debootstrap() {
	local vars=()
	while [ "$1" != -- ]; do vars+=("$1") && shift; done
	shift
	# shellcheck disable=SC2016 # the inner bash expands them
	env -u DEBOOTSTRAP_MIRROR APT_ETC="$SCRATCH/apt" OS_RELEASE="$SCRATCH/os-release" \
		"${vars[@]}" bash -c '. "$1"; shift; "$@"' in_debootstrap "$debootstrap_sh" "$@"
}

# The table: every supported base has a release.
while read -r base; do
	assert_status 0 in_lib -- guest_release "$base"
	assert_match '^[a-z]+$' "$OUTPUT" "guest release of kernel base $base"
done < <(in_lib -- supported_kernels)
assert_eq bookworm "$(in_lib -- guest_release 6.1)" "6.1's guest release"
assert_eq trixie "$(in_lib -- guest_release 6.12)" "6.12's guest release"
assert_eq trixie "$(in_lib GUEST_RELEASE=trixie -- guest_release 6.1)" "GUEST_RELEASE"
assert_eq bookworm "$(in_lib GUEST_RELEASE=bookworm -- guest_release 6.12)" "GUEST_RELEASE on 6.12"
assert_status 1 in_lib -- guest_release 5.10
assert_contains "no guest release for kernel base '5.10'; add 'BASE=SUITE' for it to GUEST_RELEASES in scripts/lib.sh" "$OUTPUT"
assert_status 1 in_lib GUEST_RELEASE='trixie;x' -- guest_release 6.1
assert_contains "GUEST_RELEASE='trixie;x' is not a Debian suite name" "$OUTPUT"

# The package lists: lines of one word in every release's, the others
# in the releases they name, in the file's order.
bookworm=$(in_debootstrap -- packages bookworm)
trixie=$(in_debootstrap -- packages trixie)
for pkg in crun podman systemd uidmap libyajl2 libseccomp2; do
	assert_contains ",$pkg," ",$bookworm," "bookworm's packages"
	assert_contains ",$pkg," ",$trixie," "trixie's packages"
done
for pkg in lxc systemd-container passt netavark; do
	assert_contains ",$pkg," ",$trixie," "trixie's packages"
	[[ ,$bookworm, != *",$pkg,"* ]] || fail "bookworm's packages name $pkg, a trixie line: $bookworm"
done
assert_contains ",containernetworking-plugins," ",$bookworm," "bookworm's packages"
[[ ,$trixie, != *",containernetworking-plugins,"* ]] || fail "trixie's packages name podman 4's CNI plugins: $trixie"

# The cluster variant: the release's list, then rootfs-builder/
# packages-cluster's; a base of its own, the plain one's key unchanged.
cluster=$(in_debootstrap -- packages trixie cluster)
[[ $cluster == "$trixie",* ]] || fail "the cluster variant's packages do not start with trixie's: $cluster"
for pkg in slurm-wlm munge nfs-kernel-server nfs-common squashfuse; do
	assert_contains ",$pkg," ",$cluster," "the cluster variant's packages"
	[[ ,$trixie, != *",$pkg,"* ]] || fail "trixie's plain packages name $pkg, a cluster package: $trixie"
done
assert_status 1 in_debootstrap -- packages trixie nosuch
assert_contains "no package list for guest variant 'nosuch'" "$OUTPUT"
plain=$(in_debootstrap SHIFTBIND_CACHE=/c -- eval 'suite=trixie variant=; base_dir')
variant=$(in_debootstrap SHIFTBIND_CACHE=/c -- eval 'suite=trixie variant=cluster; base_dir')
assert_match '^/c/guest/base-trixie-[0-9a-f]{16}$' "$plain" "the plain trixie base"
assert_match '^/c/guest/base-trixie-cluster-[0-9a-f]{16}$' "$variant" "the cluster base"
assert_eq "/c/guest/base-trixie-$(in_lib -- hash_string "trixie $trixie")" "$plain" \
	"the plain base's key (the same as before variants)"

# The mirror: the host's own release, component main, of either format.
mkdir -p "$SCRATCH/apt/sources.list.d"
echo VERSION_CODENAME=bookworm >"$SCRATCH/os-release"
cat >"$SCRATCH/apt/sources.list.d/a-other.sources" <<'EOF'
Types: deb
URIs: http://other.example.invalid/apt
Suites: cloud-sdk-bookworm
Components: main
EOF
cat >"$SCRATCH/apt/sources.list.d/debian.sources" <<'EOF'
# a disabled stanza first
Types: deb
URIs: http://disabled.example.invalid/debian
Suites: bookworm
Components: main
Enabled: no

Types: deb-src deb
URIs:
 http://mirror.example.invalid/debian
 http://second.example.invalid/debian
Suites: bookworm bookworm-updates
Components: main contrib
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb
URIs: http://security.example.invalid/debian-security
Suites: bookworm-security
Components: main
EOF
assert_eq http://mirror.example.invalid/debian "$(in_debootstrap -- mirror)" "mirror of a deb822 source"
assert_eq http://set.example.invalid/debian \
	"$(in_debootstrap DEBOOTSTRAP_MIRROR=http://set.example.invalid/debian -- mirror)" "DEBOOTSTRAP_MIRROR"

rm "$SCRATCH/apt/sources.list.d/debian.sources"
cat >"$SCRATCH/apt/sources.list" <<'EOF'
deb http://security.example.invalid/debian-security bookworm-security main
# deb http://commented.example.invalid/debian bookworm main
deb [arch=amd64 signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://line.example.invalid/debian bookworm contrib main
EOF
assert_eq http://line.example.invalid/debian "$(in_debootstrap -- mirror)" "mirror of a one-line source"

rm "$SCRATCH/apt/sources.list"
assert_status 1 in_debootstrap -- eval 'suite=trixie; mirror'
assert_contains "no apt source in $SCRATCH/apt/sources.list or $SCRATCH/apt/sources.list.d/ names suite bookworm with component main, the Debian mirror to debootstrap trixie from; add one, or set DEBOOTSTRAP_MIRROR" "$OUTPUT"

# A suite the host's debootstrap does not know takes sid's script.
mkdir -p "$SCRATCH/scripts"
: >"$SCRATCH/scripts/sid"
ln -s sid "$SCRATCH/scripts/bookworm"
assert_eq "$SCRATCH/scripts/bookworm" \
	"$(in_debootstrap DEBOOTSTRAP_SCRIPTS="$SCRATCH/scripts" -- eval 'suite=bookworm; debootstrap_script')" "a known suite's script"
assert_status 0 in_debootstrap DEBOOTSTRAP_SCRIPTS="$SCRATCH/scripts" -- eval 'suite=forky; debootstrap_script'
assert_eq "$SCRATCH/scripts/sid" "$(tail -n 1 <<<"$OUTPUT")" "an unknown suite's script"
assert_contains "this debootstrap has no script for forky; using sid's" "$OUTPUT"
