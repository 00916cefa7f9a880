/* SPDX-License-Identifier: GPL-2.0 */
/*
 * jsonwriter.h: yajl_gen with a sticky error.  yajl_gen reports a
 * failure (an invalid UTF-8 string, say) only from the call that failed
 * and then carries on, producing broken JSON; here the first failure is
 * kept, later calls do nothing, and json_writer_finish() reports it.
 */
#ifndef SHIFTBIND_JSONWRITER_H
#define SHIFTBIND_JSONWRITER_H

#include <stdbool.h>
#include <stddef.h>
#include <yajl/yajl_gen.h>

#include "error.h"

struct json_writer {
	yajl_gen gen;
	yajl_gen_status status;
};

/* Pretty-printed with tab indentation, like `crun spec`; UTF-8 checked. */
int json_writer_init(struct json_writer *w, struct error *e);
void json_writer_free(struct json_writer *w);

void jw_string(struct json_writer *w, const char *s);
void jw_string_len(struct json_writer *w, const char *s, size_t len);
/* A number given as its JSON text, kept exactly as it was written. */
void jw_number(struct json_writer *w, const char *text);
void jw_integer(struct json_writer *w, long long n);
void jw_bool(struct json_writer *w, bool b);
void jw_null(struct json_writer *w);
void jw_map_open(struct json_writer *w);
void jw_map_close(struct json_writer *w);
void jw_array_open(struct json_writer *w);
void jw_array_close(struct json_writer *w);

/* The document (owned by w), or the first failure, naming what. */
int json_writer_finish(struct json_writer *w, const char *what,
		       const unsigned char **buf, size_t *len, struct error *e);

#endif /* SHIFTBIND_JSONWRITER_H */
