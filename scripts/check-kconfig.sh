#!/bin/bash
# check-kconfig.sh CONFIG FRAGMENT...
#
# Verify that every option a fragment asks for survived `make olddefconfig`
# in CONFIG.  Kconfig silently drops an option whose dependencies are not
# met, so without this check a fragment can say USER_NS=y and the guest
# still run without user namespaces.  Lists every option that did not
# survive and exits 1.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

[ $# -ge 2 ] || die "usage: check-kconfig.sh CONFIG FRAGMENT..."
config=$1
shift
[ -r "$config" ] || die "cannot read kernel configuration $config"

# What the fragments ask for, option by option: as merge_config.sh does,
# a later fragment overrides an earlier one.
declare -A wanted=()
order=()
for fragment in "$@"; do
	[ -r "$fragment" ] || die "cannot read configuration fragment $fragment"
	while IFS= read -r line; do
		if [[ $line =~ ^(CONFIG_[A-Za-z0-9_]+)=(.*)$ ]] ||
			[[ $line =~ ^#\ (CONFIG_[A-Za-z0-9_]+)\ is\ not\ set$ ]]; then
			[ -n "${wanted[${BASH_REMATCH[1]}]+set}" ] || order+=("${BASH_REMATCH[1]}")
			wanted[${BASH_REMATCH[1]}]=$line
		fi
	done <"$fragment"
done

missing=()
for option in "${order[@]}"; do
	line=${wanted[$option]}
	if [[ $line == "# "* ]]; then
		! grep -q "^$option=" "$config" ||
			missing+=("$line (have: $(grep "^$option=" "$config"))")
	else
		grep -qxF -- "$line" "$config" ||
			missing+=("$line (have: $(grep -E "^(# )?$option[= ]" "$config" || echo unset))")
	fi
done

if [ "${#missing[@]}" -gt 0 ]; then
	printf '  %s\n' "${missing[@]}" >&2
	die "${#missing[@]} option(s) of $* did not survive olddefconfig in $config; fix their dependencies in the fragment"
fi
