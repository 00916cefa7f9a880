#!/bin/bash
# The hook's two seccomp filters as released (generated with libseccomp
# at build time, static-pie, hardening flags): hook/sandbox_test.c loads
# one in a child per case and makes one call.
#   - the parser child's: read, write to its reply pipe and stderr,
#     getrandom and the clocks (libc's own calls: malloc's key, the vDSO's
#     fallbacks; also allowed in the hook's filter),
#     memory without PROT_EXEC, exit; open (even read-only), socket,
#     connect, sendto, setns, ptrace: EPERM
#   - the confined hook's: openat only without a write, create, truncate,
#     append or tmpfile flag; openat2 (its flags are out of the filter's
#     sight), socket, connect, sendto with an address, setns, mkdirat,
#     configfd_open, every configfd command but CMD_RECONFIGURE, and
#     CMD_RECONFIGURE on any fd but the reserved ones, mount_setattr,
#     open_tree, move_mount, fsopen, fsconfig, fsmount, fspick, mount,
#     umount2: EPERM; send on the syslog socket and CMD_RECONFIGURE on
#     the reserved fds reach the kernel
#   - tgkill, which only abort() makes: SIGSYS, after abort's message
#   - the i386 and x32 ABIs: the process is killed (SIGSYS)
. "$(dirname "$0")/../lib/testlib.sh"
. "$(dirname "$0")/hook/lib.sh"
require_root
scratch_dir

build_oci_hook "$SCRATCH/build/hook-sandbox-test"
assert_status 0 "$BUILD/hook-sandbox-test"
printf '%s\n' "$OUTPUT"
# The plan comes first, derived from the program's table of cases (it
# fails itself when another number ran); every planned check passed.
checks=$(grep -c '^ok ' <<<"$OUTPUT" || true)
assert_eq "1..$checks" "$(head -n 1 <<<"$OUTPUT")" "the plan, against the checks that passed"
