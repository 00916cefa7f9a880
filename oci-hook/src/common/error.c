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

int error_errno(struct error *e, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	format_into(e->msg, sizeof(e->msg), fmt, ap);
	va_end(ap);
	append(e, ": ");
	append(e, strerror(err));
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
	va_list ap;

	va_start(ap, fmt);
	format_into(prefix, sizeof(prefix), fmt, ap);
	va_end(ap);
	memcpy(old, e->msg, sizeof(old));
	e->msg[0] = '\0';
	append(e, prefix);
	append(e, ": ");
	append(e, old);
	if (e->code == 0)	/* never turn a failure into success */
		e->code = EIO;
	return -e->code;
}
