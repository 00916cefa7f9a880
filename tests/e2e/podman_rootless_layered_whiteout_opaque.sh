#!/bin/bash
# A two-layer image of the shared store, built by real root's podman:
# its upper layer deletes /etc/shadow (a whiteout) and replaces /home (an
# opaque directory).  In the test user's rootless container the deleted
# file is gone and /home holds only the upper layer's content: the
# overlay in the user's namespace reads user.overlay.opaque, which
# prepare-store sets from trusted.overlay.opaque.  Without it, /home
# shows the lower layer's user/ as well.
. "$(dirname "$0")/../lib/testlib.sh"
. "$(dirname "$0")/podmanlib.bash"
podman_test_setup
assert_status 0 as_user shiftbind podman-setup "$PODMAN_STORE"

assert_status 0 user_run localhost/layered /bin/busybox ls -a /home
assert_eq ". .. upper" "$(tr '\n' ' ' <<<"$OUTPUT" | sed 's/ $//')" "/home (opaque in the upper layer)"
assert_status 0 user_run localhost/layered /bin/probe stat /home/upper/only-upper /etc/passwd
assert_eq "0:0 0644 /home/upper/only-upper
0:0 0644 /etc/passwd" "$OUTPUT" "owners in the layered image"
assert_status 1 user_run localhost/layered /bin/busybox test -e /etc/shadow
