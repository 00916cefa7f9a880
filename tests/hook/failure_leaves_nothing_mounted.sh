#!/bin/bash
# A failure after a first shift: the rootfs (shared image) is shifted,
# then the kernel refuses the extra mount listed in
# org.shiftbind.extra-mounts (a bind from a refusing_store).  crun does not
# start the container, does not keep it, and the host's mount table is
# exactly what it was: the shift happened only in the container's mount
# namespace, which went away with it.
. "$(dirname "$0")/../lib/testlib.sh"
. "$(dirname "$0")/hooklib.bash"
require_guest
scratch_dir

store=/srv/hook-partial-$$
refusing_store "$store" data

id=hook-partial-$$
make_bundle "$SCRATCH/c" "$SHARED_IMAGE" "0 100000 65536" "0 100000 65536" /bin/probe id
jq --arg src "$store/data" \
	'.mounts += [{destination: "/tmp", type: "bind", source: $src, options: ["bind"]}]' \
	"$SCRATCH/c/config.json" >"$SCRATCH/config.json"
mv "$SCRATCH/config.json" "$SCRATCH/c/config.json"
annotate "$SCRATCH/c" org.shiftbind.extra-mounts /tmp
with_hook "$SCRATCH/c"

before=$(mount_table)
status=0
out=$(crun_run "$SCRATCH/c" "$id" 2>&1) || status=$?
[ "$status" -ne 0 ] || fail "container started although its extra mount cannot be shifted: $out"
[[ $out != *uid=* ]] || fail "the container's process ran: $out"
stderr=$(cat "$SCRATCH/c/hook.stderr")
assert_contains "container $id: shifted $SHARED_IMAGE" "$stderr" "hook's stderr (first shift done)"
assert_contains "container $id: shifting $SHARED_IMAGE/tmp: configfd bind CMD_RECONFIGURE" \
	"$(tail -n 1 <<<"$stderr")" "hook's error"
assert_contains "$KERNEL_REFUSAL" "$(tail -n 1 <<<"$stderr")" "hook's error"
assert_eq "$before" "$(mount_table)" "host mount table after the failure"
if crun list -q | grep -qx "$id"; then fail "crun kept container $id"; fi
