#!/bin/bash
# Build the shiftbind kernel: Debian's linux-source-$KERNEL + the series of
# that base, kernel-patches/$KERNEL/series.
#
#   kernel.sh build [VARIANT]      extract, patch, configure, build (cached)
#   kernel.sh image [VARIANT]      print the path of the built bzImage
#   kernel.sh build-dir [VARIANT]  print the O= build directory
#   kernel.sh source-tree          print the patched source tree
#   kernel.sh dev-tree [DIR]       git work tree with one commit per patch
#   kernel.sh export [DIR]         write the dev tree's commits back as the series
#   kernel.sh deb [DIR]            build the test kernel's Debian packages into
#                                  DIR ($SHIFTBIND_OUT/deb/) and print their paths
#   kernel.sh bisect-build         build the kernel and the selftests at every
#                                  patch (separate tree and O= dir)
#
# VARIANT is "test" (default; the guests' and the packaged kernel) or
# "debug" (the fuzz suite's KASAN kernel); bisect-build's own, "bisect",
# only compiles.  Each is `allnoconfig` with configuration fragments of
# configs/ (config_fragments).  KERNEL names the base (a directory of
# kernel-patches/: 6.1 or 6.12); each base has its own source, build and
# dev trees, so a changed patch of one base rebuilds only that kernel.
#
# Cache layout under $SHIFTBIND_CACHE/kernel, keyed by what each part is
# built from:
#   linux-<srcver>/            git repository of the pristine extract (tag
#                              "base"), its work tree patched with the series
#   build-<srcver>-<variant>/  O= build directory of one variant; its
#                              .shiftbind-configured holds the hash of the
#                              configuration fragments it was configured
#                              from, .shiftbind-built the series and that
#                              hash it was built from
#   dev-<base>/                `make kernel-tree`'s default work tree
#   bisect-tree-<base>/        `make kernel-bisect`'s work tree (its O= dir
#                              is build-<srcver>-bisect-prefixes/; the
#                              configuration is build-<srcver>-bisect/'s)
#   deb-<srcver>/              the Debian packages of the test kernel
#                              (`make deb`), with the built key and the
#                              package version they were made from
# <srcver> is the Debian version of linux-source-<base>, so the bases never
# share a tree or a build.
# A changed series re-patches only the files the patches touch, and a
# changed fragment reconfigures the same directory, so either way the next
# build is incremental: Kbuild records the sources, headers and CONFIG_
# options each object depends on.  (A directory per configuration would
# not be: a copy of a build directory rebuilds everything, because
# objtool's build records absolute paths and every object depends on it.)
set -euo pipefail
. "$(dirname "$0")/lib.sh"

KERNEL=${KERNEL:-$DEFAULT_KERNEL}
require_kernel "$KERNEL"
readonly KERNEL
readonly SRC_PACKAGE=linux-source-$KERNEL
readonly SRC_TARBALL=/usr/src/$SRC_PACKAGE.tar.xz
readonly PATCH_DIR=$SHIFTBIND_ROOT/kernel-patches/$KERNEL
readonly SERIES=$PATCH_DIR/series
# make_hint TARGET: the make command that does TARGET for this base, for
# the "what to do" part of an error.
make_hint() { echo "KERNEL=$KERNEL make $1"; }

# variant_target VARIANT: the make target that builds VARIANT.
variant_target() {
	if [ "${1:-test}" = test ]; then echo kernel; else echo "kernel-$1"; fi
}

# gc.auto=0: an automatic "git gc" forks into the background holding the
# descriptors of the command that started it, among them the flock of
# the cache lock held around it (scripts/lib.sh's locked()), so a commit
# of the freshly extracted tree kept the kernel lock for the minutes its
# repack took and every build of that base waited.
readonly GIT_ID=(-c user.name=shiftbind -c user.email=shiftbind@localhost
	-c advice.detachedHead=false -c core.autocrlf=false -c gc.auto=0)

