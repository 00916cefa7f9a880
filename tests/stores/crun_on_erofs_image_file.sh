#!/bin/bash
# A read-only image store on an erofs image file (the shape sites use for
# shared images: a file on a shared filesystem, loop-mounted read-only by
# root on each node), marked by `shiftbind allow`: a rootful container
# shifted onto it sees the image's real owners and cannot write (EROFS).
. "$(dirname "$0")/../lib/testlib.sh"
. "$(dirname "$0")/storelib.bash"
require_guest
scratch_dir

store_on_image_file erofs
assert_status 0 shiftbind allow "$STORE"
run_shifted_container stores-erofs
assert_eq "$REAL_OWNERS" "$(head -n 4 <<<"$OUTPUT")" "owners through the shift of the erofs store"
assert_contains "create /new: errno=EROFS" "$OUTPUT" "a write to the erofs image"
