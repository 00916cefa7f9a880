#!/bin/bash
# The fix the refusal advertises works: after `shiftbind allow STORE` on
# the directory holding the image, the same bundle that was refused
# starts and sees the image's real owners.
. "$(dirname "$0")/../lib/testlib.sh"
require_guest
scratch_dir

store=/srv/hook-allow-$$ # under the guest's nosuid /srv, as shiftbind(8) asks
image=$store/busybox
mkdir -p "$store"
chmod 0711 "$store" # traversable by the container's root, see shiftbind(8)
cp -a "$SHARED_IMAGE" "$image"
cleanup() {
	# shiftbind allow bound the store onto itself: undo it.
	while mountpoint -q "$store"; do umount "$store" || break; done
	rm -rf "$store" "$SCRATCH"
}
trap cleanup EXIT

make_bundle "$SCRATCH/c" "$image" "0 100000 65536" "0 100000 65536" \
	/bin/probe stat "${OWNER_PATHS[@]}"
with_hook "$SCRATCH/c"
status=0
crun_run "$SCRATCH/c" hook-fix-refused-$$ >"$SCRATCH/out" 2>&1 || status=$?
[ "$status" -ne 0 ] || fail "container started before the store was marked: $(cat "$SCRATCH/out")"
assert_contains "run: shiftbind allow <store>" "$(cat "$SCRATCH/c/hook.stderr")" "hook's message"

assert_status 0 shiftbind allow "$store"
assert_contains "marked $store allow-shift, read-only, nosuid" "$OUTPUT" "shiftbind allow"
assert_status 0 crun_run "$SCRATCH/c" hook-fix-works-$$
assert_eq "$REAL_OWNERS" "$OUTPUT" "owners once the store is marked"