source_version() {
	dpkg-query -W -f='${Version}' "$SRC_PACKAGE" 2>/dev/null ||
		die "Debian package $SRC_PACKAGE is not installed; run 'make deps'"
}

kernel_cache() { echo "$SHIFTBIND_CACHE/kernel"; }
source_dir() { echo "$(kernel_cache)/linux-$(source_version)"; }

# config_fragments VARIANT: the fragments merged, in this order, into
# allnoconfig for VARIANT: the tested options and what they depend on
# (all), what the rig's guests boot with (test, debug; and what only the
# base's own kernel has, configs/kernel-guest-BASE.config where there is
# one), what the packaged kernel needs to be a virtual machine's (test),
# KASAN and friends (debug).
config_fragments() {
	local c=$SHIFTBIND_ROOT/configs tested guest
	tested="$c/kernel.config $c/kernel-small.config"
	guest="$c/kernel-guest.config"
	[ ! -f "$c/kernel-guest-$KERNEL.config" ] || guest+=" $c/kernel-guest-$KERNEL.config"
	case "${1:-test}" in
	test) echo "$tested $guest $c/kernel-vm.config" ;;
	debug) echo "$tested $guest $c/kernel-debug.config" ;;
	bisect) echo "$tested" ;;
	*) die "unknown kernel variant '$1'; use 'test' or 'debug'" ;;
	esac
}

# require_bootable VARIANT: die unless VARIANT is one that boots (bisect's
# configuration only compiles).
require_bootable() {
	case $1 in
	test | debug) ;;
	*) die "unknown kernel variant '$1'; use 'test' or 'debug'" ;;
	esac
}

build_dir() {
	config_fragments "${1:-test}" >/dev/null # dies on an unknown variant
	echo "$(kernel_cache)/build-$(source_version)-${1:-test}"
}

# config_key VARIANT: hash of the variant's configuration fragments.
config_key() {
	# shellcheck disable=SC2046
	hash_files $(config_fragments "$1")
}

# built_key VARIANT: what a finished build of the variant was made from.
built_key() { echo "$(series_key) config $(config_key "$1")"; }

# load_series: the patches the series file names, in order, as absolute
# paths, into the array PATCHES.  Run in the calling shell, never in a
# command or process substitution, so that die() on a missing patch ends
# the script instead of a subshell that would leave a shortened series.
PATCHES=()
load_series() {
	local name
	[ -f "$SERIES" ] || die "missing $SERIES; it lists the patches to apply, one per line"
	PATCHES=()
	while read -r name; do
		case "$name" in '' | '#'*) continue ;; esac
		[ -f "$PATCH_DIR/$name" ] || die "$SERIES names '$name', which is not in $PATCH_DIR"
		PATCHES+=("$PATCH_DIR/$name")
	done <"$SERIES"
}

series_key() {
	hash_files "$SERIES" "${PATCHES[@]}"
}

# A pristine extract as a git repository, built aside and moved into place
# so that an interrupted extraction never leaves a half tree behind.
create_source_repo() {
	local dir=$1 tmp
	[ -r "$SRC_TARBALL" ] || die "$SRC_TARBALL not found; run 'make deps' to install $SRC_PACKAGE"
	check_free_space "$(kernel_cache)" 4000
	tmp=$(mktemp -d "$(kernel_cache)/.extract.XXXXXX")
	log "extracting $SRC_TARBALL (once per linux-source version)"
	tar -C "$tmp" -xf "$SRC_TARBALL"
	mv "$tmp/$SRC_PACKAGE" "$tmp/tree"
	log "recording the pristine tree in git (base of the series)"
	git -C "$tmp/tree" init -q
	# -f: Debian's .gitignore ignores everything at the top level.
	git -C "$tmp/tree" "${GIT_ID[@]}" add -A -f
	git -C "$tmp/tree" "${GIT_ID[@]}" commit -q -m "linux-source $(source_version)"
	git -C "$tmp/tree" tag pristine
	unignore_tree "$tmp/tree"
	git -C "$tmp/tree" tag base
	mv "$tmp/tree" "$dir"
	rmdir "$tmp"
}

