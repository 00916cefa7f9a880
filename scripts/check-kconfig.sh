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

missing=()
for fragment in "$@"; do
	[ -r "$fragment" ] || die "cannot read configuration fragment $fragment"
	while IFS= read -r line; do
		if [[ $line =~ ^(CONFIG_[A-Za-z0-9_]+)=(.*)$ ]]; then
			grep -qxF -- "$line" "$config" ||
				missing+=("$line (have: $(grep -E "^(# )?${BASH_REMATCH[1]}[= ]" "$config" || echo unset))")
		elif [[ $line =~ ^#\ (CONFIG_[A-Za-z0-9_]+)\ is\ not\ set$ ]]; then
			! grep -q "^${BASH_REMATCH[1]}=" "$config" ||
				missing+=("$line (have: $(grep "^${BASH_REMATCH[1]}=" "$config"))")
		fi
	done <"$fragment"
done

if [ "${#missing[@]}" -gt 0 ]; then
	printf '  %s\n' "${missing[@]}" >&2
	die "${#missing[@]} option(s) of $* did not survive olddefconfig in $config; fix their dependencies in the fragment"
fi
