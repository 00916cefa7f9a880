#!/bin/bash
# An extra mount that is the rootfs under another name (an image's
# symlink selfroot -> /) is refused before anything is shifted: the hook
# compares mounts, not strings.  Before, it shifted the rootfs, then met
# the kernel's refusal for the "second" mount.
. "$(dirname "$0")/../lib/testlib.sh"
require_guest
scratch_dir

image=$IMAGE_STORE/hook-alias-$$
cp -a "$SHARED_IMAGE" "$image"
ln -s / "$image/selfroot"
trap 'rm -rf "$image" "$SCRATCH"' EXIT

id=hook-alias-$$
make_bundle "$SCRATCH/c" "$image" "0 100000 65536" "0 100000 65536" /bin/true
with_hook "$SCRATCH/c"
annotate "$SCRATCH/c" org.shiftbind.extra-mounts /selfroot
status=0
out=$(crun_run "$SCRATCH/c" "$id" 2>&1) || status=$?
[ "$status" -ne 0 ] || fail "the container started although its extra mount is the rootfs: $out"
assert_contains "error executing hook" "$out" "crun's report of the refusing hook"
stderr=$(cat "$SCRATCH/c/hook.stderr")
assert_match "extra mount $image/selfroot is the same mount as $image \\(mount [0-9]+\\): each mount is shifted once" \
	"$stderr" "hook's stderr"
assert_eq "" "$(grep "container $id: shifted " <<<"$stderr" || true)" "mounts shifted before the refusal"
