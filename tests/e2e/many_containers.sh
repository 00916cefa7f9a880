#!/bin/bash
# Eight containers with distinct mappings start at the same time on one
# image: all succeed, all see the real owners, and the image on the host
# is unchanged afterwards (owners, modes and content).
. "$(dirname "$0")/../lib/testlib.sh"
require_guest
scratch_dir

readonly COUNT=8
image_fingerprint() {
	(cd "$SHARED_IMAGE" && find . -printf '%U:%G %m %y %p\n' | sort &&
		find . -type f -exec sha256sum {} + | sort -k2) | sha256sum
}

before=$(image_fingerprint)
pids=()
for i in $(seq 1 "$COUNT"); do
	base=$((1000000 + i * 65536))
	make_bundle "$SCRATCH/c$i" "$SHARED_IMAGE" "0 $base 65536" "0 $base 65536" \
		/bin/probe stat "${OWNER_PATHS[@]}"
	with_hook "$SCRATCH/c$i"
	crun_run "$SCRATCH/c$i" "e2e-many-$i" >"$SCRATCH/c$i.out" 2>&1 &
	pids+=($!)
done
for i in $(seq 1 "$COUNT"); do
	wait "${pids[$((i - 1))]}" ||
		fail "container $i failed: $(cat "$SCRATCH/c$i.out" "$SCRATCH/c$i/hook.stderr" 2>/dev/null)"
	assert_eq "$REAL_OWNERS" "$(cat "$SCRATCH/c$i.out")" "owners in container $i"
done
assert_eq "$before" "$(image_fingerprint)" "fingerprint of the image on the host"
