#!/bin/bash
# A podman graphroot in use holds more than images: a mark would lend its
# containers' files, volumes and secrets to the delegated users' shifts.
# prepare-store and allow refuse one that lists a container, or holds a
# volume, naming what they found and how to share an image-only store,
# and leave it as it was (no mode changed, nothing mounted); --force
# goes on.  The image-only store of the podman tests is accepted (they
# prepare and mark it).
. "$(dirname "$0")/../lib/testlib.sh"
. "$(dirname "$0")/podmanlib.bash"
require_guest
scratch_dir
live=/srv/live-graphroot-$$
live_podman() {
	podman --root "$live" --runroot /run/live-graphroot-$$ --storage-driver overlay \
		--cgroup-manager cgroupfs --events-backend file --runtime /usr/bin/crun "$@"
}
# podman_ok ARG...: live_podman ARG..., or the test fails with its output.
podman_ok() {
	local out
	out=$(live_podman "$@" 2>&1) || fail "podman $* in $live failed: $out"
}
# The mark's bind (read-only) goes first, so that podman can clean up.
cleanup() {
	while mountpoint -q "$live"; do umount "$live" || break; done
	live_podman rm -af >/dev/null 2>&1 || true
	live_podman volume rm -af >/dev/null 2>&1 || true
	rm -rf "$live" /run/live-graphroot-$$ "$SCRATCH"
}
trap cleanup EXIT
mkdir -m 0711 "$live"
tar -C "$SHARED_IMAGE" -cf "$SCRATCH/busybox.tar" .
podman_ok import "$SCRATCH/busybox.tar" localhost/live
podman_ok create --network none --name c localhost/live /bin/true

modes() { (cd "$live" && find . -printf '%m %p\n' | sort); }
before=$(modes)
remedy="share an image-only store instead (\`podman --root DIR pull|import|build\` used for nothing else, or podman's --imagestore DIR), or give --force"
assert_status 1 shiftbind prepare-store "$live"
assert_contains "refusing \`$live\`: it is a live podman graphroot (overlay-containers/containers.json lists containers)" \
	"$OUTPUT" "prepare-store on a graphroot with a container"
assert_contains "$remedy" "$OUTPUT" "the remedy"
assert_status 1 shiftbind allow --owner "$TEST_USER" "$live"
assert_contains "it is a live podman graphroot (overlay-containers/containers.json lists containers)" \
	"$OUTPUT" "allow on a graphroot with a container"
mountpoint -q "$live" && fail "the refused store was mounted"
assert_eq "$before" "$(modes)" "modes in the refused graphroot"

podman_ok rm -af
podman_ok volume create v
assert_status 1 shiftbind prepare-store "$live"
assert_contains "it is a live podman graphroot (volumes/ holds volumes)" "$OUTPUT" \
	"prepare-store on a graphroot with a volume"

assert_status 0 shiftbind prepare-store --force "$live"
assert_status 0 shiftbind allow --force --owner "$TEST_USER" "$live"
