// SPDX-License-Identifier: GPL-2.0
/* json.c: see json.h. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "json.h"

/*
 * One pass over the raw text, before yajl sees it: nesting depth (yajl's
 * parser has no limit and yajl_tree_free() recurses), the escape \u0000
 * (the tree hands out C strings, so "a\u0000b" would reach us as "a"
 * while another reader sees more) and comments, which yajl_tree_parse()
 * accepts but JSON does not, and which would hide quotes from this scan.
 * Raw NULs were refused before.
 */
static int check_raw_text(const char *what, const char *text, size_t len,
			  struct error *e)
{
	bool in_string = false;
	size_t i, depth = 0;

	for (i = 0; i < len; i++) {
		char c = text[i];

		if (in_string) {
			if (c == '"') {
				in_string = false;
			} else if (c == '\\' && i + 1 < len) {
				if (text[i + 1] == 'u' && len - i >= 6 &&
				    !memcmp(text + i + 2, "0000", 4))
					return error_msg(e, EINVAL,
							 "%s: string contains an escaped NUL (\\u0000)",
							 what);
				i++;
			}
			continue;
		}
		if (c == '"') {
			in_string = true;
		} else if (c == '/') {
			return error_msg(e, EINVAL, "%s: comments are not JSON",
					 what);
		} else if (c == '{' || c == '[') {
			if (++depth > JSON_MAX_DEPTH)
				return error_msg(e, EINVAL,
						 "%s: nested deeper than %d levels",
						 what, JSON_MAX_DEPTH);
		} else if ((c == '}' || c == ']') && depth > 0) {
			depth--;
		}
	}
	return 0;
}

/*
 * Length of the UTF-8 sequence at @s, or 0 if it is not one RFC 3629
 * allows: no overlong forms (C0 80 for NUL), no UTF-16 surrogates
 * (ED A0 80), nothing above U+10FFFF.  yajl checks only the shape of a
 * sequence, and two readers of one text must not disagree on a name.
 */
static size_t utf8_sequence(const unsigned char *s, size_t avail)
{
	uint32_t cp, min;
	size_t n, i;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf) {
		n = 2, cp = s[0] & 0x1f, min = 0x80;
	} else if ((s[0] & 0xf0) == 0xe0) {
		n = 3, cp = s[0] & 0x0f, min = 0x800;
	} else if (s[0] >= 0xf0 && s[0] <= 0xf4) {
		n = 4, cp = s[0] & 0x07, min = 0x10000;
	} else {
		return 0;
	}
	if (avail < n)
		return 0;
	for (i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (s[i] & 0x3f);
	}
	if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return n;
}

/* Offset of the first byte that is not valid UTF-8, or len if none. */
static size_t utf8_invalid_at(const char *text, size_t len)
{
	const unsigned char *s = (const unsigned char *)text;
	size_t i = 0, n;

	while (i < len) {
		n = utf8_sequence(s + i, len - i);
		if (!n)
			return i;
		i += n;
	}
	return len;
}

bool utf8_valid(const char *s)
{
	size_t len = strlen(s);

	return utf8_invalid_at(s, len) == len;
}

static int check_utf8(const char *what, const char *text, size_t len,
		      struct error *e)
{
	size_t at = utf8_invalid_at(text, len);

	if (at < len)
		return error_msg(e, EINVAL, "%s: not valid UTF-8 at byte %zu (0x%02x)",
				 what, at, (unsigned char)text[at]);
	return 0;
}

