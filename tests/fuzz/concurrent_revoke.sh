#!/bin/bash
# Revoking a live shift while the user namespace writes through it: in
# each round real root marks a store (the ext4 directory, and every other
# round an xfs filesystem with reflinks where the guest has mkfs.xfs), a
# new user namespace (0 100000 65536) shifts a bind of it, and three
# threads there open files through the shift (read-only and read-write,
# a shared writable and a shared read-only mapping, a directory) and then
# call, over and over: write, pwrite, ftruncate, fchmod, fchown,
# fremovexattr of real root's file capability, FS_IOC_SETFLAGS,
# F_SETLEASE, FICLONERANGE and copy_file_range into a held file, a new
# writable shared mapping, mprotect(PROT_WRITE) of the read-only one,
# openat below the held directory and creation.  Real root revokes the
# shift (disallow-shift,revoke) at a random moment.  No call that started
# after the revocation had completed may succeed, but reads, fstat and
# stores through the mapping writable before (the documented exception,
# not counted); every kind must have been tried after it (FICLONERANGE on
# xfs refused with EACCES: on ext4 it fails with EOPNOTSUPP before the
# gate); on disk nothing may be setuid, setgid or capable but real root's
# own fixtures, and no owner anything but 0 or 4294967295 (an operation
# across the revocation).  It sorts before kmemleak_clean, which must run
# last.
. "$(dirname "$0")/../lib/testlib.sh"
. "$(dirname "$0")/fuzzlib.bash"

readonly ROUNDS=${FUZZ_REVOKE_ROUNDS:-32}
# The calls that must be refused after a revocation (the fuzzer's names).
readonly GATED=(write pwrite ftruncate fchmod fchown fremovexattr FS_IOC_SETFLAGS
	F_SETLEASE FICLONERANGE copy_file_range mmap mprotect openat create)

fuzz_begin concurrent_revoke
init_mounts=$(mount_table_of 1)
run_fuzzer "concurrent revoke" --mode revoke-race --seed "$FUZZ_SEED" --rounds "$ROUNDS"
assert_match "revoke race: [1-9][0-9]* calls after revocation, 0 succeeded;" \
	"$FUZZ_OUT" "the calls after the revocations ($FUZZ_REPLAY)"
for kind in "${GATED[@]}"; do
	refused='[0-9]*'
	# Only xfs reaches the gate: ext4 has no reflinks (EOPNOTSUPP).
	[ "$kind" != FICLONERANGE ] || [[ $FUZZ_OUT == *"no mkfs.xfs"* ]] || refused='[1-9][0-9]*'
	assert_match "revoke race kind $kind: [1-9][0-9]* after revocation, 0 succeeded, $refused refused" \
		"$FUZZ_OUT" "$kind after the revocations ($FUZZ_REPLAY)"
done
assert_contains "revoke race disk:" "$FUZZ_OUT" "fuzzer output ($FUZZ_REPLAY)"
assert_same_mounts "$init_mounts" 1 "the initial mount namespace after '$FUZZ_REPLAY'"
