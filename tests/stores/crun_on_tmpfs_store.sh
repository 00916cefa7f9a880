#!/bin/bash
# An image store on a tmpfs: tmpfs can be idmapped since 6.3, so there a
# shifted rootful container sees the image's real owners and its writes
# land as real root; on an older kernel `shiftbind allow` refuses the
# store, naming tmpfs.
. "$(dirname "$0")/../lib/testlib.sh"
. "$(dirname "$0")/storelib.bash"
require_guest
scratch_dir

store_on_tmpfs
if ! kernel_at_least 6.3; then
	assert_mark_refused tmpfs
	exit 0
fi
assert_status 0 shiftbind allow --rw "$STORE"
run_shifted_container stores-tmpfs
assert_eq "$REAL_OWNERS" "$(head -n 4 <<<"$OUTPUT")" "owners through the shift of the tmpfs store"
assert_eq "0:0" "$(stat -c %u:%g "$STORE/busybox/new")" "owner on the tmpfs of a file the container's root made"
