/* SPDX-License-Identifier: GPL-2.0 */
/*
 * json.h: strict parsing of untrusted JSON with yajl's tree API, and
 * typed access to its members.
 *
 * On top of yajl, json_parse() refuses what would let two readers of the
 * same document disagree or would exhaust the stack: NUL bytes (raw or
 * escaped), duplicate keys, and nesting deeper than JSON_MAX_DEPTH.
 */
#ifndef SHIFTBIND_JSON_H
#define SHIFTBIND_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <yajl/yajl_tree.h>

#include "error.h"

/* OCI documents nest about 6 deep; yajl_tree_free() recurses. */
#define JSON_MAX_DEPTH 64

static inline void yajl_tree_freep(yajl_val *v)
{
	yajl_tree_free(*v);	/* NULL-safe */
}
#define _cleanup_json_ __attribute__((cleanup(yajl_tree_freep)))

/*
 * json_parse: parse text (len bytes, text[len] == '\0') that must be a
 * JSON object.  what names the document in messages ("state",
 * "config.json").
 */
int json_parse(const char *what, const char *text, size_t len, yajl_val *out,
	       struct error *e);

/* utf8_valid: s is UTF-8 as RFC 3629 has it (what json_parse requires). */
bool utf8_valid(const char *s);

/* json_member: obj's member key, or NULL when absent or JSON null. */
yajl_val json_member(yajl_val obj, const char *key);

/* "a string", "an integer", ... for messages. */
const char *json_type_name(yajl_val v);

/*
 * Typed getters.  what is the object's place for messages
 * ("config.json: root"); a missing required member and a member of the
 * wrong type are errors naming "what.key".  The optional forms leave
 * the default (NULL, dflt) when the member is absent or null.
 */
int json_get_string(yajl_val obj, const char *what, const char *key,
		    const char **out, struct error *e);
int json_opt_string(yajl_val obj, const char *what, const char *key,
		    const char **out, struct error *e);
int json_opt_bool(yajl_val obj, const char *what, const char *key, bool dflt,
		  bool *out, struct error *e);
int json_get_integer(yajl_val obj, const char *what, const char *key,
		     long long min, long long max, long long *out,
		     struct error *e);
int json_opt_object(yajl_val obj, const char *what, const char *key,
		    yajl_val *out, struct error *e);
int json_get_array(yajl_val obj, const char *what, const char *key,
		   yajl_val *out, struct error *e);
int json_opt_array(yajl_val obj, const char *what, const char *key,
		   yajl_val *out, struct error *e);

#endif /* SHIFTBIND_JSON_H */