# Debian's linux-source appends "/*" to the kernel's .gitignore, which hides
# every new file a patch adds from git.  Drop that block in a commit of its
# own below "base", so that the series (base..HEAD) never contains it.
unignore_tree() {
	local tree=$1 line
	line=$(grep -n '^# Debian packaging' "$tree/.gitignore" | cut -d: -f1) || return 0
	head -n $((line - 2)) "$tree/.gitignore" >"$tree/.gitignore.new"
	mv "$tree/.gitignore.new" "$tree/.gitignore"
	git -C "$tree" "${GIT_ID[@]}" commit -q -a -m "shiftbind: drop Debian's catch-all .gitignore rules"
}

# series_trees DIR: the git trees of base + the first 1, 2, ... N patches
# of the series, one per line, built in one scratch index (each patch
# applied on the tree before it): the work tree is not touched, so a
# patch that does not apply leaves it as it was.
series_trees() {
	local dir=$1 patch index
	index=$(mktemp)
	rm -f "$index"
	GIT_INDEX_FILE=$index git -C "$dir" read-tree base
	for patch in "${PATCHES[@]}"; do
		log "applying ${patch##*/}"
		if ! GIT_INDEX_FILE=$index git -C "$dir" apply --cached \
			--whitespace=nowarn "$patch" 2>"$dir/.git/apply.log"; then
			rm -f "$index"
			cat "$dir/.git/apply.log" >&2
			die "patch ${patch##*/} does not apply to $SRC_PACKAGE $(source_version); rebase it in the dev tree ('$(make_hint kernel-tree)', then '$(make_hint kernel-export)')"
		fi
		GIT_INDEX_FILE=$index git -C "$dir" write-tree
	done
	rm -f "$index"
}

# series_tree DIR: the git tree of base + the whole series.
series_tree() {
	series_trees "$1" | tail -n 1
}

# series_applied: the work tree of the source repository is base + series.
series_applied() {
	[ "$(cat "$(source_dir)/.git/shiftbind-series" 2>/dev/null)" = "$(series_key)" ]
}

# Bring the work tree of the source repository to base + series.  Moving
# it with `git reset --hard` rewrites only the files whose content
# differs, so everything else keeps its mtime and make rebuilds only what
# depends on the changed files.
apply_series() {
	local dir key tree commit
	dir=$(source_dir)
	[ -d "$dir/.git" ] || create_source_repo "$dir"
	series_applied && return 0
	key=$(series_key)
	tree=$(series_tree "$dir")
	rm -f "$dir/.git/shiftbind-series"
	commit=$(git -C "$dir" "${GIT_ID[@]}" commit-tree "$tree" -p base -m "series $key")
	git -C "$dir" reset -q --hard "$commit"
	git -C "$dir" clean -q -fdx
	echo "$key" >"$dir/.git/shiftbind-series"
}

configure() {
	local variant=$1 src build key
	src=$(source_dir)
	build=$(build_dir "$variant")
	key=$(config_key "$variant")
	[ -f "$build/.config" ] && [ "$(cat "$build/.shiftbind-configured" 2>/dev/null)" = "$key" ] &&
		return 0
	rm -f "$build/.shiftbind-configured"
	mkdir -p "$build"
	log "configuring $variant kernel in $build"
	make -s -C "$src" O="$build" allnoconfig >/dev/null
	# shellcheck disable=SC2046
	(cd "$src" && scripts/kconfig/merge_config.sh -m -O "$build" "$build/.config" \
		$(config_fragments "$variant")) >"$build/merge_config.log"
	make -s -C "$src" O="$build" olddefconfig >/dev/null
	# shellcheck disable=SC2046
	"$SHIFTBIND_ROOT/scripts/check-kconfig.sh" "$build/.config" $(config_fragments "$variant")
	echo "$key" >"$build/.shiftbind-configured"
}

