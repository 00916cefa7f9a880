#!/bin/bash
# The problem shiftbind solves: the same container without the hook sees
# every file of the real-root-owned image as nobody (65534).
. "$(dirname "$0")/../lib/testlib.sh"
require_guest
scratch_dir

make_bundle "$SCRATCH/c" "$SHARED_IMAGE" "0 100000 65536" "0 100000 65536" \
	/bin/probe stat "${OWNER_PATHS[@]}"
assert_status 0 crun_run "$SCRATCH/c" e2e-nohook
assert_eq "65534:65534 0755 /
65534:65534 0777 /bin/sh
65534:65534 0640 /etc/shadow
65534:65534 0644 /home/user/file" "$OUTPUT" "owners without the hook"
