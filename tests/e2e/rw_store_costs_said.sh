#!/bin/bash
# What a read-write mark costs the host is said and bounded
# (shiftbind(8), "SECURITY"): with fs.protected_hardlinks at 0,
# where any local user could hard-link real root's files into the store
# for a shift to rewrite, `shiftbind allow --rw` refuses and marks
# nothing; a read-write store that is neither a filesystem of its own nor
# under a project quota is marked with a warning (writes through its
# shifts are charged to uid 0); one on a filesystem of its own, and any
# read-only store, without.
. "$(dirname "$0")/../lib/testlib.sh"
require_guest

store=/srv/e2e-rwcost-$$
own=/srv/e2e-rwcost-own-$$
mkdir -p "$store" "$own"
readonly HARDLINKS=/proc/sys/fs/protected_hardlinks
saved=$(cat "$HARDLINKS")
cleanup() {
	echo "$saved" >"$HARDLINKS"
	for dir in "$store" "$own"; do
		while mountpoint -q "$dir"; do umount "$dir" || break; done
	done
	rm -rf "$store" "$own" "$own.img"
}
trap cleanup EXIT
readonly WARNING="is neither a filesystem of its own nor under a project quota"

echo 0 >"$HARDLINKS"
assert_status 1 shiftbind allow --rw "$store"
assert_contains "refusing to mark \`$store\` read-write: fs.protected_hardlinks is 0" "$OUTPUT" "the refusal"
mountpoint -q "$store" && fail "the refused store was mounted: $(grep " $store " /proc/self/mountinfo)"
echo 1 >"$HARDLINKS"

assert_status 0 shiftbind allow --rw "$store"
assert_contains "warning: $store $WARNING" "$OUTPUT" "the warning for a store on the root filesystem"
assert_status 0 shiftbind allow "$store"
[[ $OUTPUT != *"$WARNING"* ]] || fail "a read-only mark was warned about: $OUTPUT"

# A filesystem of its own that every kernel base can idmap (tmpfs cannot
# before 6.3, and the mark of one is refused): a small ext4 image.
truncate -s 8M "$own.img"
mkfs.ext4 -q -E root_owner=0:0 "$own.img"
mount -o loop,nosuid,nodev "$own.img" "$own"
chmod 0711 "$own"
assert_status 0 shiftbind allow --rw "$own"
[[ $OUTPUT != *"$WARNING"* ]] || fail "a store on its own filesystem was warned about: $OUTPUT"
