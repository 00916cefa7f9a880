/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sandbox.h: the hook's two seccomp filters, built with libseccomp at
 * build time (tools/seccomp-gen.c says what each allows and why).
 *
 *   SANDBOX_PARSER  the parser child (privsep.h), before it reads a byte
 *                   of its input: read, write to its reply and stderr,
 *                   memory, exit.
 *   SANDBOX_HOOK    the privileged hook once it has joined the
 *                   container's mount namespace, opened the mounts to
 *                   shift and prepared each shift's configfd
 *                   (shift_prepare), before it reads /proc or
 *                   mountinfo: openat without write, create or truncate
 *                   flags, writes to its open fds, send on the syslog
 *                   socket it connected before (no address), and
 *                   configfd_action(CMD_RECONFIGURE) on the prepared
 *                   configfds' numbers only.  No configfd_open, no other
 *                   configfd command, no mount API call (mount_setattr,
 *                   open_tree, move_mount, fsopen, fsconfig, fsmount,
 *                   fspick, mount, umount2), no new socket, no connect:
 *                   code running in the confined hook can make the
 *                   shifts the hook prepared and nothing else, neither
 *                   mark, unmark nor relax a mount.
 *
 * Refused calls fail with EPERM; another ABI (i386, x32) is killed.
 */
#ifndef SHIFTBIND_SANDBOX_H
#define SHIFTBIND_SANDBOX_H

#include <stddef.h>

#include "annotations.h"
#include "error.h"

/*
 * The fd numbers of the prepared configfds, one per mount the hook
 * shifts (the rootfs, then the extra mounts): the hook's filter allows
 * CMD_RECONFIGURE on these numbers and on no other fd.  Above what a
 * hook has open (a dozen), below the smallest RLIMIT_NOFILE runtimes use.
 */
#define SANDBOX_CONFIGFD_FIRST	64
#define SANDBOX_CONFIGFD_COUNT	(1 + EXTRA_MOUNTS_MAX)

/* Set to 1, both sides try what their filter must refuse and log it. */
#define SANDBOX_TEST_ENV "SHIFTBIND_HOOK_SECCOMP_TEST"

enum sandbox_kind {
	SANDBOX_PARSER,
	SANDBOX_HOOK,
};

/* sandbox_install: no new privileges, then the filter of kind. */
int sandbox_install(enum sandbox_kind kind, struct error *e);

/*
 * sandbox_self_test: under the filter of kind, try each call it must
 * refuse (on paths that cannot exist, or fds that are not open, so that
 * nothing happens without the filter either) and each it must let
 * through.  0 with a one-line summary in report; -errno with a message
 * naming the call whose answer was wrong.
 */
int sandbox_self_test(enum sandbox_kind kind, char *report, size_t size,
		      struct error *e);

#endif /* SHIFTBIND_SANDBOX_H */
