#!/bin/bash
# `shiftbind patch-config` counts the hook as registered only when its
# entry runs it with its stage's argument (issue 25, point 8b): the hook
# takes its stage from argv, so ["shiftbind-hook", "createContainer"]
# under prestart would act as the wrong stage in every container.  Such
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

# The wrong stage's argument under prestart, and under createContainer.
config prestart "[$(entry createContainer)]"
assert_status 0 "$cli" patch-config "$bundle"
assert_eq "$bundle/config.json: hook registered at prestart, replacing 1 entry of shiftbind-hook there that did not run \`$hook prestart\`" \
	"$OUTPUT" "patch-config over a createContainer argument at prestart"
registered prestart
config createContainer "[$(entry prestart)]"
assert_status 0 "$cli" patch-config --rootless "$bundle"
assert_eq "$bundle/config.json: hook registered at createContainer, replacing 1 entry of shiftbind-hook there that did not run \`$hook createContainer\`" \
	"$OUTPUT" "patch-config --rootless over a prestart argument at createContainer"
registered createContainer

# No stage argument, an extra one, and a wrong entry beside a right one.
config prestart "[{\"path\": \"$hook\"}]"
assert_status 0 "$cli" patch-config "$bundle"
assert_contains "replacing 1 entry of shiftbind-hook there" "$OUTPUT" "an entry without args"
registered prestart
config prestart "[$(entry prestart extra)]"
assert_status 0 "$cli" patch-config "$bundle"
assert_contains "replacing 1 entry of shiftbind-hook there" "$OUTPUT" "an entry with an extra argument"
registered prestart
config prestart "[$(entry prestart), $(entry createContainer)]"
assert_status 0 "$cli" patch-config "$bundle"
assert_contains "replacing 1 entry of shiftbind-hook there" "$OUTPUT" "a wrong entry beside a right one"
registered prestart

# The control: right already, so config.json is not rewritten.
config prestart "[]"
assert_status 0 "$cli" patch-config "$bundle"
assert_eq "$bundle/config.json: hook registered at prestart" "$OUTPUT" "first registration"
registered prestart
cp "$bundle/config.json" "$SCRATCH/right.json"
assert_status 0 "$cli" patch-config "$bundle"
assert_eq "$bundle/config.json: hook already registered at prestart" "$OUTPUT" "second run"
cmp -s "$bundle/config.json" "$SCRATCH/right.json" || fail "a right registration was rewritten"
echo "patch-config counts only an entry with its stage's argument"
