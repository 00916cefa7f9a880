#!/bin/bash
# A container's root cannot leave privilege for real root in a shared
# image: through the shifted rootfs, a setuid or setgid bit on a file
# owned by real root, a new setuid file, and a file capability (which
# would be recorded valid for real root) are refused with EPERM, and the
# kernel logs why.  The image's own setuid binary still runs as the
# container's root (e2e.rootful_shared_image), and ordinary chmod works.
. "$(dirname "$0")/../lib/testlib.sh"
require_guest
scratch_dir

image=$IMAGE_STORE/e2e-plant-$$
cp -a "$SHARED_IMAGE" "$image"
trap 'rm -rf "$image" "$SCRATCH"' EXIT
dmesg_before=$(dmesg | wc -l)

make_bundle "$SCRATCH/c" "$image" "0 100000 65536" "0 100000 65536" /bin/sh -c '
	/bin/probe create /root/planted 0755
	/bin/probe chmod 4755 /root/planted
	/bin/probe chmod 2755 /root/planted
	/bin/probe setcap /root/planted
	/bin/probe create /root/planted-suid 4755
	/bin/probe chmod 0700 /root/planted
	true'
# Without CAP_SETFCAP the capability check refuses setcap before the
# shift's rule is asked: hold it, as a container that runs setcap would.
grant_capability "$SCRATCH/c" CAP_SETFCAP
with_hook "$SCRATCH/c"
assert_status 0 crun_run "$SCRATCH/c" e2e-plant
assert_contains "0:0 0755 /root/planted" "$OUTPUT" "file created by the container's root"
assert_eq 2 "$(grep -c 'chmod /root/planted: errno=EPERM' <<<"$OUTPUT")" "refused chmod 4755 and 2755"
assert_contains "setcap /root/planted: errno=EPERM" "$OUTPUT" "file capability"
assert_contains "create /root/planted-suid: errno=EPERM" "$OUTPUT" "new setuid file"
assert_contains "0:0 0700 /root/planted" "$OUTPUT" "ordinary chmod"

# On disk: real root's file, with no privilege on it.
assert_eq "0:0 0700" "$(stat -c '%u:%g %04a' "$image/root/planted")" "the file on the host"
assert_status 1 "$PROBE" getxattr "$image/root/planted" security.capability
assert_contains "errno=ENODATA" "$OUTPUT" "file capability on the host"
[ ! -e "$image/root/planted-suid" ] || fail "the setuid file was created"

log=$(dmesg | tail -n "+$((dmesg_before + 1))")
# The file for a change; the directory it would be made in for a creation.
for refusal in "setuid bit:planted" "setgid bit:planted" "file capability:planted" "setuid file:root"; do
	what=${refusal%:*} on=${refusal#*:}
	assert_match "shift: $what refused for probe\[[0-9]+\] on $on:" "$log" "kernel log for the $what"
done
