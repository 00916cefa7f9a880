// SPDX-License-Identifier: GPL-2.0
/* jsonwriter.c: see jsonwriter.h. */
#include <string.h>

#include "jsonwriter.h"

int json_writer_init(struct json_writer *w, struct error *e)
{
	w->status = yajl_gen_status_ok;
	w->gen = yajl_gen_alloc(NULL);
	if (!w->gen)
		return error_errno(e, ENOMEM, "yajl_gen_alloc");
	yajl_gen_config(w->gen, yajl_gen_beautify, 1);
	yajl_gen_config(w->gen, yajl_gen_indent_string, "\t");
	yajl_gen_config(w->gen, yajl_gen_validate_utf8, 1);
	return 0;
}

void json_writer_free(struct json_writer *w)
{
	if (w->gen)
		yajl_gen_free(w->gen);
	w->gen = NULL;
}

/* Run call only while no earlier one failed. */
#define STICKY(w, call)                                 \
	do {                                            \
		if ((w)->status == yajl_gen_status_ok)  \
			(w)->status = (call);           \
	} while (0)

void jw_string_len(struct json_writer *w, const char *s, size_t len)
{
	STICKY(w, yajl_gen_string(w->gen, (const unsigned char *)s, len));
}

void jw_string(struct json_writer *w, const char *s)
{
	jw_string_len(w, s, strlen(s));
}

void jw_number(struct json_writer *w, const char *text)
{
	STICKY(w, yajl_gen_number(w->gen, text, strlen(text)));
}

void jw_integer(struct json_writer *w, long long n)
{
	STICKY(w, yajl_gen_integer(w->gen, n));
}

void jw_bool(struct json_writer *w, bool b)
{
	STICKY(w, yajl_gen_bool(w->gen, b));
}

void jw_null(struct json_writer *w)
{
	STICKY(w, yajl_gen_null(w->gen));
}

void jw_map_open(struct json_writer *w)
{
	STICKY(w, yajl_gen_map_open(w->gen));
}

void jw_map_close(struct json_writer *w)
{
	STICKY(w, yajl_gen_map_close(w->gen));
}

void jw_array_open(struct json_writer *w)
{
	STICKY(w, yajl_gen_array_open(w->gen));
}

void jw_array_close(struct json_writer *w)
{
	STICKY(w, yajl_gen_array_close(w->gen));
}

static const char *status_text(yajl_gen_status status)
{
	switch (status) {
	case yajl_gen_status_ok:
		return "ok";
	case yajl_gen_keys_must_be_strings:
		return "a key is not a string";
	case yajl_max_depth_exceeded:
		return "nested too deep";
	case yajl_gen_in_error_state:
		return "generator in error state";
	case yajl_gen_generation_complete:
		return "more than one document";
	case yajl_gen_invalid_number:
		return "invalid number";
	case yajl_gen_no_buf:
		return "no buffer";
	case yajl_gen_invalid_string:
		return "a string is not valid UTF-8";
	}
	return "unknown error";
}

int json_writer_finish(struct json_writer *w, const char *what,
		       const unsigned char **buf, size_t *len, struct error *e)
{
	if (w->status != yajl_gen_status_ok)
		return error_msg(e, EINVAL, "%s: writing JSON: %s", what,
				 status_text(w->status));
	if (yajl_gen_get_buf(w->gen, buf, len) != yajl_gen_status_ok)
		return error_msg(e, EINVAL, "%s: writing JSON failed", what);
	return 0;
}