build() {
	local variant=${1:-test} src build key log_file
	require_cmd git git
	require_cmd flex flex
	require_cmd bison bison
	series_applied || die "the $KERNEL source tree does not hold the series; run '$(make_hint kernel)'"
	configure "$variant"
	src=$(source_dir)
	build=$(build_dir "$variant")
	key=$(built_key "$variant")
	if [ "$(cat "$build/.shiftbind-built" 2>/dev/null)" = "$key" ] &&
		[ -f "$build/arch/x86/boot/bzImage" ]; then
		log "$variant kernel up to date: $build/arch/x86/boot/bzImage"
		return 0
	fi
	check_free_space "$build" 2000
	rm -f "$build/.shiftbind-built"
	log_file=$build/shiftbind-build.log
	log "building $variant kernel with -j$JOBS (log: $log_file)"
	# LOCALVERSION set but empty: the release is the version plus the
	# fragment's "-shiftbind", never a "+" for the git work tree.  The
	# build version (uname -v's "#...") is the packages' (package_version),
	# so that `make deb` of this build relinks nothing.
	if ! make -C "$src" O="$build" -j"$JOBS" LOCALVERSION= \
		KBUILD_BUILD_VERSION="$(build_version)" bzImage headers >"$log_file" 2>&1; then
		grep -E 'error|Error' "$log_file" | head -n 20 >&2 || true
		tail -n 20 "$log_file" >&2
		die "kernel build failed; full log: $log_file"
	fi
	echo "$key" >"$build/.shiftbind-built"
	log "built $(cat "$build/include/config/kernel.release"): $build/arch/x86/boot/bzImage"
}

image() {
	local variant=${1:-test} build img
	build=$(build_dir "$variant")
	img=$build/arch/x86/boot/bzImage
	[ -f "$img" ] || die "no kernel built at $img; run '$(make_hint "$(variant_target "$variant")")'"
	[ "$(cat "$build/.shiftbind-built" 2>/dev/null)" = "$(built_key "$variant")" ] ||
		die "the $variant kernel in $build was built from another series or configuration; run '$(make_hint "$(variant_target "$variant")")'"
	echo "$img"
}

# package_version: the Debian version of this base's kernel packages, the
# Debian source's version and this project's (debian/changelog), so that
# a newer either is a newer package: "6.12.118-1~deb12u1+shiftbind0.1.0".
package_version() {
	local project
	project=$(dpkg-parsechangelog -l "$SHIFTBIND_ROOT/debian/changelog" -S Version) ||
		die "cannot read the version from $SHIFTBIND_ROOT/debian/changelog"
	echo "$(source_version)+shiftbind$project"
}

# build_version: what Kbuild's deb packaging passes as KBUILD_BUILD_VERSION,
# the package version's Debian revision (after its last "-").
build_version() {
	local version
	version=$(package_version)
	echo "${version##*-}"
}

# Debian packages of the test kernel, made by the kernel's own bindeb-pkg
# from the cached build: linux-image-RELEASE (the kernel and its modules)
# and linux-headers-RELEASE (for out-of-tree modules).  Not linux-libc-dev,
# which bindeb-pkg also makes: installed, it would replace Debian's, the
# uapi headers every program on the host is built against, with this
# kernel's.  Packages of an up-to-date build are kept in deb-<srcver>/ and
# only copied the next time; a changed series or project version makes
# them again (the build is then incremental: relinked, not recompiled).
deb() {
	local out=${1:-$SHIFTBIND_OUT/deb} src build key dir version deb
	require_cmd dpkg-buildpackage dpkg-dev
	require_cmd fakeroot fakeroot
	build test
	src=$(source_dir)
	build=$(build_dir test)
	version=$(package_version)
	# The packaging too: this script and the overrides it installs.
	key="$(built_key test) package $version $(hash_files "$0" \
		"$SHIFTBIND_ROOT/configs/kernel-package.lintian-overrides")"
	dir=$(kernel_cache)/deb-$(source_version)
	if [ "$(cat "$dir/.shiftbind-made" 2>/dev/null)" != "$key" ]; then
		rm -rf "$dir"
		mkdir -p "$dir"
		make_kernel_debs "$src" "$build" "$version" "$dir"
		echo "$key" >"$dir/.shiftbind-made"
	fi
	mkdir -p "$out"
	for deb in "$dir"/linux-*.deb; do
		cp "$deb" "$out/"
		echo "$out/${deb##*/}"
	done
}

