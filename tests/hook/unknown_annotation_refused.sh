#!/bin/bash
# A misspelt opt-out (org.shiftbind.shfit=false) is not silently ignored:
# the hook refuses, naming the annotation and the known ones, and crun
# does not start the container.  A foreign annotation is left alone.
. "$(dirname "$0")/../lib/testlib.sh"
require_guest
scratch_dir

id=hook-badannot-$$
make_bundle "$SCRATCH/c" "$SHARED_IMAGE" "0 100000 65536" "0 100000 65536" /bin/probe id
with_hook "$SCRATCH/c"
annotate "$SCRATCH/c" org.example.anything whatever
annotate "$SCRATCH/c" org.shiftbind.shfit false
status=0
out=$(crun_run "$SCRATCH/c" "$id" 2>&1) || status=$?
[ "$status" -ne 0 ] || fail "container started with a misspelt annotation: $out"
[[ $out != *uid=* ]] || fail "the container's process ran: $out"
stderr=$(cat "$SCRATCH/c/hook.stderr")
assert_contains "unknown annotation org.shiftbind.shfit (known: org.shiftbind.shift, org.shiftbind.extra-mounts)" \
	"$stderr" "hook's stderr"
[[ $stderr != *org.example* ]] || fail "hook complained about a foreign annotation: $stderr"
