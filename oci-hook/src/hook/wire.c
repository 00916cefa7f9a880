// SPDX-License-Identifier: GPL-2.0
/* wire.c: see wire.h. */
#include <stdlib.h>
#include <string.h>

#include "wire.h"

static void put_bytes(struct wire_writer *w, const void *p, size_t n)
{
	if (w->failed || n == 0)
		return;
	if (n > w->cap - w->len) {
		size_t cap = w->cap ? w->cap : 256;
		char *data;

		while (n > cap - w->len) {
			if (cap > SIZE_MAX / 2) {
				w->failed = true;
				return;
			}
			cap *= 2;
		}
		data = realloc(w->data, cap);
		if (!data) {
			w->failed = true;
			return;
		}
		w->data = data;
		w->cap = cap;
	}
	memcpy(w->data + w->len, p, n);
	w->len += n;
}

void wire_put_u32(struct wire_writer *w, uint32_t v)
{
	put_bytes(w, &v, sizeof(v));
}

void wire_put_bool(struct wire_writer *w, bool v)
{
	wire_put_u32(w, v ? 1 : 0);
}

void wire_put_str(struct wire_writer *w, const char *s)
{
	size_t len = s ? strlen(s) : 0;

	if (len >= WIRE_ABSENT) {
		w->failed = true;
		return;
	}
	wire_put_u32(w, s ? (uint32_t)len : WIRE_ABSENT);
	put_bytes(w, s, len);
}

int wire_done(struct wire_writer *w, struct error *e)
{
	if (w->failed)
		return error_errno(e, ENOMEM, "encoding the parsed input");
	return 0;
}

void wire_writer_free(struct wire_writer *w)
{
	free(w->data);
	memset(w, 0, sizeof(*w));
}

static int truncated(const struct wire_reader *r, struct error *e)
{
	return error_msg(e, EPROTO, "%s: message from the parser child is truncated",
			 r->what);
}

int wire_get_u32(struct wire_reader *r, uint32_t max, uint32_t *out,
		 struct error *e)
{
	uint32_t v = 0;

	if (r->left < sizeof(v))
		return truncated(r, e);
	memcpy(&v, r->p, sizeof(v));
	r->p += sizeof(v);
	r->left -= sizeof(v);
	if (v > max)
		return error_msg(e, EPROTO,
				 "%s: value %u from the parser child is above %u",
				 r->what, v, max);
	*out = v;
	return 0;
}

int wire_get_bool(struct wire_reader *r, bool *out, struct error *e)
{
	uint32_t v = 0;
	int ret = wire_get_u32(r, 1, &v, e);

	if (ret == 0)
		*out = v;
	return ret;
}

int wire_get_str(struct wire_reader *r, size_t max, bool optional, char **out,
		 struct error *e)
{
	uint32_t len = 0;
	char *s;
	int ret = wire_get_u32(r, UINT32_MAX, &len, e);

	if (ret < 0)
		return ret;
	if (len == WIRE_ABSENT) {
		if (!optional)
			return error_msg(e, EPROTO,
					 "%s: a string the parser child must send is missing",
					 r->what);
		*out = NULL;
		return 0;
	}
	if (len > max)
		return error_msg(e, EPROTO,
				 "%s: a string of %u bytes from the parser child, above %zu",
				 r->what, len, max);
	if (len > r->left)
		return truncated(r, e);
	if (memchr(r->p, '\0', len))
		return error_msg(e, EPROTO,
				 "%s: a string from the parser child holds a NUL byte",
				 r->what);
	s = malloc((size_t)len + 1);
	if (!s)
		return error_errno(e, ENOMEM, "%s", r->what);
	memcpy(s, r->p, len);
	s[len] = '\0';
	r->p += len;
	r->left -= len;
	*out = s;
	return 0;
}

int wire_end(const struct wire_reader *r, struct error *e)
{
	if (r->left)
		return error_msg(e, EPROTO,
				 "%s: %zu unexpected bytes at the end of a message from the parser child",
				 r->what, r->left);
	return 0;
}