# make_kernel_debs SRC BUILD VERSION DIR: bindeb-pkg of BUILD, its image
# and headers packages moved into DIR.  dpkg-buildpackage writes its
# products next to the directory it builds in, BUILD's parent, the cache
# holding every base's builds: only those of VERSION are this build's.
make_kernel_debs() {
	local src=$1 build=$2 version=$3 dir=$4 parent log_file deb
	parent=$(dirname "$build")
	log_file=$dir/bindeb-pkg.log
	log "packaging the test kernel of $KERNEL as $version (log: $log_file)"
	rm -f "$parent"/*_"$version"_*
	# DPKG_FLAGS=-d: the build dependencies of Kbuild's generated
	# debian/control are those of building the kernel, which this
	# build did; 6.1's bindeb-pkg checks them, 6.12's does not.
	# KDEB_COMPRESS=none: finish_package unpacks and compresses them
	# again, and compressing the headers package twice is a minute.
	if ! DEBFULLNAME="shiftbind developers" DEBEMAIL=shiftbind@example.org \
		KDEB_CHANGELOG_DIST=bookworm KDEB_SOURCENAME=linux-shiftbind KDEB_COMPRESS=none \
		make -C "$src" O="$build" -j"$JOBS" LOCALVERSION= \
			KDEB_PKGVERSION="$version" KBUILD_BUILD_VERSION="$(build_version)" \
			DPKG_FLAGS=-d bindeb-pkg >"$log_file" 2>&1; then
		tail -n 20 "$log_file" >&2
		die "packaging the $KERNEL kernel failed (bindeb-pkg); log: $log_file"
	fi
	mv "$parent"/linux-image-*_"$version"_*.deb "$parent"/linux-headers-*_"$version"_*.deb "$dir/" ||
		die "bindeb-pkg made no linux-image and linux-headers package of $version in $parent; log: $log_file"
	rm -f "$parent"/*_"$version"_*
	for deb in "$dir"/*.deb; do
		finish_package "$deb"
	done
}

# finish_package DEB: what bindeb-pkg leaves to a distribution's
# packaging (dh_strip, dh_shlibdeps, dh_fixperms, dh_lintian), done to
# the package DEB in place: its ELF programs (the headers package's host
# tools: fixdep, modpost, objtool...) stripped and their libraries
# declared in Depends, the kernel tree's .gitignore files dropped, files
# that are executable but neither ELF nor a script (fragments Kbuild's
# scripts source) made plain files, and lintian's overrides installed
# (configs/kernel-package.lintian-overrides says why).  Repacked with its
# md5sums and installed size computed again.
finish_package() {
	local deb=$1 work tree package file depends elfs=()
	work=$(mktemp -d "$(dirname "$deb")/.finish.XXXXXX")
	tree=$work/tree
	dpkg-deb -R "$deb" "$tree"
	package=$(sed -n 's/^Package: //p' "$tree/DEBIAN/control")
	find "$tree" -path "$tree/DEBIAN" -prune -o -type f -name .gitignore -exec rm -f {} +
	while IFS= read -r -d '' file; do
		if readelf -h "$file" >/dev/null 2>&1; then
			elfs+=("$file")
		elif [ "$(head -c 2 "$file")" != '#!' ]; then
			chmod a-x "$file"
		fi
	done < <(find "$tree" -path "$tree/DEBIAN" -prune -o -type f -perm /111 -print0)
	if [ "${#elfs[@]}" -gt 0 ]; then
		strip --strip-unneeded --remove-section=.comment --remove-section=.note "${elfs[@]}"
		# dpkg-shlibdeps reads a debian/control; any will do.
		mkdir "$work/debian"
		: >"$work/debian/control"
		depends=$(cd "$work" && dpkg-shlibdeps -O "${elfs[@]/#/-e}" 2>/dev/null |
			sed -n 's/^shlibs:Depends=//p')
		[ -n "$depends" ] || die "dpkg-shlibdeps found no libraries for the programs of $package"
		sed -i "/^Architecture:/a Depends: $depends" "$tree/DEBIAN/control"
	fi
	install -D -m 644 "$SHIFTBIND_ROOT/configs/kernel-package.lintian-overrides" \
		"$tree/usr/share/lintian/overrides/$package"
	sed -i "s/^Installed-Size: .*/Installed-Size: $(installed_size "$tree")/" "$tree/DEBIAN/control"
	(cd "$tree" && find . -path ./DEBIAN -prune -o -type f -printf '%P\0' | LC_ALL=C sort -z |
		xargs -0 md5sum) >"$tree/DEBIAN/md5sums"
	dpkg-deb --root-owner-group -Zxz -b "$tree" "$deb" >/dev/null
	rm -rf "$work"
}

