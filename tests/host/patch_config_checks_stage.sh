#!/bin/bash
# `shiftbind patch-config` counts the hook as registered only when its
# entry runs it with its stage's argument (issue 25, point 8b): the hook
# takes its stage from argv, so ["shiftbind-hook", "createContainer"]
# under createRuntime would act as the wrong stage in every container.  Such
# an entry, one without arguments, one with an extra argument, and a
# second entry beside a right one are replaced by the one right entry,
# the other hooks kept in order, and the output says what was replaced;
# a right entry alone is left as it is (the control).
. "$(dirname "$0")/../lib/testlib.sh"
. "$(dirname "$0")/hook/lib.sh"
scratch_dir

build_oci_hook all
cli=$BUILD/shiftbind
hook=/usr/libexec/shiftbind/shiftbind-hook
bundle=$SCRATCH/bundle
mkdir -p "$bundle/rootfs"

# config STAGE ENTRIES: a bundle whose hooks.STAGE is the JSON array
# ENTRIES, between two other hooks.
config() {
	jq -n --arg stage "$1" --argjson ours "$2" \
		'{ociVersion: "1.0.2", root: {path: "rootfs"}, process: {args: ["/bin/true"], cwd: "/"},
		  hooks: {($stage): ([{path: "/bin/before"}] + $ours + [{path: "/bin/after"}])}}' \
		>"$bundle/config.json"
}
# entry STAGE_ARG...: our hook's entry with args ["shiftbind-hook", STAGE_ARG...].
entry() {
	jq -nc --arg hook "$hook" --argjson args "$(json_args shiftbind-hook "$@")" \
		'{path: $hook, args: $args, timeout: 10}'
}
# registered STAGE: hooks.STAGE is the two other hooks and ours, right,
# and no other stage lists ours.
registered() {
	jq -e --arg stage "$1" --arg hook "$hook" '
		(.hooks[$stage] == [{path: "/bin/before"}, {path: "/bin/after"},
			{path: $hook, args: ["shiftbind-hook", $stage], timeout: 10}])
		and ([.hooks | to_entries[] | select(.key != $stage) | .value[]
			| select(.path == $hook)] == [])' "$bundle/config.json" >/dev/null ||
		fail "hooks after patch-config: $(jq -c .hooks "$bundle/config.json")"
}

# The wrong stage's argument under createRuntime, and under createContainer.
config createRuntime "[$(entry createContainer)]"
assert_status 0 "$cli" patch-config "$bundle"
assert_eq "$bundle/config.json: hook registered at createRuntime, replacing 1 entry of shiftbind-hook there that did not run \`$hook createRuntime\`" \
	"$OUTPUT" "patch-config over a createContainer argument at createRuntime"
registered createRuntime
config createContainer "[$(entry createRuntime)]"
assert_status 0 "$cli" patch-config --rootless "$bundle"
assert_eq "$bundle/config.json: hook registered at createContainer, replacing 1 entry of shiftbind-hook there that did not run \`$hook createContainer\`" \
	"$OUTPUT" "patch-config --rootless over a createRuntime argument at createContainer"
registered createContainer

# An old bundle's registration at prestart (deprecated) moves to
# createRuntime; rootless, a prestart or createRuntime entry is removed.
config prestart "[$(entry prestart)]"
assert_status 0 "$cli" patch-config "$bundle"
assert_eq "$bundle/config.json: hook registered at createRuntime, removing 1 entry of shiftbind-hook at prestart" \
	"$OUTPUT" "patch-config over an old bundle's prestart entry"
jq -e --arg hook "$hook" '.hooks.prestart == [{path: "/bin/before"}, {path: "/bin/after"}]
	and .hooks.createRuntime == [{path: $hook, args: ["shiftbind-hook", "createRuntime"], timeout: 10}]' \
	"$bundle/config.json" >/dev/null ||
	fail "an old bundle's prestart entry did not move to createRuntime: $(jq -c .hooks "$bundle/config.json")"
config prestart "[$(entry prestart)]"
jq --arg hook "$hook" '.hooks.createRuntime = [{path: $hook, args: ["shiftbind-hook", "createRuntime"], timeout: 10}]' \
	"$bundle/config.json" >"$SCRATCH/c.json" && mv "$SCRATCH/c.json" "$bundle/config.json"
assert_status 0 "$cli" patch-config --rootless "$bundle"
assert_eq "$bundle/config.json: hook registered at createContainer, removing 1 entry of shiftbind-hook at createRuntime, removing 1 entry of shiftbind-hook at prestart" \
	"$OUTPUT" "patch-config --rootless over createRuntime and prestart entries"
jq -e --arg hook "$hook" '.hooks.prestart == [{path: "/bin/before"}, {path: "/bin/after"}]
	and .hooks.createRuntime == []
	and .hooks.createContainer == [{path: $hook, args: ["shiftbind-hook", "createContainer"], timeout: 10}]' \
	"$bundle/config.json" >/dev/null ||
	fail "rootless: prestart and createRuntime entries not removed: $(jq -c .hooks "$bundle/config.json")"

# No stage argument, an extra one, and a wrong entry beside a right one.
config createRuntime "[{\"path\": \"$hook\"}]"
assert_status 0 "$cli" patch-config "$bundle"
assert_contains "replacing 1 entry of shiftbind-hook there" "$OUTPUT" "an entry without args"
registered createRuntime
config createRuntime "[$(entry createRuntime extra)]"
assert_status 0 "$cli" patch-config "$bundle"
assert_contains "replacing 1 entry of shiftbind-hook there" "$OUTPUT" "an entry with an extra argument"
registered createRuntime
config createRuntime "[$(entry createRuntime), $(entry createContainer)]"
assert_status 0 "$cli" patch-config "$bundle"
assert_contains "replacing 1 entry of shiftbind-hook there" "$OUTPUT" "a wrong entry beside a right one"
registered createRuntime

# The control: right already, so config.json is not rewritten.
config createRuntime "[]"
assert_status 0 "$cli" patch-config "$bundle"
assert_eq "$bundle/config.json: hook registered at createRuntime" "$OUTPUT" "first registration"
registered createRuntime
cp "$bundle/config.json" "$SCRATCH/right.json"
assert_status 0 "$cli" patch-config "$bundle"
assert_eq "$bundle/config.json: hook already registered at createRuntime" "$OUTPUT" "second run"
cmp -s "$bundle/config.json" "$SCRATCH/right.json" || fail "a right registration was rewritten"
echo "patch-config counts only an entry with its stage's argument"
