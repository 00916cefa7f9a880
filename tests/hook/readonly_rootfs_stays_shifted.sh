#!/bin/bash
# With root.readonly, crun remounts the rootfs read-only after the hook
# shifted it: the container sees the real owners, cannot write, and the
# hook logs the rootfs as read-only.
. "$(dirname "$0")/../lib/testlib.sh"
require_guest
scratch_dir

id=hook-ro-$$
make_bundle "$SCRATCH/c" "$SHARED_IMAGE" "0 100000 65536" "0 100000 65536" \
	/bin/sh -c "/bin/probe stat / /etc/shadow; /bin/probe create /hook-ro-$$"
jq '.root.readonly = true' "$SCRATCH/c/config.json" >"$SCRATCH/config.json"
mv "$SCRATCH/config.json" "$SCRATCH/c/config.json"
with_hook "$SCRATCH/c"
assert_status 1 crun_run "$SCRATCH/c" "$id"
assert_eq "0:0 0755 /
0:42 0640 /etc/shadow
create /hook-ro-$$: errno=EROFS (Read-only file system)" "$OUTPUT" "read-only shifted container"
[ ! -e "$SHARED_IMAGE/hook-ro-$$" ] || { rm -f "$SHARED_IMAGE/hook-ro-$$"; fail "file created in the image"; }
assert_contains "container $id: bundle $SCRATCH/c, rootfs $SHARED_IMAGE (read-only), user namespace yes" \
	"$(cat "$SCRATCH/c/hook.stderr")" "hook's stderr"
