#!/bin/bash
# Files written through a shift in the previous boot (tests/e2e/
# persistence_write.sh) are still there after a reboot, with the real
# owners on disk and the container's view through a new shift.
. "$(dirname "$0")/../../lib/testlib.sh"
require_guest
scratch_dir

image=$IMAGE_STORE/e2e-persist
[ -d "$image" ] || fail "$image is missing: the first boot's persistence_write did not run or did not sync"
assert_eq "0:0 data" "$(stat -c %u:%g "$image/root/kept") $(cat "$image/root/kept")" "root's file on disk"
assert_eq "0:0" "$(stat -c %u:%g "$image/root/kept-dir")" "root's directory on disk"
assert_eq "1000:1000" "$(stat -c %u:%g "$image/home/user/kept-1000")" "uid 1000's file on disk"

make_bundle "$SCRATCH/c" "$image" "0 200000 65536" "0 200000 65536" \
	/bin/probe stat /root/kept /home/user/kept-1000
with_hook "$SCRATCH/c"
assert_status 0 crun_run "$SCRATCH/c" e2e-persist-check
assert_eq "0:0 0644 /root/kept
1000:1000 0644 /home/user/kept-1000" "$OUTPUT" "owners through a new shift after the reboot"
rm -rf "$image"
