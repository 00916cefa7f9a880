/* SPDX-License-Identifier: GPL-2.0 */
/*
 * wire.h: the flat encoding in which the parser child hands the hook
 * what it parsed (privsep.h).  Numbers are 32-bit in host order (both
 * ends are the same binary); a string is its length and its bytes, no
 * NUL; an absent string has the length WIRE_ABSENT.
 *
 * The reader is the privileged side and trusts nothing: every length is
 * bounded by the caller's cap and by what is left, strings must not
 * hold a NUL, and wire_end() refuses trailing bytes.
 */
#ifndef SHIFTBIND_WIRE_H
#define SHIFTBIND_WIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"

#define WIRE_ABSENT	UINT32_MAX

struct wire_writer {
	char *data;
	size_t len;
	size_t cap;
	bool failed;		/* out of memory: wire_done() reports it */
};

void wire_put_u32(struct wire_writer *w, uint32_t v);
void wire_put_bool(struct wire_writer *w, bool v);
/* s may be NULL (absent). */
void wire_put_str(struct wire_writer *w, const char *s);
/* 0, or -ENOMEM with a message once any put failed. */
int wire_done(struct wire_writer *w, struct error *e);
void wire_writer_free(struct wire_writer *w);

struct wire_reader {
	const char *p;
	size_t left;
	const char *what;	/* names the message in errors */
};

int wire_get_u32(struct wire_reader *r, uint32_t max, uint32_t *out,
		 struct error *e);
int wire_get_bool(struct wire_reader *r, bool *out, struct error *e);
/*
 * A string of at most max bytes into a new *out; absent is an error
 * unless optional (then *out is NULL).
 */
int wire_get_str(struct wire_reader *r, size_t max, bool optional, char **out,
		 struct error *e);
/* 0 when every byte was read. */
int wire_end(const struct wire_reader *r, struct error *e);

#endif /* SHIFTBIND_WIRE_H */