# installed_size TREE: dpkg's Installed-Size of a package tree, in KiB
# (each file rounded up, one for anything else).
installed_size() {
	find "$1" -mindepth 1 -path "$1/DEBIAN" -prune -o -printf '%y %s\n' |
		awk '{ n += ($1 == "f") ? int(($2 + 1023) / 1024) : 1 } END { print n }'
}

default_dev_tree() { echo "$(kernel_cache)/dev-$KERNEL"; }

# dev_branch TREE: the branch of a dev tree.  Branches are shared by
# every work tree of the source repository, so each tree gets its own:
# "shiftbind" for the default tree, a name derived from the path for any
# other (a test's scratch tree), so that making one never moves the
# branch a developer has checked out elsewhere.
dev_branch() {
	if [ "$1" = "$(default_dev_tree)" ]; then
		echo shiftbind
	else
		echo "shiftbind-${1##*/}-$(hash_string "$1")"
	fi
}

# A git work tree sharing the source repository's objects, on its own
# branch (dev_branch), with each patch of the series as one commit.
dev_tree() {
	local tree=${1:-$(default_dev_tree)} repo branch
	repo=$(source_dir)
	branch=$(dev_branch "$tree")
	[ -d "$repo/.git" ] || create_source_repo "$repo"
	if [ -e "$tree" ]; then
		log "dev tree already exists: $tree"
		log "to start over from kernel-patches/$KERNEL/: git -C $repo worktree remove --force $tree"
		return 0
	fi
	git -C "$repo" worktree prune
	git -C "$repo" "${GIT_ID[@]}" worktree add -q --detach "$tree" base
	git -C "$tree" checkout -q -B "$branch"
	if [ "${#PATCHES[@]}" -gt 0 ] &&
		! git -C "$tree" "${GIT_ID[@]}" am -q --committer-date-is-author-date "${PATCHES[@]}"; then
		die "git am failed in $tree; resolve there ('git am --continue') or remove the tree"
	fi
	log "dev tree ready: $tree (branch $branch, ${#PATCHES[@]} patches on tag base)"
	log "edit and commit there, then '$(make_hint kernel-export)' writes kernel-patches/$KERNEL/"
}

