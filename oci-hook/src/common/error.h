/* SPDX-License-Identifier: GPL-2.0 */
/*
 * error.h: the one error contract of the hook and the CLI (crun's
 * design-docs/error_handling.md): a fallible function returns 0 or a
 * negative errno and, on failure, fills a struct error whose message
 * names the operation and the path.  Callers add context on the way up;
 * only main() prints, once.
 */
#ifndef SHIFTBIND_ERROR_H
#define SHIFTBIND_ERROR_H

#include <errno.h>	/* the codes this API speaks */

#define ERROR_MSG_MAX 2048

struct error {
	int code;			/* positive errno; 0 while none */
	char msg[ERROR_MSG_MAX];	/* cut with "..." when too long */
};

/* A failed system call: "<message>: <strerror(err)>".  Returns -err. */
int error_errno(struct error *e, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* A refusal or bad input, no errno text.  Returns -err. */
int error_msg(struct error *e, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Prefix "<context>: " to the recorded message.  Returns -e->code. */
int error_context(struct error *e, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#endif /* SHIFTBIND_ERROR_H */
