#!/bin/bash
# `shiftbind patch-config` writes every other hook of config.json back as
# it is, so it keeps none that the runtime cannot run (issue 47, part
# 5): an entry that is not an object, one with no path, a path that is
# not a string or not absolute, args or env with an element that is not
# a string (or that are not arrays), a timeout that is not an integer
# above 0, in any stage, is refused with an error naming the stage and
# the entry's index, and config.json is left byte-identical.  The
# controls: the same entries well formed are kept as written, and a bad
# entry of the hook itself, which patch-config replaces, is no error.
. "$(dirname "$0")/../lib/testlib.sh"
. "$(dirname "$0")/hook/lib.sh"
scratch_dir

build_oci_hook all
cli=$BUILD/shiftbind
bundle=$SCRATCH/bundle
mkdir -p "$bundle/rootfs"
remedy='; patch-config writes every other hook back as it is, and keeps none the runtime cannot run: fix or remove that entry (a hook is {"path": ABSOLUTE PATH, "args": [STRING...], "env": [STRING...], "timeout": SECONDS > 0}, only path required)'

# config HOOKS: a bundle whose hooks object is the JSON HOOKS.
config() {
	jq -n --argjson hooks "$1" \
		'{ociVersion: "1.0.2", root: {path: "rootfs"}, process: {args: ["/bin/true"], cwd: "/"},
		  hooks: $hooks}' >"$bundle/config.json"
}

# refused HOOKS WHAT REASON: patch-config (rootful and rootless) refuses
# the bundle with "config.json: hooks.WHAT: REASON" and the remedy, and
# leaves config.json as it was.
refused() {
	local flag
	for flag in "" --rootless; do
		config "$1"
		cp "$bundle/config.json" "$SCRATCH/before.json"
		# shellcheck disable=SC2086 # no flag, or one
		assert_status 1 "$cli" patch-config $flag "$bundle"
		assert_eq "shiftbind patch-config: config.json: hooks.$2: $3$remedy" "$OUTPUT" "hooks $1 ${flag:-rootful}"
		cmp -s "$bundle/config.json" "$SCRATCH/before.json" ||
			fail "patch-config ${flag:-rootful} changed a config.json it refused: $(jq -c .hooks "$bundle/config.json")"
	done
}

ok='{"path": "/bin/ok"}'
refused "{\"prestart\": [$ok, {\"args\": [\"x\"]}]}" 'prestart[1].path' 'missing'
refused '{"prestart": [{"path": 7}]}' 'prestart[0].path' 'expected a string, got an integer'
refused '{"createContainer": [{"path": null}]}' 'createContainer[0].path' 'missing'
refused '{"poststop": [{"path": "bin/x"}]}' 'poststop[0].path' '"bin/x" is not an absolute path'
refused "{\"poststart\": [$ok, $ok, {\"path\": \"/bin/x\", \"args\": [\"x\", 1]}]}" \
	'poststart[2].args[1]' 'expected a string, got an integer'
refused '{"prestart": [{"path": "/bin/x", "args": "x"}]}' 'prestart[0].args' 'expected an array, got a string'
refused '{"createRuntime": [{"path": "/bin/x", "env": ["A=1", null]}]}' \
	'createRuntime[0].env[1]' 'expected a string, got null'
refused '{"startContainer": [{"path": "/bin/x", "env": [{"A": "1"}]}]}' \
	'startContainer[0].env[0]' 'expected a string, got an object'
refused '{"prestart": [{"path": "/bin/x", "timeout": 1.5}]}' 'prestart[0].timeout' 'expected an integer, got 1.5'
refused '{"prestart": [{"path": "/bin/x", "timeout": "10"}]}' 'prestart[0].timeout' 'expected an integer, got a string'
refused '{"prestart": [{"path": "/bin/x", "timeout": 0}]}' 'prestart[0].timeout' '0 out of range [1, 2147483647]'
refused '{"poststop": ["/bin/x"]}' 'poststop[0]' 'expected an object, got a string'

# Well formed, in every stage: kept as written, ours added.
good='[{"path": "/bin/a", "args": ["a", "-v"], "env": ["A=1"], "timeout": 5}, {"path": "/bin/b"}]'
config "{\"prestart\": $good, \"poststop\": $good, \"createRuntime\": $good}"
assert_status 0 "$cli" patch-config "$bundle"
assert_eq "$bundle/config.json: hook registered at createRuntime" "$OUTPUT" "well-formed hooks"
jq -e --argjson good "$good" '.hooks.createRuntime[:2] == $good and .hooks.poststop == $good
	and .hooks.prestart == $good and (.hooks.createRuntime | length) == 3' \
	"$bundle/config.json" >/dev/null || fail "well-formed hooks: $(jq -c .hooks "$bundle/config.json")"
# The hook's own entry with bad args is replaced, not refused.
config '{"createRuntime": [{"path": "/usr/libexec/shiftbind/shiftbind-hook", "args": [1, 2]}]}'
assert_status 0 "$cli" patch-config "$bundle"
assert_contains "replacing 1 entry of shiftbind-hook there" "$OUTPUT" "the hook's own bad entry"
echo "patch-config keeps only hooks the runtime can run, and names the one it refuses"
