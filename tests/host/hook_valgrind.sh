#!/bin/bash
# valgrind --leak-check=full on the unit corpus (hook/unit_test.c) and on
# the hook's whole flow for inputs that end at each kind of outcome.  The
# hook is oci-hook/Makefile's valgrind build, the only one without its
# seccomp filter: valgrind cannot run under one.
. "$(dirname "$0")/../lib/testlib.sh"
. "$(dirname "$0")/hook/lib.sh"
require_root
scratch_dir
command -v valgrind >/dev/null || skip "valgrind is not installed"

build_oci_hook valgrind
# Valgrind has no execveat: the parser child (uid shiftbind-parser)
# re-executes the hook through /proc/self/fd/N, which valgrind opens by
# the binary's path, so the child must be able to walk there.
chmod 0711 "$SCRATCH"
vg=(valgrind -q --leak-check=full "--errors-for-leak-kinds=definite,indirect"
	--error-exitcode=99)
parser_user_ns
TMPDIR=$SCRATCH assert_status 0 "${PARSER_NS[@]}" "${vg[@]}" "$BUILD/valgrind/hook-unit-test"
echo "unit corpus: $(grep -c '^ok' <<<"$OUTPUT") checks clean under valgrind"

HOOK=("${PARSER_NS[@]}" "${vg[@]}" "$BUILD/valgrind/shiftbind-hook")
make_bundle "$SCRATCH/plain" "$SCRATCH/rootfs" none none /bin/true
make_bundle "$SCRATCH/userns" "$SCRATCH/rootfs" "0 100000 65536" "0 100000 65536" /bin/true

# One input per way out of the hook (parse errors are the unit corpus's):
# stage|state|exit status|message
cases=(
	"prestart|$(hook_state $$ "$SCRATCH/plain")|0|nothing to do"
	"prestart|$(hook_state $$ "$SCRATCH/userns" '{"org.shiftbind.shift":"false"}')|0|not shifting"
	"prestart|$(hook_state $$ "$SCRATCH/userns")|1|does not match config.json"
	"createContainer|$(hook_state 0 "$SCRATCH/userns")|1|/proc/self/uid_map"
)
for c in "${cases[@]}"; do
	IFS='|' read -r stage state want message <<<"$c"
	run_hook "$stage" "$state"
	[ "$STATUS" -ne 99 ] || fail "valgrind found errors ($stage, $message): $OUTPUT"
	assert_eq "$want" "$STATUS" "exit status for '$message'"
	assert_contains "$message" "$OUTPUT"
	echo "ok: $stage -> $STATUS ($message), valgrind clean"
done
