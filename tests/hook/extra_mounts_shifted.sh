#!/bin/bash
# org.shiftbind.extra-mounts=/tmp also shifts the container's bind mount
# at /tmp (a directory of the store): a real-root file in it shows its
# real owner.  Without the annotation the same bind is not shifted (the
# rootfs shift does not reach mounts on top of it) and shows nobody.
. "$(dirname "$0")/../lib/testlib.sh"
require_guest
scratch_dir

data=$IMAGE_STORE/hook-extra-$$
mkdir -m 0755 "$data"
install -m 0640 -o 0 -g 42 /dev/null "$data/owned"
trap 'rm -rf "$data" "$SCRATCH"' EXIT

bundle_with_data() {
	make_bundle "$1" "$SHARED_IMAGE" "0 100000 65536" "0 100000 65536" \
		/bin/probe stat / /tmp /tmp/owned
	jq --arg src "$data" \
		'.mounts += [{destination: "/tmp", type: "bind", source: $src, options: ["bind"]}]' \
		"$1/config.json" >"$1/config.json.new"
	mv "$1/config.json.new" "$1/config.json"
	with_hook "$1"
}

bundle_with_data "$SCRATCH/plain"
assert_status 0 crun_run "$SCRATCH/plain" hook-extra-no-$$
assert_eq "0:0 0755 /
65534:65534 0755 /tmp
65534:65534 0640 /tmp/owned" "$OUTPUT" "owners without the annotation"

bundle_with_data "$SCRATCH/extra"
annotate "$SCRATCH/extra" org.shiftbind.extra-mounts /tmp
assert_status 0 crun_run "$SCRATCH/extra" hook-extra-$$
assert_eq "0:0 0755 /
0:0 0755 /tmp
0:42 0640 /tmp/owned" "$OUTPUT" "owners with org.shiftbind.extra-mounts=/tmp"
stderr=$(cat "$SCRATCH/extra/hook.stderr")
assert_contains "container hook-extra-$$: shifted $SHARED_IMAGE/tmp" "$stderr" "hook's stderr"
assert_contains "container hook-extra-$$: done: 2 mount(s) shifted" "$stderr" "hook's stderr"
