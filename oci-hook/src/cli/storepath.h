/* SPDX-License-Identifier: GPL-2.0 */
/*
 * storepath.h: resolving the path of an image store once, safely, for
 * `shiftbind allow` and `shiftbind disallow`.  What is checked is the
 * directory opened, and what is marked is that same open directory:
 * no path is resolved again after the checks.
 */
#ifndef SHIFTBIND_STOREPATH_H
#define SHIFTBIND_STOREPATH_H

#include <stddef.h>

#include "error.h"

enum store_checks {
	/*
	 * Every directory from "/" to the store is owned by root and
	 * writable by neither group nor others: nobody else can swap what
	 * the path leads to, now or later.
	 */
	STORE_CHECK_OWNERS = 1 << 0,
};

/*
 * store_open: resolve path (relative to the working directory unless
 * absolute) from "/" one component at a time, following no symbolic
 * link and refusing "..", with checks (enum store_checks) on every
 * component.  On success *fd is an O_PATH fd of the store directory and
 * canon its path as walked (no link, "." or "..": what mountinfo shows).
 */
int store_open(const char *path, unsigned int checks, int *fd, char *canon,
	       size_t size, struct error *e);

#endif /* SHIFTBIND_STOREPATH_H */
