#!/bin/bash
# Every patch of the series is clean under the kernel's own
# `scripts/checkpatch.pl --strict`: no error, warning or check; and every
# file the series adds has a maintainer in MAINTAINERS.
#
# checkpatch's FILE_PATH_CHANGES ("does MAINTAINERS need updating?") fires
# for any patch that adds a file without touching MAINTAINERS, even when
# an existing entry covers it; get_maintainer.pl answers that question
# exactly, so it replaces the heuristic here.
. "$(dirname "$0")/../lib/testlib.sh"

patches=$SHIFTBIND_TESTS/../kernel-patches
tree=$("$SHIFTBIND_TESTS/../scripts/kernel.sh" source-tree)
# checkpatch's SPDX check runs python3 with Debian's ply and git modules.
export PATH=/usr/bin:/bin:$PATH

dirty=0
while read -r patch; do
	[ -n "$patch" ] || continue
	if ! report=$(cd "$tree" && perl scripts/checkpatch.pl --strict --quiet \
		--ignore FILE_PATH_CHANGES "$patches/$patch" 2>&1) || [ -n "$report" ]; then
		printf '%s:\n%s\n' "$patch" "$report"
		dirty=1
	fi
done <"$patches/series"
[ "$dirty" -eq 0 ] || fail "checkpatch --strict is not clean on the patches above"

# Files the series adds: "+++ b/PATH" right after "new file mode".
added=$(cd "$patches" && awk '/^new file mode/ { n = 1; next }
	n && /^\+\+\+ b\// { sub(/^\+\+\+ b\//, ""); print; n = 0 }' $(cat series) | sort -u)
[ -n "$added" ] || fail "found no added files in the series; is the parser broken?"
for file in $added; do
	case $file in */.gitignore) continue ;; esac
	owners=$(cd "$tree" && perl scripts/get_maintainer.pl --no-git --no-rolestats \
		--no-git-fallback -f "$file" 2>/dev/null)
	assert_contains "shiftbind developers" "$owners" "maintainers of $file"
done
