#!/bin/bash
# Every failure message names the container (issue 6: "a clear message
# naming the container id, the step and the reason"), also one found in
# the state after its id was read: an unknown org.shiftbind. annotation
# in the state crun passes.  Invoked directly, so that the state is
# exactly the one written here.
. "$(dirname "$0")/../lib/testlib.sh"
. "$(dirname "$0")/hooklib.bash"
require_guest
scratch_dir

id=hook-stateerr-$$
make_bundle "$SCRATCH/c" "$SHARED_IMAGE" "0 100000 65536" "0 100000 65536" /bin/probe id
state_json "$id" $$ "$SCRATCH/c" | jq -c '.annotations = {"org.shiftbind.shfit": "false"}' >"$SCRATCH/state"
assert_status 1 "$HOOK" prestart <"$SCRATCH/state"
msg=$(tail -n 1 <<<"$OUTPUT")
assert_contains "unknown annotation org.shiftbind.shfit" "$msg" "hook's message"
assert_contains "container $id: " "$msg" "hook's message"
