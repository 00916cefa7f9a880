#!/bin/bash
# Files a shifted container writes as its root (in /root, 0700 root) and
# as uid 1000 (in /home/user) land on the host as real 0:0 and 1000:1000.  Uses a writable copy of the image in
# the store (cp -a by real root, as an image store would).
. "$(dirname "$0")/../lib/testlib.sh"
require_guest
scratch_dir

image=$IMAGE_STORE/e2e-write-$$
cp -a "$SHARED_IMAGE" "$image"
trap 'rm -rf "$image" "$SCRATCH"' EXIT

make_bundle "$SCRATCH/root" "$image" "0 100000 65536" "0 100000 65536" \
	/bin/probe create /root/by-root
with_hook "$SCRATCH/root"
assert_status 0 crun_run "$SCRATCH/root" e2e-write-root
assert_eq "0:0 0644 /root/by-root" "$OUTPUT" "owner seen inside"

make_bundle "$SCRATCH/user" "$image" "0 100000 65536" "0 100000 65536" \
	/bin/probe create /home/user/by-1000
run_as_user "$SCRATCH/user" 1000 1000
with_hook "$SCRATCH/user"
assert_status 0 crun_run "$SCRATCH/user" e2e-write-user
assert_eq "1000:1000 0644 /home/user/by-1000" "$OUTPUT" "owner seen inside"

assert_eq "0:0" "$(stat -c %u:%g "$image/root/by-root")" "owner on the host of root's file"
assert_eq "1000:1000" "$(stat -c %u:%g "$image/home/user/by-1000")" "owner on the host of uid 1000's file"
