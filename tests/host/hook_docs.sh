#!/bin/bash
# The man pages render without warnings (mandoc lint, man --warnings), and
# the hook registration files are what runtimes expect: crun config.json
# snippets and hooks.d 1.0.0 files, each stage with its own arguments.
. "$(dirname "$0")/../lib/testlib.sh"

top=$SHIFTBIND_TESTS/..
for page in "$top"/docs/man/shiftbind.8 "$top"/docs/man/shiftbind-hook.8; do
	if command -v mandoc >/dev/null; then
		assert_status 0 mandoc -T lint -W warning "$page"
		assert_eq "" "$OUTPUT" "mandoc lint of $(basename "$page")"
	fi
	warnings=$(LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings=w -l "$page" 2>&1 >/dev/null)
	assert_eq "" "$warnings" "man --warnings of $(basename "$page")"
	assert_contains "allow-shift" "$(MANWIDTH=200 man -l "$page" 2>/dev/null)"
done
assert_contains "0700" "$(MANWIDTH=200 man -l "$top/docs/man/shiftbind.8" 2>/dev/null)" \
	"security notes of shiftbind(8)"

hooks=$top/configs/hooks
# check FILE FILTER [JQ_ARGS...]: FILE (under configs/hooks) matches the
# jq FILTER, in which $hook is the installed hook's path.
check() {
	local file=$1 filter=$2
	shift 2
	jq -e --arg hook /usr/libexec/shiftbind/shiftbind-hook "$@" "$filter" \
		"$hooks/$file" >/dev/null || fail "$file does not match $filter: $(jq -c . "$hooks/$file")"
}
# shellcheck disable=SC2016 # jq's variables, not the shell's
check crun-rootful.json '.hooks | keys == ["createRuntime"] and .createRuntime == [{path: $hook,
	args: ["shiftbind-hook", "createRuntime"], timeout: 10}]'
# shellcheck disable=SC2016
check crun-rootless.json '.hooks | keys == ["createContainer"] and .createContainer == [{path: $hook,
	args: ["shiftbind-hook", "createContainer"], timeout: 10}]'
for mode in rootful:createRuntime rootless:createContainer; do
	# shellcheck disable=SC2016
	check "hooks.d/${mode%%:*}/shiftbind.json" '.version == "1.0.0"
		and .hook == {path: $hook, args: ["shiftbind-hook", $stage], timeout: 10}
		and .when == {always: true} and .stages == [$stage]' --arg stage "${mode#*:}"
done

# The file for the default hooks directory: the rootful hook, for the
# containers that ask only (configs/hooks/README.md).
# shellcheck disable=SC2016
check hooks.d/opt-in/shiftbind.json '.version == "1.0.0"
	and .hook == {path: $hook, args: ["shiftbind-hook", "createRuntime"], timeout: 10}
	and .when == {annotations: {"^org\\.shiftbind\\.shift$": "^true$"}}
	and .stages == ["createRuntime"]'
# shellcheck disable=SC2016
jq -e '.when.annotations | to_entries[0] as {key: $k, value: $v}
	| ("org.shiftbind.shift" | test($k)) and ("true" | test($v))
	and ("false" | test($v) | not) and ("xorg.shiftbind.shift" | test($k) | not)
	and ("org-shiftbind-shift" | test($k) | not)' \
	"$hooks/hooks.d/opt-in/shiftbind.json" >/dev/null ||
	fail "hooks.d/opt-in/shiftbind.json: its condition does not select org.shiftbind.shift=true alone"

unit=$top/configs/shiftbind-allow.service
assert_contains "Type=oneshot" "$(cat "$unit")"
assert_contains "After=local-fs.target remote-fs.target" "$(cat "$unit")"
assert_contains "Before=podman.service" "$(cat "$unit")"
assert_contains "ExecStart=/usr/sbin/shiftbind apply-config" "$(cat "$unit")"
# apply-config's exit 1 fails the unit, its stderr goes to the journal:
# no "-" before the command, no other success status, stderr not sent
# elsewhere (e2e.allow_conf_unsafe_file_refused runs the command).
assert_eq "1" "$(grep -c '^ExecStart=' "$unit")" "ExecStart= lines"
assert_match '^ExecStart=/' "$(grep '^ExecStart=' "$unit")" "ExecStart= without a prefix"
! grep -E '^(SuccessExitStatus|StandardError|StandardOutput)=' "$unit" ||
	fail "$unit changes which exit statuses fail it or where its messages go"
if command -v systemd-analyze >/dev/null; then
	# The unit's command is not installed on the build host: only that may fail.
	complaints=$(systemd-analyze verify --man=no "$unit" 2>&1 |
		grep -v 'Command /usr/sbin/shiftbind is not executable' || true)
	assert_eq "" "$complaints" "systemd-analyze verify"
fi
echo "man pages and registration files checked"
