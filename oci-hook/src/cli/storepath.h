/* SPDX-License-Identifier: GPL-2.0 */
/*
 * storepath.h: resolving a path that root acts on once, safely: an
 * image store (`shiftbind allow`, `disallow`, `prepare-store`), a
 * bundle (`patch-config`), allow.conf (`apply-config`).  What is checked
 * is the directory or file opened, and what is acted on is that same
 * open file: no path is resolved again after the checks.
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
 * link and refusing "..", with checks (STORE_CHECK_OWNERS or 0) on
 * every component.  On success *fd is an O_PATH fd of the store
 * directory and canon its path as walked (no link, "." or "..": what
 * mountinfo shows).
 */
int store_open(const char *path, unsigned int checks, int *fd, char *canon,
	       size_t size, struct error *e);

/*
 * bundle_open: an OCI bundle directory for patch-config, resolved as
 * store_open resolves a store, with sshd's StrictModes on every
 * directory from "/" to it: owned by root or the caller, writable by
 * neither group nor others (an ancestor with the sticky bit excepted).
 * Whoever else could write one of them could swap the bundle, between
 * the check and the write, for a directory whose config.json they do
 * not own.  *fd: the bundle's O_PATH fd.
 */
int bundle_open(const char *path, int *fd, char *canon, size_t size,
		struct error *e);

/*
 * conf_file_open: allow.conf, opened for reading through no symbolic
 * link, its directories checked as bundle_open() checks them but owned
 * by root only, the file itself a regular file owned by root and
 * writable by neither group nor others (sshd's StrictModes): whoever
 * else could change it would choose which stores are marked and for
 * whom.  *fd: the open file; canon its plain path.
 */
int conf_file_open(const char *path, int *fd, char *canon, size_t size,
		   struct error *e);

/*
 * store_path_normalize: path made absolute against the working
 * directory, without empty or "." components or a trailing slash, into
 * full, as store_open() walks it; ".." is refused with the message
 * store_open() gives.
 */
int store_path_normalize(const char *path, char *full, size_t size,
			 struct error *e);

#endif /* SHIFTBIND_STOREPATH_H */
