#!/bin/bash
# Debian's crun runs a container with a user namespace (0 -> 100000, 65536
# ids) on the shared image, and the container's exit status comes back.
# Without shiftbind the real-root-owned image shows up as nobody: the
# problem this project removes.
. "$(dirname "$0")/../lib/testlib.sh"
require_guest
scratch_dir

make_bundle "$SCRATCH/id" "$SHARED_IMAGE" "0 100000 65536" "0 100000 65536" /bin/probe id
assert_status 0 crun_run "$SCRATCH/id" smoke-id
assert_eq "uid=0 gid=0 euid=0 egid=0" "$OUTPUT" "identity inside the container"

make_bundle "$SCRATCH/stat" "$SHARED_IMAGE" "0 100000 65536" "0 100000 65536" /bin/probe stat /bin/probe
assert_status 0 crun_run "$SCRATCH/stat" smoke-stat
assert_eq "65534:65534 0755 /bin/probe" "$OUTPUT" "real-root file seen through an unshifted mount"

make_bundle "$SCRATCH/exit" "$SHARED_IMAGE" "0 100000 65536" "0 100000 65536" /bin/probe exit 7
assert_status 7 crun_run "$SCRATCH/exit" smoke-exit
