#!/bin/bash
# crun (rootful) runs shiftbind-hook at createRuntime (where patch-config
# registers it) for a container with a
# user namespace (0 -> 100000) on the shared image: inside, the image
# shows its real owners, the container's / is a "shift" mount, and the
# hook reports one mount shifted.  The host's store stays unshifted.
. "$(dirname "$0")/../lib/testlib.sh"
require_guest
scratch_dir

id=hook-rootful-$$
make_bundle "$SCRATCH/c" "$SHARED_IMAGE" "0 100000 65536" "0 100000 65536" \
	/bin/sh -c "/bin/probe stat ${OWNER_PATHS[*]}; /bin/busybox awk '\$5 == \"/\" { print \"root options:\", \$6 }' /proc/self/mountinfo"
with_hook "$SCRATCH/c"
assert_eq createRuntime "$(jq -r '.hooks | keys | join(",")' "$SCRATCH/c/config.json")" \
	"hook stages registered by patch-config"
assert_status 0 crun_run "$SCRATCH/c" "$id"
assert_eq "$REAL_OWNERS" "$(head -n 4 <<<"$OUTPUT")" "owners inside the container"
root_opts=$(tail -n 1 <<<"$OUTPUT")
assert_match '^root options: (.*,)?shift(,.*)?$' "$root_opts" "container's / in its mountinfo"

stderr=$(cat "$SCRATCH/c/hook.stderr")
assert_contains "shiftbind-hook: createRuntime: container $id: shifted $SHARED_IMAGE" "$stderr" "hook's stderr"
assert_contains "shiftbind-hook: createRuntime: container $id: done: 1 mount(s) shifted" "$stderr" "hook's stderr"

store_opts=$(awk -v s="$IMAGE_STORE" '$5 == s { print $6 }' /proc/self/mountinfo)
assert_match '(^|,)allow-shift(=[0-9:-]+)?(,|$)' "$store_opts" "host's store mount options"
[[ ,$store_opts, != *,shift,* ]] || fail "host's store mount was shifted: $store_opts"
