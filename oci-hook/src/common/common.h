/* SPDX-License-Identifier: GPL-2.0 */
/*
 * common.h: small helpers shared by the hook and the CLI.
 *
 * Ownership follows crun and bubblewrap: a variable declared with a
 * _cleanup_ attribute owns what it holds and starts at a sentinel (NULL,
 * -1); handing it on is explicit (steal_pointer, steal_fd).
 */
#ifndef SHIFTBIND_COMMON_H
#define SHIFTBIND_COMMON_H

#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

static inline void freep(void *p)
{
	free(*(void **)p);
}

/* Keeps errno: cleanups run on error paths that may still report it. */
/*
 * Close *fd if open, and mark it closed: an explicit closep() before the
 * variable's _cleanup_close_ runs must not close the number again (by
 * then it may be another file's).
 */
static inline void closep(int *fd)
{
	if (*fd >= 0) {
		int saved = errno;

		close(*fd);
		*fd = -1;
		errno = saved;
	}
}

#define _cleanup_free_	__attribute__((cleanup(freep)))
#define _cleanup_close_	__attribute__((cleanup(closep)))

static inline void *steal_pointer(void *pp)
{
	void **p = pp;
	void *v = *p;

	*p = NULL;
	return v;
}

static inline int steal_fd(int *fd)
{
	int v = *fd;

	*fd = -1;
	return v;
}

#endif /* SHIFTBIND_COMMON_H */