# Write base..HEAD of a dev tree as numbered patches plus a series file.
# --zero-commit and --no-signature make the output depend only on the
# commits' content, so tree -> patches -> tree -> patches round-trips
# without a diff.
export_series() {
	local tree=${1:-$(default_dev_tree)} out=${2:-$PATCH_DIR} tmp
	[ -d "$tree" ] || die "no dev tree at $tree; create it with '$(make_hint kernel-tree)'"
	[ -z "$(git -C "$tree" status --porcelain --untracked-files=no)" ] ||
		die "$tree has uncommitted changes; commit them (one commit per patch) first"
	tmp=$(mktemp -d)
	git -C "$tree" format-patch -q --zero-commit --no-signature --abbrev=12 \
		-N -o "$tmp" base..HEAD
	(cd "$tmp" && { ls -1 -- *.patch 2>/dev/null || true; }) >"$tmp/series"
	mkdir -p "$out"
	rm -f "$out"/*.patch
	if compgen -G "$tmp/*.patch" >/dev/null; then
		mv "$tmp"/*.patch "$out/"
	fi
	mv "$tmp/series" "$out/series"
	rmdir "$tmp"
	log "wrote $(grep -c . "$out/series" || true) patches and the series file to $out"
}

# kernel_inputs_key REPO TREE: a hash of the git TREE without the parts
# no kernel image is built from (Documentation/, tools/testing/): two
# prefixes of the series with the same key build the same bzImage.
kernel_inputs_key() {
	local repo=$1 tree=$2
	{
		git -C "$repo" ls-tree "$tree" | grep -v -e $'\tDocumentation$' -e $'\ttools$'
		git -C "$repo" ls-tree "$tree:tools" | grep -v -e $'\ttesting$'
	} | sha1sum | cut -d' ' -f1
}

# selftests_inputs_key REPO TREE: a hash of what the selftests are built
# from (their sources, the uapi headers, the syscall table).
selftests_inputs_key() {
	local repo=$1 tree=$2 path
	for path in tools/testing/selftests include/uapi arch/x86/entry/syscalls; do
		git -C "$repo" rev-parse "$tree:$path"
	done | sha1sum | cut -d' ' -f1
}

# present_kselftests TREE: those of KSELFTESTS the work tree TREE has (the
# series adds configfd's at its fifth patch).
present_kselftests() {
	local t
	for t in "${KSELFTESTS[@]}"; do
		if [ -d "$1/tools/testing/selftests/$t" ]; then echo "$t"; fi
	done
}

# Build the kernel and the selftests at every patch of the series, in a
# work tree and build directory of their own (so the main build stays
# warm): the first build is cold, each later one incremental.  Stops at
# the first patch that breaks the build.  Only then is the series
# bisectable.  The configuration is the "bisect" variant's: the tested
# options and what they need, none of the guests', since several patches
# change headers most of the kernel includes; at the end, every C file
# the series changes must have been compiled (series_objects_built).  What built once
# is remembered (bisect-ok/, one stamp per configuration and kernel
# sources, one per selftest sources), so a patch that changes only
# selftests or documentation rebuilds no kernel, and a rerun after
# patches were added or changed builds only what is new.
bisect_build() {
	local repo tree config build k total trees tree_id commit
	local kernel_stamp selftests_stamp patch
	repo=$(source_dir)
	patched_tree
	configure bisect
	config=$(build_dir bisect)/.config
	tree=$(kernel_cache)/bisect-tree-$KERNEL
	build=$(build_dir bisect)-prefixes
	total=${#PATCHES[@]}
	if [ ! -d "$tree" ]; then
		git -C "$repo" worktree prune
		git -C "$repo" worktree add -q --detach "$tree" base
	fi
	mkdir -p "$build/bisect-ok"
	trees=$(series_trees "$repo")
	mapfile -t trees <<<"$trees"
	for ((k = 1; k <= total; k++)); do
		patch=${PATCHES[$((k - 1))]##*/}
		tree_id=${trees[$((k - 1))]}
		kernel_stamp=$build/bisect-ok/kernel-$(config_key bisect)-$(kernel_inputs_key "$repo" "$tree_id")
		selftests_stamp=$build/bisect-ok/selftests-$(selftests_inputs_key "$repo" "$tree_id")
		if [ -e "$kernel_stamp" ] && [ -e "$selftests_stamp" ]; then
			log "patches 1..$k of $total: built before from the same sources"
			continue
		fi
		commit=$(git -C "$repo" "${GIT_ID[@]}" commit-tree "$tree_id" -p base -m "first $k patches")
		git -C "$tree" reset -q --hard "$commit"
		git -C "$tree" clean -q -fdx
		# The full configuration each time: an option a later patch
		# adds (TEST_CONFIGFD) is then built from that patch on.
		cp "$config" "$build/.config"
		make -C "$tree" O="$build" -s olddefconfig >/dev/null
		if [ ! -e "$kernel_stamp" ]; then
			log "building the kernel with patches 1..$k of $total ($patch)"
			bisect_make "$tree" "$build" "$k" "$patch" bzImage
			touch "$kernel_stamp"
		fi
		log "building the selftests with patches 1..$k of $total"
		# The headers of this prefix: the last kernel built in $build
		# may be another's (a rerun), and selftests include them.
		bisect_make "$tree" "$build" "$k" "$patch" headers
		# shellcheck disable=SC2046 # one selftest name a word
		(build_kselftests "$tree" "$build" $(present_kselftests "$tree")) ||
			die "the selftests do not build with patches 1..$k ($patch)"
		touch "$selftests_stamp"
	done
	series_objects_built "$build"
	log "the kernel and its selftests build at each of the $total patches"
}

