#!/bin/bash
# Two rootful containers with different mappings (0 -> 100000 and
# 0 -> 200000) run at the same time on the same image of a store marked
# allow-shift, with shiftbind-hook registered: both see the image's real
# owners, and a setuid-root binary runs as the container's root.
. "$(dirname "$0")/../lib/testlib.sh"
require_guest
scratch_dir

for c in a:100000 b:200000; do
	name=${c%%:*} base=${c#*:}
	make_bundle "$SCRATCH/$name" "$SHARED_IMAGE" "0 $base 65536" "0 $base 65536" \
		/bin/sh -c "/bin/probe stat ${OWNER_PATHS[*]}; sleep 2"
	with_hook "$SCRATCH/$name"
done
crun_run "$SCRATCH/a" e2e-a >"$SCRATCH/a.out" 2>&1 &
pid_a=$!
crun_run "$SCRATCH/b" e2e-b >"$SCRATCH/b.out" 2>&1 &
pid_b=$!
wait "$pid_a" || fail "container a failed: $(cat "$SCRATCH/a.out" "$SCRATCH/a/hook.stderr" 2>/dev/null)"
wait "$pid_b" || fail "container b failed: $(cat "$SCRATCH/b.out" "$SCRATCH/b/hook.stderr" 2>/dev/null)"
assert_eq "$REAL_OWNERS" "$(cat "$SCRATCH/a.out")" "owners in container a (0 -> 100000)"
assert_eq "$REAL_OWNERS" "$(cat "$SCRATCH/b.out")" "owners in container b (0 -> 200000)"

make_bundle "$SCRATCH/suid" "$SHARED_IMAGE" "0 100000 65536" "0 100000 65536" /bin/probe-suid id
run_as_user "$SCRATCH/suid" 1000 1000
# crun's default config sets no_new_privs, which ignores setuid bits.
jq '.process.noNewPrivileges = false' "$SCRATCH/suid/config.json" >"$SCRATCH/suid/config.json.new"
mv "$SCRATCH/suid/config.json.new" "$SCRATCH/suid/config.json"
with_hook "$SCRATCH/suid"
assert_status 0 crun_run "$SCRATCH/suid" e2e-suid
assert_eq "uid=1000 gid=1000 euid=0 egid=1000" "$OUTPUT" "setuid-root binary run by uid 1000"
