/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sandbox.h: the hook's seccomp allowlist.  The hook runs as root and
 * parses input a container author controls, so before it reads that
 * input it gives up every syscall it does not need: a parser bug then
 * cannot become an arbitrary root syscall.
 */
#ifndef SHIFTBIND_SANDBOX_H
#define SHIFTBIND_SANDBOX_H

#include <stdbool.h>

#include "error.h"

/* Set to 1, the hook tries an unlisted syscall once confined and reports. */
#define SANDBOX_TEST_ENV "SHIFTBIND_HOOK_SECCOMP_TEST"

/*
 * sandbox_install: load the filter (no new privileges, default action
 * EPERM).  with_configfd allows syscalls 451 and 452, which the hook
 * needs only on a kernel where configfd_probe() found configfd: on
 * upstream kernels those numbers are cachestat and fchmodat2.
 */
int sandbox_install(bool with_configfd, struct error *e);

/*
 * sandbox_self_test: try mkdirat(2), which the filter does not allow,
 * on a path that cannot exist.  0 when refused with EPERM; -errno with a
 * message when not.
 */
int sandbox_self_test(struct error *e);

#endif /* SHIFTBIND_SANDBOX_H */
