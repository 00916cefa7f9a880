/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sandbox.h: the hook's two seccomp filters, built with libseccomp at
 * build time (tools/seccomp-gen.c says what each allows and why).
 *
 *   SANDBOX_PARSER  the parser child (privsep.h), before it reads a byte
 *                   of its input: read, write to its reply and stderr,
 *                   memory, exit.
 *   SANDBOX_HOOK    the privileged hook once it has joined the
 *                   container's mount namespace and opened the mounts to
 *                   shift, before it reads /proc or mountinfo: openat
 *                   without write, create or truncate flags, writes to
 *                   its open fds, syslog on the socket it connected
 *                   before, configfd.  No new socket, no connect.
 *
 * Refused calls fail with EPERM; another ABI (i386, x32) is killed.
 */
#ifndef SHIFTBIND_SANDBOX_H
#define SHIFTBIND_SANDBOX_H

#include <stddef.h>

#include "error.h"

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
