#!/bin/bash
# patch-config registers a rootful container's hook at createRuntime, not
# at the deprecated prestart, and moves an old bundle's prestart entry
# there: crun 1.8.1 runs it as host root in the runtime's namespaces with
# the container's pid, the hook joins the container's mount namespace,
# and the image shows its real owners.
. "$(dirname "$0")/../lib/testlib.sh"
require_guest
scratch_dir

hook=/usr/libexec/shiftbind/shiftbind-hook
id=hook-createruntime-$$
make_bundle "$SCRATCH/c" "$SHARED_IMAGE" "0 100000 65536" "0 100000 65536" \
	/bin/probe stat "${OWNER_PATHS[@]}"
# An old bundle: the hook at prestart, as patch-config used to write it.
jq --arg h "$hook" '.hooks.prestart = [{path: $h, args: ["shiftbind-hook", "prestart"], timeout: 10}]' \
	"$SCRATCH/c/config.json" >"$SCRATCH/config.json"
mv "$SCRATCH/config.json" "$SCRATCH/c/config.json"
with_hook "$SCRATCH/c"
jq -e --arg h "$hook" '.hooks.createRuntime == [{path: $h, args: ["shiftbind-hook", "createRuntime"], timeout: 10}]
	and ((.hooks.prestart // []) | length) == 0 and ((.hooks.createContainer // []) | length) == 0' \
	"$SCRATCH/c/config.json" >/dev/null ||
	fail "patch-config: expected the hook under hooks.createRuntime alone, got hooks: $(jq -c .hooks "$SCRATCH/c/config.json")"

assert_status 0 crun_run "$SCRATCH/c" "$id"
assert_eq "$REAL_OWNERS" "$OUTPUT" "owners inside the container"
stderr=$(cat "$SCRATCH/c/hook.stderr")
assert_contains "shiftbind-hook: createRuntime: container $id: joined the mount namespace of pid " "$stderr" "hook's stderr"
assert_contains "shiftbind-hook: createRuntime: container $id: done: 1 mount(s) shifted" "$stderr" "hook's stderr"
