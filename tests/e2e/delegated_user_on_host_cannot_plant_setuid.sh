#!/bin/bash
# The delegated user's own processes on the host reach its rootless
# container's shifted root through /proc/<pid>/root and through a
# directory the container holds open (/proc/<pid>/fd/N).  There the user
# owns real root's files, yet chmod 4755, chmod 2755 and a new setuid
# file are refused (EPERM, with the kernel's reason naming the lent id),
# and nothing privileged lands on disk.  Ordinary changes through the
# same paths work, and land as real root's.
. "$(dirname "$0")/../lib/testlib.sh"
require_guest
scratch_dir

image_store e2e-hostplant
store=$STORE
install -m 0755 /dev/null "$store/busybox/root/planted"
id=e2e-hostplant-$$
bundle=$(rootless_bundle "$store/busybox" /bin/probe hold /root 300)
crun_state() { su "$TEST_USER" -s /bin/sh -c "crun --root /tmp/$TEST_USER-crun state $id"; }
cleanup() {
	su "$TEST_USER" -s /bin/sh -c "crun --root /tmp/$TEST_USER-crun kill $id KILL" 2>/dev/null || true
	[ -z "${runner:-}" ] || wait "$runner" 2>/dev/null || true
	remove_image_store
	rm -rf "$bundle" "$SCRATCH"
}
trap cleanup EXIT
with_hook "$bundle" --rootless
assert_status 0 shiftbind allow --rw --owner "$TEST_USER" "$store"
dmesg_before=$(dmesg | wc -l)

crun_run_as "$TEST_USER" "$bundle" "$id" >"$SCRATCH/out" 2>&1 &
runner=$!
for _ in $(seq 300); do grep -q '^holding' "$SCRATCH/out" && break; sleep 0.1; done
grep -q '^holding /root as fd' "$SCRATCH/out" || fail "the container did not start: $(cat "$SCRATCH/out")"
fd=$(sed -n 's/^holding \/root as fd \([0-9]*\)$/\1/p' "$SCRATCH/out")
pid=$(crun_state | jq -r .pid)
via_root=/proc/$pid/root/root
via_fd=/proc/$pid/fd/$fd

# as_user CMD...: the probe as the delegated user, on the host.
as_user() { assert_status "$1" runuser -u "$TEST_USER" -- "$PROBE" "${@:2}"; }

as_user 0 stat "$via_root/planted"
assert_contains "$(id -u "$TEST_USER"):$(id -g "$TEST_USER") 0755" "$OUTPUT" "the user owns real root's file there"
for path in "$via_root/planted" "$via_fd/planted"; do
	as_user 1 chmod 4755 "$path"
	assert_contains "errno=EPERM" "$OUTPUT" "chmod 4755 of $path"
	as_user 1 chmod 2755 "$path"
	assert_contains "errno=EPERM" "$OUTPUT" "chmod 2755 of $path"
done
as_user 1 create "$via_root/suid-root" 4755
assert_contains "errno=EPERM" "$OUTPUT" "a new setuid file through /proc/<pid>/root"
as_user 1 create "$via_fd/suid-fd" 4755
assert_contains "errno=EPERM" "$OUTPUT" "a new setuid file through the held fd"

# What grants nothing works, and lands as real root's.
as_user 0 chmod 0700 "$via_fd/planted"
as_user 0 create "$via_root/plain" 0755

on_disk=$store/busybox/root
assert_eq "0:0 0700" "$(stat -c '%u:%g %04a' "$on_disk/planted")" "planted on disk"
assert_eq "0:0 0755" "$(stat -c '%u:%g %04a' "$on_disk/plain")" "plain on disk"
[ ! -e "$on_disk/suid-root" ] && [ ! -e "$on_disk/suid-fd" ] ||
	fail "a setuid file was created: $(ls -l "$on_disk")"

log=$(dmesg | tail -n "+$((dmesg_before + 1))")
assert_match "shift: setuid bit refused for probe\[[0-9]+\] on planted: the shifted mount lends on-disk uid 0" \
	"$log" "kernel's reason for chmod 4755"
assert_match "shift: setgid bit refused for probe\[[0-9]+\] on planted: the shifted mount lends on-disk gid 0" \
	"$log" "kernel's reason for chmod 2755"
assert_match "shift: setuid file refused for probe\[[0-9]+\] on root: " "$log" "kernel's reason for the new file"
