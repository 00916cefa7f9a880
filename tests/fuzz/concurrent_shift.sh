#!/bin/bash
# Shifting an attached mount in place while others use it: in each round
# a fresh bind of a marked ext4 directory is attached in a user
# namespace's mount namespace and shifted (CMD_RECONFIGURE "shift") while
# two threads write files through it (holding them open, so the shift
# meets EBUSY), others read /proc/self/mountinfo, and, in some rounds, the
# mount is unmounted or the configfd closed meanwhile.  mountinfo must
# parse and a shift never vanish from it; a round with nothing but
# writers must end shifted; files written after the shift must be 0:0 on
# disk, and the others 0:0 or the unshifted 100000:100000.  Meanwhile an
# attacker thread opens real root's device nodes through the mount and
# tries setuid/setgid bits (chmod, creation, a POSIX ACL), setuid files
# and file capabilities, writes real root's setuid programs through a
# shared mapping and copies real root's privileged programs up through a
# rootless overlay whose upper directory is on the mount; two attacks in
# five are made by a host process with the namespace root's ids, through
# /proc/PID/root or a passed fd.  No node may open, nothing on disk may
# grant an id outside 100000..165535, every setuid program written (at
# least one) must have lost its bit, and each attacker and the copy-up
# must have been refused at least once.
. "$(dirname "$0")/../lib/testlib.sh"
. "$(dirname "$0")/fuzzlib.bash"

readonly ROUNDS=${FUZZ_SHIFT_ROUNDS:-12}

fuzz_begin concurrent_shift
init_mounts=$(mount_table_of 1)
run_fuzzer "concurrent shift" --mode shift-race --seed "$FUZZ_SEED" --rounds "$ROUNDS"
assert_contains "files on disk:" "$FUZZ_OUT" "fuzzer output ($FUZZ_REPLAY)"
assert_match "privilege attacks: [1-9][0-9]* tries through the mounts, [1-9][0-9]* refused" \
	"$FUZZ_OUT" "the attacker's tries ($FUZZ_REPLAY)"
assert_match "host-process attacks: [1-9][0-9]* tries through /proc/PID/root or a passed fd, [1-9][0-9]* refused" \
	"$FUZZ_OUT" "the host attacker's tries ($FUZZ_REPLAY)"
assert_match "overlay copy-ups: [1-9][0-9]* tries, [1-9][0-9]* refused through a shift" \
	"$FUZZ_OUT" "the attacker's overlay copy-ups ($FUZZ_REPLAY)"
assert_match "[1-9][0-9]* of real root's setuid programs written through a mapping, none still setuid" \
	"$FUZZ_OUT" "the attacker's shared-mapping writes ($FUZZ_REPLAY)"
assert_same_mounts "$init_mounts" 1 "the initial mount namespace after '$FUZZ_REPLAY'"
