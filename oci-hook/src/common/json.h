/* SPDX-License-Identifier: GPL-2.0 */
/*
 * json.h: strict parsing of untrusted JSON with yajl's tree API, and
 * typed access to its members.
 *
 * On top of yajl, json_parse() refuses what would let two readers of the
 * same document disagree or would exhaust the stack: NUL bytes (raw or
 * escaped), comments, invalid UTF-8 and nesting deeper than
 * JSON_MAX_DEPTH.
 *
 * Duplicate keys are the other such thing: yajl_tree_get() finds the
 * first, Go's encoding/json (runc, podman, CRI-O) keeps the last.  Who
 * refuses them depends on what the caller does with the document:
 *
 *  - A reader (the hook) refuses a duplicate of a key it reads, in an
 *    object it reads, and nothing else: the typed getters below refuse
 *    a key that occurs twice in the object they look it up in, and
 *    json_check_keys() checks an object read whole.  A duplicate in a
 *    member the reader never looks at cannot make it disagree with
 *    anyone, and refusing it would refuse containers that are none of
 *    the reader's business.
 *  - A writer (patch-config) rewrites the whole document, so every
 *    object of it matters: json_parse(..., JSON_DUPLICATES_ANYWHERE, ...).
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

/* Where json_parse refuses a duplicate key (see above). */
enum json_duplicates {
	/* None at parse time: the getters refuse those they look up. */
	JSON_DUPLICATES_WHEN_READ,
	/* In any object of the tree: for a document written back whole. */
	JSON_DUPLICATES_ANYWHERE,
};

/*
 * json_parse: parse text (len bytes, text[len] == '\0') that must be a
 * JSON object.  what names the document in messages ("state",
 * "config.json"); a duplicate key refused with JSON_DUPLICATES_ANYWHERE
 * is "<what>: duplicate key \"<key>\"".
 */
int json_parse(const char *what, const char *text, size_t len,
	       enum json_duplicates duplicates, yajl_val *out, struct error *e);

/*
 * json_check_keys: refuse a key that occurs twice in obj (an object),
 * "<what>: duplicate key \"<key>\"".  For an object read whole, such as
 * the annotations: n log n, whatever its size.  Not recursive.
 */
int json_check_keys(yajl_val obj, const char *what, struct error *e);

/* utf8_valid: s is UTF-8 as RFC 3629 has it (what json_parse requires). */
bool utf8_valid(const char *s);

/*
 * json_member: obj's member key (the first, if it occurs twice), or NULL
 * when absent or JSON null.  No duplicate check: for documents parsed
 * with JSON_DUPLICATES_ANYWHERE; a reader uses the getters below.
 */
yajl_val json_member(yajl_val obj, const char *key);

/* "a string", "an integer", ... for messages. */
const char *json_type_name(yajl_val v);

/*
 * Typed getters.  what is the object's place for messages
 * ("config.json: root"); a missing required member and a member of the
 * wrong type are errors naming "what.key".  The optional forms leave
 * the default (NULL, dflt) when the member is absent or null.
 *
 * Each refuses a key that occurs twice in obj, whatever the two values
 * (null included): "<what>: duplicate key \"<key>\"".  One pass over
 * obj's keys per call: a caller looks a key up a bounded number of times
 * per object (an object read whole goes through json_check_keys).
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

/*
 * The places named in messages, made without printf(3): the parser
 * child names every array element and mapping it reads, and printf's
 * code would be translated afresh at each container start under QEMU's
 * TCG for names only an error prints (docs/benchmarks.md).  Both cut
 * to size, as snprintf would.
 *
 * json_name_join: "AB" ("config.json: linux." and "uidMappings").
 * json_name_index: "PLACE[INDEX]" ("config.json: linux.namespaces[2]").
 */
void json_name_join(char *buf, size_t size, const char *a, const char *b);
void json_name_index(char *buf, size_t size, const char *place, size_t index);

#endif /* SHIFTBIND_JSON_H */
