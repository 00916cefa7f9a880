#!/bin/bash
# First half of e2e.persistence: a shifted container writes files as its
# root and as uid 1000 into the store; after-reboot/e2e/persistence.sh
# checks them on the next boot of the same disk.
. "$(dirname "$0")/../lib/testlib.sh"
require_guest
scratch_dir

image=$IMAGE_STORE/e2e-persist
rm -rf "$image"
cp -a "$SHARED_IMAGE" "$image"
make_bundle "$SCRATCH/c" "$image" "0 100000 65536" "0 100000 65536" \
	/bin/sh -c '/bin/probe create /root/kept && echo data >/root/kept && /bin/probe mkdir /root/kept-dir'
with_hook "$SCRATCH/c"
assert_status 0 crun_run "$SCRATCH/c" e2e-persist
make_bundle "$SCRATCH/u" "$image" "0 100000 65536" "0 100000 65536" /bin/probe create /home/user/kept-1000
run_as_user "$SCRATCH/u" 1000 1000
with_hook "$SCRATCH/u"
assert_status 0 crun_run "$SCRATCH/u" e2e-persist-user
sync
