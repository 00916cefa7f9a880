#!/bin/bash
# The demonstration run by `make demo` inside the guest.
. /usr/lib/shiftbind/tests/lib/testlib.sh
scratch_dir

heading() { printf '\n== %s ==\n' "$*"; }

heading "kernel"
uname -r

heading "host view of the shared image $SHARED_IMAGE (real owners)"
ls -ln "$SHARED_IMAGE" "$SHARED_IMAGE/etc/shadow" "$SHARED_IMAGE/home/user/file" | sed 's/  */ /g'

heading "container with user namespace 0 -> 100000, no shift (today's problem)"
make_bundle "$SCRATCH/a" "$SHARED_IMAGE" "0 100000 65536" "0 100000 65536" \
	/bin/probe stat / /bin/sh /etc/shadow /home/user/file
crun_run "$SCRATCH/a" demo-a
