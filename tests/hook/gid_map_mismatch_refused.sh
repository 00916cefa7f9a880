#!/bin/bash
# As uid_map_mismatch_refused, for gid_map: the uid mapping of the
# process matches config.json, its gid mapping (0 200000 65536) does not
# (config.json: 0 100000 65536).  Refused, exit 1, naming gid_map.
. "$(dirname "$0")/../lib/testlib.sh"
. "$(dirname "$0")/hooklib.bash"
require_guest
scratch_dir
trap 'kill "$SLEEPER" 2>/dev/null; rm -rf "$SCRATCH"' EXIT

make_bundle "$SCRATCH/c" "$SHARED_IMAGE" "0 100000 65536" "0 100000 65536" /bin/probe id
userns_sleeper "0 100000 65536" "0 200000 65536"
pid=$SLEEPER
assert_status 1 "$HOOK" prestart < <(state_json hook-gidmap-$$ "$pid" "$SCRATCH/c")
assert_eq "shiftbind-hook: prestart: container hook-gidmap-$$: /proc/$pid/gid_map (0 200000 65536) does not match config.json linux.gidMappings (0 100000 65536): refusing" \
	"$(tail -n 1 <<<"$OUTPUT")" "hook's message"
