// SPDX-License-Identifier: GPL-2.0
/* annotations.c: see annotations.h. */
#include <limits.h>
#include <string.h>

#include "annotations.h"
#include "common.h"
#include "json.h"

void hook_options_free(struct hook_options *opts)
{
	size_t i;

	for (i = 0; i < opts->extra_count; i++)
		free(opts->extra_mounts[i]);
	free(opts->extra_mounts);
	opts->extra_mounts = NULL;
	opts->extra_count = 0;
}

static int parse_shift(const char *key, const char *value,
		       struct hook_options *opts, struct error *e)
{
	if (!strcmp(value, "true"))
		opts->opt_out = false;
	else if (!strcmp(value, "false"))
		opts->opt_out = true;
	else
		return error_msg(e, EINVAL,
				 "%s: expected \"true\" or \"false\", got \"%.64s\"",
				 key, value);
	return 0;
}

/*
 * A destination is resolved inside the container's rootfs, so it has to
 * be absolute and plain: no ".", "..", empty component or the root
 * itself (the rootfs is shifted anyway).
 */
int annotation_check_destination(const char *key, const char *dst, size_t len,
				 struct error *e)
{
	const char *p = dst, *end = dst + len;

	if (len == 0)
		return error_msg(e, EINVAL, "%s: empty destination", key);
	if (len >= PATH_MAX)
		return error_msg(e, ENAMETOOLONG, "%s: destination too long", key);
	if (dst[0] != '/')
		return error_msg(e, EINVAL,
				 "%s: destination \"%.*s\" is not absolute",
				 key, (int)len, dst);
	while (p < end) {
		const char *slash = memchr(p + 1, '/', (size_t)(end - p - 1));
		const char *next = slash ? slash : end;
		size_t n = (size_t)(next - p - 1);

		if (n == 0 || (n == 1 && p[1] == '.') ||
		    (n == 2 && p[1] == '.' && p[2] == '.'))
			return error_msg(e, EINVAL,
					 "%s: destination \"%.*s\" must be a plain absolute path (no empty, \".\" or \"..\" component)",
					 key, (int)len, dst);
		p = next;
	}
	return 0;
}

static bool already_listed(const struct hook_options *opts, const char *dst,
			   size_t len)
{
	size_t i;

	for (i = 0; i < opts->extra_count; i++)
		if (strlen(opts->extra_mounts[i]) == len &&
		    !memcmp(opts->extra_mounts[i], dst, len))
			return true;
	return false;
}

static int add_destination(const char *key, const char *dst, size_t len,
			   struct hook_options *opts, struct error *e)
{
	int ret = annotation_check_destination(key, dst, len, e);

	if (ret < 0)
		return ret;
	if (already_listed(opts, dst, len))
		return error_msg(e, EINVAL, "%s: \"%.*s\" listed twice", key,
				 (int)len, dst);
	if (opts->extra_count == EXTRA_MOUNTS_MAX)
		return error_msg(e, EINVAL, "%s: more than %d destinations", key,
				 EXTRA_MOUNTS_MAX);
	opts->extra_mounts[opts->extra_count] = strndup(dst, len);
	if (!opts->extra_mounts[opts->extra_count])
		return error_errno(e, ENOMEM, "%s", key);
	opts->extra_count++;
	return 0;
}

/* "" means none, as an unset annotation does. */
static int parse_extra_mounts(const char *key, const char *value,
			      struct hook_options *opts, struct error *e)
{
	const char *p = value;
	int ret;

	hook_options_free(opts);
	opts->extra_mounts = calloc(EXTRA_MOUNTS_MAX + 1,
				    sizeof(*opts->extra_mounts));
	if (!opts->extra_mounts)
		return error_errno(e, ENOMEM, "%s", key);
	if (*value == '\0')
		return 0;
	for (;;) {
		size_t len = strcspn(p, ",");

		ret = add_destination(key, p, len, opts, e);
		if (ret < 0)
			return ret;
		if (p[len] == '\0')
			return 0;
		p += len + 1;
	}
}

static const struct annotation_handler {
	const char *key;
	int (*parse)(const char *key, const char *value,
		     struct hook_options *opts, struct error *e);
} handlers[] = {
	{ ANNOTATION_SHIFT, parse_shift },
	{ ANNOTATION_EXTRA_MOUNTS, parse_extra_mounts },
};

static int parse_one(const char *key, const char *value,
		     struct hook_options *opts, struct error *e)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(handlers); i++)
		if (!strcmp(key, handlers[i].key))
			return handlers[i].parse(key, value, opts, e);
	if (!strncmp(key, ANNOTATION_PREFIX, strlen(ANNOTATION_PREFIX)))
		return error_msg(e, EINVAL,
				 "unknown annotation %.128s (known: " ANNOTATION_SHIFT ", " ANNOTATION_EXTRA_MOUNTS ")",
				 key);
	return 0;	/* someone else's */
}

int annotations_parse(yajl_val annotations, const char *what,
		      struct hook_options *opts, struct error *e)
{
	size_t i;
	int ret;

	/* Read whole: any key given twice, ours or not, sorted out at once. */
	ret = json_check_keys(annotations, what, e);
	if (ret < 0)
		return ret;
	for (i = 0; i < annotations->u.object.len; i++) {
		const char *key = annotations->u.object.keys[i];
		yajl_val v = annotations->u.object.values[i];

		if (!YAJL_IS_STRING(v))
			return error_msg(e, EINVAL,
					 "%s[\"%.128s\"]: expected a string, got %s",
					 what, key, json_type_name(v));
		ret = parse_one(key, YAJL_GET_STRING(v), opts, e);
		if (ret < 0)
			return error_context(e, "%s", what);
	}
	return 0;
}
