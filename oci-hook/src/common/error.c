// SPDX-License-Identifier: GPL-2.0
/* error.c: see error.h. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "error.h"

/* Mark a message that did not fit, so nobody takes it as complete. */
static void mark_truncated(char *buf, size_t size)
{
	static const char ellipsis[] = "...";

	memcpy(buf + size - sizeof(ellipsis), ellipsis, sizeof(ellipsis));
}

static void format_into(char *buf, size_t size, const char *fmt, va_list ap)
	__attribute__((format(printf, 3, 0)));

static void format_into(char *buf, size_t size, const char *fmt, va_list ap)
{
	int n = vsnprintf(buf, size, fmt, ap);

	if (n < 0)
		snprintf(buf, size, "(unformattable message)");
	else if ((size_t)n >= size)
		mark_truncated(buf, size);
}

static void append(struct error *e, const char *text)
{
	size_t len = strlen(e->msg);
	int n = snprintf(e->msg + len, sizeof(e->msg) - len, "%s", text);

	if (n < 0 || (size_t)n >= sizeof(e->msg) - len)
		mark_truncated(e->msg, sizeof(e->msg));
}

/*
 * What error_context() keeps of the context when the whole does not fit:
 * its start, enough to name the operation.
 */
#define CONTEXT_MIN 128

/* s cut to len characters, the last three "..." (len >= 3). */
static void cut_end(char *s, size_t len)
{
	if (strlen(s) > len)
		memcpy(s + len - 3, "...", 4);
}

/*
 * s cut to len characters (len >= 3) in its middle, "..." there: its
 * start names the operation, its end the reason.
 */
static void cut_middle(char *s, size_t len)
{
	size_t n = strlen(s), head = (len - 3) / 2, tail = len - 3 - head;

	if (n > len) {
		memcpy(s + head, "...", 3);
		memmove(s + head + 3, s + n - tail, tail + 1);
	}
}

int error_errno(struct error *e, int err, const char *fmt, ...)
{
	const char *reason = strerror(err);
	char what[ERROR_MSG_MAX];
	va_list ap;

	va_start(ap, fmt);
	format_into(what, sizeof(what), fmt, ap);
	va_end(ap);
	/* The system's reason is kept whole: a long path is cut instead. */
	cut_end(what, sizeof(e->msg) - 1 - 2 - strlen(reason));
	e->msg[0] = '\0';
	append(e, what);
	append(e, ": ");
	append(e, reason);
	e->code = err;
	return -err;
}

int error_msg(struct error *e, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	format_into(e->msg, sizeof(e->msg), fmt, ap);
	va_end(ap);
	e->code = err;
	return -err;
}

int error_context(struct error *e, const char *fmt, ...)
{
	char prefix[ERROR_MSG_MAX];
	char old[ERROR_MSG_MAX];
	size_t room = sizeof(e->msg) - 1 - 2;	/* ": " */
	size_t plen, olen, keep;
	va_list ap;

	va_start(ap, fmt);
	format_into(prefix, sizeof(prefix), fmt, ap);
	va_end(ap);
	memcpy(old, e->msg, sizeof(old));
	/*
	 * The innermost reason ends the message so far (strerror's text,
	 * the refusal): a long context (a path) is cut, not it.  Only a
	 * message that leaves the context less than CONTEXT_MIN (or its
	 * length, if shorter) is cut too, in its middle.
	 */
	plen = strlen(prefix);
	olen = strlen(old);
	keep = plen < CONTEXT_MIN ? plen : CONTEXT_MIN;
	if (plen + olen > room) {
		if (olen > room - keep) {
			cut_middle(old, room - keep);
			olen = room - keep;
		}
		cut_end(prefix, room - olen);
	}
	e->msg[0] = '\0';
	append(e, prefix);
	append(e, ": ");
	append(e, old);
	if (e->code == 0)	/* never turn a failure into success */
		e->code = EIO;
	return -e->code;
}