# series_objects_built BUILD: every C file of the kernel the series changes
# has its object in BUILD, so the small bisect configuration compiled all
# of the series' own code at every patch.
series_objects_built() {
	local file missing=()
	while read -r file; do
		[ -e "$1/${file%.c}.o" ] || missing+=("$file")
	done < <(sed -n 's|^+++ b/\(.*\.c\)$|\1|p' "${PATCHES[@]}" | grep -v '^tools/' | sort -u)
	[ "${#missing[@]}" -eq 0 ] ||
		die "the bisect configuration does not compile ${missing[*]}, which the series changes; enable their options in configs/kernel-small.config"
}

# bisect_make TREE BUILD K PATCH TARGET: make TARGET of the bisect tree
# holding the first K patches (the last one PATCH) in BUILD.
bisect_make() {
	local tree=$1 build=$2 k=$3 patch=$4 target=$5
	if ! make -C "$tree" O="$build" -j"$JOBS" LOCALVERSION= "$target" \
		>"$build/bisect-$k-$target.log" 2>&1; then
		tail -n 20 "$build/bisect-$k-$target.log" >&2
		die "make $target fails with patches 1..$k ($patch); log: $build/bisect-$k-$target.log"
	fi
}

# Locks, per base: "kernel-BASE" guards its source tree, held exclusively
# to change it (apply_series) and shared while a build or a dev tree reads it;
# "kernel-BASE-VARIANT" guards one build directory.  So the test kernel's
# packaging, the debug kernel's build and checkpatch's reading of the tree
# go on side by side (`make test` does them while a guest boots), and
# nothing changes the tree under a build.

# patched_tree: the source tree holds the series, applied if need be.
patched_tree() {
	series_applied 2>/dev/null || with_lock "kernel-$KERNEL" apply_series
}

# reading_tree CMD...: CMD on the patched source tree, which nothing
# changes meanwhile.
reading_tree() {
	patched_tree
	with_shared_lock "kernel-$KERNEL" "$@"
}

main() {
	local cmd=${1:-}
	shift || true
	# Every command but export reads the series; a missing patch ends here.
	[ "$cmd" = export ] || load_series
	case "$cmd" in
	build)
		require_bootable "${1:-test}"
		with_lock "kernel-$KERNEL-${1:-test}" reading_tree build "$@"
		;;
	image) image "$@" ;;
	build-dir) build_dir "$@" ;;
	# Not "patched_tree && source_dir": errexit is off on the left of &&.
	source-tree)
		patched_tree
		source_dir
		;;
	# A work tree of its own: the source tree is only read.
	dev-tree) reading_tree dev_tree "$@" ;;
	export) export_series "$@" ;;
	deb) with_lock "kernel-$KERNEL-test" reading_tree deb "$@" ;;
	bisect-build) with_lock "kernel-bisect-$KERNEL" bisect_build "$@" ;;
	*) die "usage: kernel.sh build|image|build-dir|source-tree|dev-tree|export|deb|bisect-build [ARGS]" ;;
	esac
}

main "$@"
