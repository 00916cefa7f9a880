#!/bin/bash
# A read-only image store on a squashfs image file, loop-mounted read-only
# by root: squashfs can be idmapped since 6.2, so there a shifted rootful
# container sees the image's real owners and cannot write (EROFS); on an
# older kernel `shiftbind allow` refuses the store, naming squashfs.
. "$(dirname "$0")/../lib/testlib.sh"
. "$(dirname "$0")/storelib.bash"
require_guest
scratch_dir

store_on_image_file squashfs
if ! kernel_at_least 6.2; then
	assert_mark_refused squashfs
	exit 0
fi
assert_status 0 shiftbind allow "$STORE"
run_shifted_container stores-squashfs
assert_eq "$REAL_OWNERS" "$(head -n 4 <<<"$OUTPUT")" "owners through the shift of the squashfs store"
assert_contains "create /new: errno=EROFS" "$OUTPUT" "a write to the squashfs image"