static int compare_keys(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Sorted copy, then neighbours: n log n even for a hostile 4 MiB object. */
int json_check_keys(yajl_val obj, const char *what, struct error *e)
{
	size_t i, n = obj->u.object.len;
	_cleanup_free_ const char **keys = NULL;

	if (n < 2)
		return 0;
	keys = malloc(n * sizeof(*keys));
	if (!keys)
		return error_errno(e, ENOMEM, "%s", what);
	memcpy(keys, obj->u.object.keys, n * sizeof(*keys));
	qsort(keys, n, sizeof(*keys), compare_keys);
	for (i = 1; i < n; i++)
		if (!strcmp(keys[i - 1], keys[i]))
			return error_msg(e, EINVAL, "%s: duplicate key \"%s\"",
					 what, keys[i]);
	return 0;
}

/* Recursion is bounded by JSON_MAX_DEPTH, checked on the raw text. */
static int check_duplicates(const char *what, yajl_val v, struct error *e)
{
	size_t i;
	int ret;

	if (YAJL_IS_OBJECT(v)) {
		ret = json_check_keys(v, what, e);
		for (i = 0; ret == 0 && i < v->u.object.len; i++)
			ret = check_duplicates(what, v->u.object.values[i], e);
		return ret;
	}
	if (YAJL_IS_ARRAY(v)) {
		for (i = 0; i < v->u.array.len; i++) {
			ret = check_duplicates(what, v->u.array.values[i], e);
			if (ret < 0)
				return ret;
		}
	}
	return 0;
}

/* yajl's message is several lines with a caret diagram: keep the first. */
static void first_line(char *msg)
{
	msg[strcspn(msg, "\n")] = '\0';
}

int json_parse(const char *what, const char *text, size_t len,
	       enum json_duplicates duplicates, yajl_val *out, struct error *e)
{
	_cleanup_json_ yajl_val tree = NULL;
	char errbuf[512] = "";
	int ret;

	if (len == 0)
		return error_msg(e, EINVAL, "%s: empty input", what);
	if (memchr(text, '\0', len))
		return error_msg(e, EINVAL, "%s: contains a NUL byte", what);
	ret = check_utf8(what, text, len, e);
	if (ret < 0)
		return ret;
	ret = check_raw_text(what, text, len, e);
	if (ret < 0)
		return ret;
	tree = yajl_tree_parse(text, errbuf, sizeof(errbuf));
	if (!tree) {
		first_line(errbuf);
		return error_msg(e, EINVAL, "%s: invalid JSON: %s", what,
				 errbuf[0] ? errbuf : "unknown error");
	}
	if (!YAJL_IS_OBJECT(tree))
		return error_msg(e, EINVAL, "%s: expected a JSON object, got %s",
				 what, json_type_name(tree));
	if (duplicates == JSON_DUPLICATES_ANYWHERE) {
		ret = check_duplicates(what, tree, e);
		if (ret < 0)
			return ret;
	}
	*out = steal_pointer(&tree);
	return 0;
}

yajl_val json_member(yajl_val obj, const char *key)
{
	const char *path[] = { key, NULL };
	yajl_val v = yajl_tree_get(obj, path, yajl_t_any);

	return v && !YAJL_IS_NULL(v) ? v : NULL;
}

const char *json_type_name(yajl_val v)
{
	if (!v || YAJL_IS_NULL(v))
		return "null";
	if (YAJL_IS_STRING(v))
		return "a string";
	if (YAJL_IS_INTEGER(v))
		return "an integer";
	if (YAJL_IS_NUMBER(v))
		return "a number";
	if (YAJL_IS_OBJECT(v))
		return "an object";
	if (YAJL_IS_ARRAY(v))
		return "an array";
	return "a boolean";
}

static const char *expected_name(yajl_type type)
{
	switch (type) {
	case yajl_t_string:
		return "a string";
	case yajl_t_number:
		return "an integer";
	case yajl_t_object:
		return "an object";
	case yajl_t_array:
		return "an array";
	case yajl_t_true:
	case yajl_t_false:
		return "a boolean";
	case yajl_t_null:
	case yajl_t_any:
		break;
	}
	return "a value";
}

/*
 * The member key of obj, NULL when absent or null, in one pass over its
 * keys; a key that occurs twice is refused whatever the two values
 * (first null, then a value: yajl_tree_get() sees the null, Go the value).
 */
static int find_member(yajl_val obj, const char *what, const char *key,
		       yajl_val *out, struct error *e)
{
	yajl_val v = NULL;
	bool found = false;
	size_t i;

	*out = NULL;
	if (!YAJL_IS_OBJECT(obj))
		return 0;
	for (i = 0; i < obj->u.object.len; i++) {
		if (strcmp(obj->u.object.keys[i], key))
			continue;
		if (found)
			return error_msg(e, EINVAL, "%s: duplicate key \"%s\"",
					 what, key);
		found = true;
		v = obj->u.object.values[i];
	}
	if (v && !YAJL_IS_NULL(v))
		*out = v;
	return 0;
}

/*
 * The member key of obj, checked to be of type (booleans: pass
 * yajl_t_true for either value).  *out is NULL when it is absent or null
 * and not required.
 */
static int get_typed(yajl_val obj, const char *what, const char *key,
		     yajl_type type, bool required, yajl_val *out,
		     struct error *e)
{
	yajl_val v;
	int ret = find_member(obj, what, key, &v, e);

	*out = NULL;
	if (ret < 0)
		return ret;
	if (!v) {
		if (required)
			return error_msg(e, EINVAL, "%s.%s: missing", what, key);
		return 0;
	}
	if (type == yajl_t_true) {
		if (!YAJL_IS_TRUE(v) && !YAJL_IS_FALSE(v))
			goto wrong_type;
	} else if (v->type != type) {
		goto wrong_type;
	}
	*out = v;
	return 0;

wrong_type:
	return error_msg(e, EINVAL, "%s.%s: expected %s, got %s", what, key,
			 expected_name(type), json_type_name(v));
}

int json_get_string(yajl_val obj, const char *what, const char *key,
		    const char **out, struct error *e)
{
	yajl_val v;
	int ret = get_typed(obj, what, key, yajl_t_string, true, &v, e);

	if (ret < 0)
		return ret;
	*out = YAJL_GET_STRING(v);
	return 0;
}

int json_opt_string(yajl_val obj, const char *what, const char *key,
		    const char **out, struct error *e)
{
	yajl_val v;
	int ret = get_typed(obj, what, key, yajl_t_string, false, &v, e);

	if (ret < 0)
		return ret;
	*out = v ? YAJL_GET_STRING(v) : NULL;
	return 0;
}

int json_opt_bool(yajl_val obj, const char *what, const char *key, bool dflt,
		  bool *out, struct error *e)
{
	yajl_val v;
	int ret = get_typed(obj, what, key, yajl_t_true, false, &v, e);

	if (ret < 0)
		return ret;
	*out = v ? YAJL_IS_TRUE(v) : dflt;
	return 0;
}

/*
 * YAJL_GET_INTEGER does not check: a number is an integer only with
 * YAJL_IS_INTEGER (no fraction or exponent, fits in long long).
 */
int json_get_integer(yajl_val obj, const char *what, const char *key,
		     long long min, long long max, long long *out,
		     struct error *e)
{
	yajl_val v;
	long long n;
	int ret = get_typed(obj, what, key, yajl_t_number, true, &v, e);

	if (ret < 0)
		return ret;
	if (!YAJL_IS_INTEGER(v))
		return error_msg(e, EINVAL, "%s.%s: expected an integer, got %s",
				 what, key, YAJL_GET_NUMBER(v));
	n = YAJL_GET_INTEGER(v);
	if (n < min || n > max)
		return error_msg(e, ERANGE, "%s.%s: %lld out of range [%lld, %lld]",
				 what, key, n, min, max);
	*out = n;
	return 0;
}

int json_opt_object(yajl_val obj, const char *what, const char *key,
		    yajl_val *out, struct error *e)
{
	return get_typed(obj, what, key, yajl_t_object, false, out, e);
}

int json_get_array(yajl_val obj, const char *what, const char *key,
		   yajl_val *out, struct error *e)
{
	return get_typed(obj, what, key, yajl_t_array, true, out, e);
}

int json_opt_array(yajl_val obj, const char *what, const char *key,
		   yajl_val *out, struct error *e)
{
	return get_typed(obj, what, key, yajl_t_array, false, out, e);
}

/* src into buf[*len...], cut to size (NUL-terminated). */
static void name_append(char *buf, size_t size, size_t *len, const char *src)
{
	size_t n = strlen(src);

	if (*len >= size)
		return;
	if (n > size - 1 - *len)
		n = size - 1 - *len;
	memcpy(buf + *len, src, n);
	*len += n;
	buf[*len] = '\0';
}

void json_name_join(char *buf, size_t size, const char *a, const char *b)
{
	size_t len = 0;

	if (size == 0)
		return;
	buf[0] = '\0';
	name_append(buf, size, &len, a);
	name_append(buf, size, &len, b);
}

void json_name_index(char *buf, size_t size, const char *place, size_t index)
{
	char digits[24], *p = digits + sizeof(digits);
	size_t len = 0;

	*--p = '\0';
	*--p = ']';
	do
		*--p = (char)('0' + index % 10);
	while (index /= 10);
	*--p = '[';
	if (size == 0)
		return;
	buf[0] = '\0';
	name_append(buf, size, &len, place);
	name_append(buf, size, &len, p);
}
