#!/bin/bash
# The hook cross-checks config.json's mapping against the kernel's view
# of the container process.  Invoked directly at prestart with a state
# whose pid is a process in a user namespace mapped 0 100000 65535 (one
# id short) while config.json says 0 100000 65536: refused, exit 1, with
# both mappings in the message.  Control: a process mapped exactly as
# config.json says passes that check (and is refused later, because it
# has no mount namespace of its own).
. "$(dirname "$0")/../lib/testlib.sh"
. "$(dirname "$0")/hooklib.bash"
require_guest
scratch_dir
pids=()
trap 'kill "${pids[@]}" 2>/dev/null; rm -rf "$SCRATCH"' EXIT

make_bundle "$SCRATCH/c" "$SHARED_IMAGE" "0 100000 65536" "0 100000 65536" /bin/probe id

userns_sleeper "0 100000 65535" "0 100000 65536"
pid=$SLEEPER pids+=("$SLEEPER")
assert_eq "0 100000 65535" "$(awk '{ print $1, $2, $3 }' "/proc/$pid/uid_map")" "uid_map of pid $pid"
assert_status 1 "$HOOK" prestart < <(state_json hook-uidmap-$$ "$pid" "$SCRATCH/c")
assert_eq "shiftbind-hook: prestart: container hook-uidmap-$$: /proc/$pid/uid_map (0 100000 65535) does not match config.json linux.uidMappings (0 100000 65536): refusing" \
	"$(tail -n 1 <<<"$OUTPUT")" "hook's message"

userns_sleeper "0 100000 65536" "0 100000 65536"
pid=$SLEEPER pids+=("$SLEEPER")
assert_status 1 "$HOOK" prestart < <(state_json hook-uidmap-ok-$$ "$pid" "$SCRATCH/c")
[[ $OUTPUT != *"does not match"* ]] || fail "matching maps refused: $OUTPUT"
assert_contains "container hook-uidmap-ok-$$: joining the container's mount namespace: /proc/$pid/ns/mnt is the hook's own mount namespace" \
	"$OUTPUT" "hook's message for matching maps"
