/* SPDX-License-Identifier: GPL-2.0 */
/*
 * configfd_steps.h: configfd calls as a list of steps, run in order on
 * one configfd of type "bind", the first failure reported with its key
 * and the kernel's own reasons from the configfd's log.  The hook's and
 * the CLI's changes to kernel state (hook/shift.c, cli/marks.c) are
 * written as such lists.
 */
#ifndef SHIFTBIND_CONFIGFD_STEPS_H
#define SHIFTBIND_CONFIGFD_STEPS_H

#include <stddef.h>

#include "configfd.h"
#include "error.h"

/* One configfd_action(2) call: cmd, key, value and aux as it takes them. */
struct configfd_step {
	unsigned int cmd;
	const char *key;
	void *value;
	int aux;
};

/* run_steps: each step on fd, in order, until one fails. */
int run_steps(int fd, const struct configfd_step *steps, size_t n,
	      const char *path, struct error *e);

/* open_bind_configfd: configfd_open("bind") for op, the fd in *out. */
int open_bind_configfd(unsigned int op, const char *path, int *out,
		       struct error *e);

/*
 * run_bind_configfd: steps on a new configfd of type "bind" opened for
 * op, closed after.  A failed step leaves the mount as it was.
 */
int run_bind_configfd(unsigned int op, const struct configfd_step *steps,
		      size_t n, const char *path, struct error *e);

#endif /* SHIFTBIND_CONFIGFD_STEPS_H */
