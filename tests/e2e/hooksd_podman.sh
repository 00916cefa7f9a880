#!/bin/bash
# A real client of hooks.d: Debian's podman, with crun as its runtime and
# the hooks directory the package installs (from configs/hooks/hooks.d/),
# runs a container on the shared image (--rootfs, no network) in a user
# namespace.  The container sees the image's real owners, and without the
# hooks directory the same command shows nobody: the hook did the work.
. "$(dirname "$0")/../lib/testlib.sh"
require_guest
scratch_dir

readonly HOOKS_DIR=/usr/share/shiftbind/hooks/hooks.d/rootful
command -v podman >/dev/null ||
	fail "podman is not installed in the guest (rootfs-builder/packages lists it)"
[ -f "$HOOKS_DIR/shiftbind.json" ] || fail "no hooks.d registration in $HOOKS_DIR"

# podman_run [--hooks-dir DIR] ARG...: a throwaway podman, all of its state
# in the scratch directory.  systemd does not run the guest, so cgroups and
# events are podman's file-based fallbacks; vfs storage because --rootfs
# needs no image layers.
podman_run() {
	podman --root "$SCRATCH/storage" --runroot "$SCRATCH/runroot" \
		--storage-driver vfs --cgroup-manager cgroupfs --events-backend file \
		--runtime /usr/bin/crun "$@"
}

run_probe() {
	podman_run "$@" run --rm --network none \
		--uidmap 0:100000:65536 --gidmap 0:100000:65536 \
		--rootfs "$SHARED_IMAGE" /bin/probe stat "${OWNER_PATHS[@]}"
}

# Podman runs in the shared image's host path before the hook shifts it:
# podman 5 adds /etc/mtab there when the image has none, owned by the
# container's root as mapped on the host (100000), which prepare-image
# prevents by making it as real root (build-image.sh ran it).
image_before=$(cd "$SHARED_IMAGE" && find . -printf '%U:%G %m %y %p\n' | sort)
before=$(mount_table)
assert_status 0 run_probe --hooks-dir "$HOOKS_DIR"
assert_eq "$REAL_OWNERS" "$OUTPUT" "owners seen through podman + hooks.d"

mkdir "$SCRATCH/no-hooks"
assert_status 0 run_probe --hooks-dir "$SCRATCH/no-hooks"
assert_contains "65534:65534 0640 /etc/shadow" "$OUTPUT" "owners without the hooks directory"

assert_eq "$before" "$(mount_table)" "host mount table after the containers exited"
assert_eq "$image_before" "$(cd "$SHARED_IMAGE" && find . -printf '%U:%G %m %y %p\n' | sort)" \
	"the shared image's entries after podman ran on it"
