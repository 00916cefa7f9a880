#!/bin/bash
# `make demo`, inside the guest: one shared image owned by real root, seen
# by the host, by two rootful containers with different mappings, by a
# rootless container, and by a container without the hook; then a file
# written by a container's root, as the host sees it.
. /usr/lib/shiftbind/tests/lib/testlib.sh
set +e
scratch_dir
chmod 755 "$SCRATCH"

heading() { printf '\n== %s ==\n' "$*"; }

# container NAME UID_MAP HOOK ARGS...: run probe ARGS in a rootful container.
container() {
	local name=$1 map=$2 hook=$3
	shift 3
	make_bundle "$SCRATCH/$name" "$SHARED_IMAGE" "$map" "$map" /bin/probe "$@"
	[ "$hook" = no ] || with_hook "$SCRATCH/$name"
	crun_run "$SCRATCH/$name" "demo-$name" 2>&1 ||
		cat "$SCRATCH/$name/hook.stderr" 2>/dev/null
}

rootless() {
	local bundle
	bundle=$(rootless_bundle "$SHARED_IMAGE" /bin/probe stat "${OWNER_PATHS[@]}")
	with_hook "$bundle" --rootless
	crun_run_as "$TEST_USER" "$bundle" demo-rootless 2>&1 || cat "$bundle/hook.stderr"
	rm -rf "$bundle"
}

heading "kernel $(uname -r); store marks (shiftbind status)"
shiftbind status

heading "host: the shared image $SHARED_IMAGE, real owners (uid:gid mode path)"
(cd "$SHARED_IMAGE" && stat -c '%u:%g %04a %n' . bin/sh etc/shadow home/user/file)

heading "container A, user namespace 0 -> 100000, shiftbind-hook"
container a "0 100000 65536" yes stat "${OWNER_PATHS[@]}"

heading "container B, user namespace 0 -> 200000, same image, shiftbind-hook"
container b "0 200000 65536" yes stat "${OWNER_PATHS[@]}"

heading "rootless container of user $TEST_USER (subuids), shiftbind-hook"
rootless

heading "container A without the hook (what runtimes see today)"
container nohook "0 100000 65536" no stat "${OWNER_PATHS[@]}"

heading "container A's root writes /root/hello; the host sees"
image=$IMAGE_STORE/demo-write
rm -rf "$image"
cp -a "$SHARED_IMAGE" "$image"
make_bundle "$SCRATCH/w" "$image" "0 100000 65536" "0 100000 65536" /bin/probe create /root/hello
with_hook "$SCRATCH/w"
printf 'inside:  '
crun_run "$SCRATCH/w" demo-write 2>&1 || cat "$SCRATCH/w/hook.stderr"
printf 'on disk: '
stat -c '%u:%g %04a %n' "$image/root/hello"
rm -rf "$image"

heading "rootless podman of $TEST_USER: the shared podman store as an additional image store"
. /usr/lib/shiftbind/tests/e2e/podmanlib.bash
# Setup noise (podman's import progress, its warnings) stays off the demo.
podman_store_fill 2>/dev/null
podman_store_share
user_podman_fresh
as_user shiftbind podman-setup "$PODMAN_STORE" 2>/dev/null
before=$(user_storage_kib)
for userns in --userns=host --userns=keep-id; do
	printf 'podman run %s: ' "$userns"
	user_run "$userns" localhost/busybox-shared /bin/busybox sh -c \
		"/bin/probe id && /bin/probe stat ${OWNER_PATHS[*]}" 2>&1
done
printf "the user's storage: %s KiB before, %s KiB after both containers; the image: %s KiB (no copy)\n" \
	"$before" "$(user_storage_kib)" "$(du -sk "$SHARED_IMAGE" | cut -f1)"
user_podman_fresh
podman_store_unshare
