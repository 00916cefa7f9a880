// SPDX-License-Identifier: GPL-2.0
/* idmap.c: see idmap.h. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "idmap.h"
#include "json.h"

void idmap_free(struct idmap *map)
{
	free(map->extent);
	map->extent = NULL;
	map->count = 0;
}

static int extent_from_json(yajl_val obj, const char *what, size_t index,
			    struct idmap_extent *out, struct error *e)
{
	const struct {
		const char *key;
		uint32_t *field;
	} fields[] = {
		{ "containerID", &out->container },
		{ "hostID", &out->host },
		{ "size", &out->size },
	};
	char where[256];
	size_t i;
	int ret;

	json_name_index(where, sizeof(where), what, index);
	if (!YAJL_IS_OBJECT(obj))
		return error_msg(e, EINVAL, "%s: expected an object, got %s",
				 where, json_type_name(obj));
	for (i = 0; i < ARRAY_SIZE(fields); i++) {
		long long v;

		ret = json_get_integer(obj, where, fields[i].key, 0, UINT32_MAX,
				       &v, e);
		if (ret < 0)
			return ret;
		*fields[i].field = (uint32_t)v;
	}
	return 0;
}

static int check_extent_count(size_t n, const char *what, struct error *e)
{
	if (n > IDMAP_MAX_EXTENTS)
		return error_msg(e, EINVAL,
				 "%s: %zu extents, the kernel allows at most %d",
				 what, n, IDMAP_MAX_EXTENTS);
	return 0;
}

int idmap_from_json(yajl_val array, const char *what, struct idmap *map,
		    struct error *e)
{
	size_t i, n = array->u.array.len;
	int ret;

	/* Checked before allocating: the array's length is the author's. */
	ret = check_extent_count(n, what, e);
	if (ret < 0)
		return ret;
	map->count = 0;
	map->extent = calloc(n ? n : 1, sizeof(*map->extent));
	if (!map->extent)
		return error_errno(e, ENOMEM, "%s", what);
	for (i = 0; i < n; i++) {
		ret = extent_from_json(array->u.array.values[i], what, i,
				       &map->extent[i], e);
		if (ret < 0) {
			idmap_free(map);
			return ret;
		}
		map->count++;
	}
	return 0;
}

/* Which side of the mapping a check looks at. */
enum idmap_side { SIDE_CONTAINER, SIDE_HOST };

static const char *const side_names[] = {
	[SIDE_CONTAINER] = "container",
	[SIDE_HOST] = "host",
};

static uint32_t first_id(const struct idmap_extent *x, enum idmap_side side)
{
	return side == SIDE_CONTAINER ? x->container : x->host;
}

/* qsort has no context argument: the side is passed through this. */
struct sort_item {
	const struct idmap_extent *x;
	size_t index;
	enum idmap_side side;
};

static int compare_items(const void *a, const void *b)
{
	const struct sort_item *p = a, *q = b;
	uint32_t u = first_id(p->x, p->side), v = first_id(q->x, q->side);

	return u < v ? -1 : u > v;
}

/* Sorted by first id, overlapping ranges are neighbours. */
static int check_overlap(const struct idmap *map, const char *what,
			 enum idmap_side side, struct error *e)
{
	_cleanup_free_ struct sort_item *items = NULL;
	size_t i;

	if (map->count < 2)
		return 0;
	items = calloc(map->count, sizeof(*items));
	if (!items)
		return error_errno(e, ENOMEM, "%s", what);
	for (i = 0; i < map->count; i++)
		items[i] = (struct sort_item){ &map->extent[i], i, side };
	qsort(items, map->count, sizeof(*items), compare_items);
	for (i = 1; i < map->count; i++) {
		const struct sort_item *a = &items[i - 1], *b = &items[i];
		uint64_t end = (uint64_t)first_id(a->x, side) + a->x->size;

		if (end > first_id(b->x, side)) {
			size_t lo = a->index < b->index ? a->index : b->index;
			size_t hi = a->index < b->index ? b->index : a->index;

			return error_msg(e, EINVAL,
					 "%s[%zu] overlaps %s[%zu] in %s ids",
					 what, hi, what, lo, side_names[side]);
		}
	}
	return 0;
}

/*
 * map_write() refuses first + count past 2^32 - 1 on either side: the id
 * (u32)-1 is "no id" and can never be mapped.
 */
static int check_extent(const struct idmap_extent *x, const char *what,
			size_t i, struct error *e)
{
	if (x->size == 0)
		return error_msg(e, EINVAL, "%s[%zu].size: must not be 0", what, i);
	if ((uint64_t)x->container + x->size > UINT32_MAX)
		return error_msg(e, ERANGE,
				 "%s[%zu]: containerID %" PRIu32 " + size %" PRIu32 " overflows 32 bits",
				 what, i, x->container, x->size);
	if ((uint64_t)x->host + x->size > UINT32_MAX)
		return error_msg(e, ERANGE,
				 "%s[%zu]: hostID %" PRIu32 " + size %" PRIu32 " overflows 32 bits",
				 what, i, x->host, x->size);
	return 0;
}

static bool maps_id_zero(const struct idmap *map)
{
	size_t i;

	for (i = 0; i < map->count; i++)
		if (map->extent[i].container == 0)
			return true;
	return false;
}

static bool is_identity(const struct idmap *map)
{
	size_t i;

	for (i = 0; i < map->count; i++)
		if (map->extent[i].container != map->extent[i].host)
			return false;
	return true;
}

int idmap_validate(const struct idmap *map, const char *what,
		   struct error *e)
{
	size_t i;
	int ret;

	if (map->count == 0)
		return error_msg(e, EINVAL, "%s: empty", what);
	ret = check_extent_count(map->count, what, e);
	if (ret < 0)
		return ret;
	for (i = 0; i < map->count; i++) {
		ret = check_extent(&map->extent[i], what, i, e);
		if (ret < 0)
			return ret;
	}
	ret = check_overlap(map, what, SIDE_CONTAINER, e);
	if (ret == 0)
		ret = check_overlap(map, what, SIDE_HOST, e);
	if (ret < 0)
		return ret;
	if (!maps_id_zero(map))
		return error_msg(e, EINVAL,
				 "%s: does not map id 0 (the container's root)",
				 what);
	if (is_identity(map))
		return error_msg(e, EINVAL,
				 "%s: is the identity mapping, nothing to shift",
				 what);
	return 0;
}

/* One "first lower count" line, the format of proc_id_map's show. */
static int parse_proc_line(const char *line, const char *what, size_t lineno,
			   struct idmap_extent *x, struct error *e)
{
	uint32_t v[3];
	const char *p = line;
	char *end;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(v); i++) {
		unsigned long long n;

		while (*p == ' ' || *p == '\t')
			p++;
		if (*p < '0' || *p > '9')
			goto bad;
		errno = 0;
		n = strtoull(p, &end, 10);
		if (errno || n > UINT32_MAX)
			goto bad;
		v[i] = (uint32_t)n;
		p = end;
	}
	while (*p == ' ' || *p == '\t')
		p++;
	if (*p != '\0')
		goto bad;
	*x = (struct idmap_extent){ v[0], v[1], v[2] };
	return 0;
bad:
	return error_msg(e, EINVAL, "%s: line %zu: expected three ids, got \"%.64s\"",
			 what, lineno, line);
}

int idmap_parse_proc(const char *text, const char *what, struct idmap *map,
		     struct error *e)
{
	_cleanup_free_ char *copy = strdup(text);
	char *line, *save = NULL;
	size_t lineno = 0;
	int ret;

	if (!copy)
		return error_errno(e, ENOMEM, "%s", what);
	map->count = 0;
	map->extent = calloc(IDMAP_MAX_EXTENTS, sizeof(*map->extent));
	if (!map->extent)
		return error_errno(e, ENOMEM, "%s", what);
	for (line = strtok_r(copy, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		lineno++;
		if (map->count == IDMAP_MAX_EXTENTS) {
			ret = error_msg(e, EINVAL, "%s: more than %d lines", what,
					IDMAP_MAX_EXTENTS);
			goto fail;
		}
		ret = parse_proc_line(line, what, lineno,
				      &map->extent[map->count], e);
		if (ret < 0)
			goto fail;
		map->count++;
	}
	return 0;
fail:
	idmap_free(map);
	return ret;
}

static bool has_extent(const struct idmap *map, const struct idmap_extent *x)
{
	size_t i;

	for (i = 0; i < map->count; i++)
		if (map->extent[i].container == x->container &&
		    map->extent[i].host == x->host &&
		    map->extent[i].size == x->size)
			return true;
	return false;
}

/*
 * Both sides are free of overlaps (config.json's was validated, the
 * kernel's cannot have any), so no extent repeats and equal counts plus
 * inclusion one way is equality.  At most 340 x 340 comparisons.
 */
bool idmap_same(const struct idmap *a, const struct idmap *b)
{
	size_t i;

	if (a->count != b->count)
		return false;
	for (i = 0; i < a->count; i++)
		if (!has_extent(b, &a->extent[i]))
			return false;
	return true;
}

void idmap_format(const struct idmap *map, char *buf, size_t size)
{
	size_t i, len = 0;

	if (size == 0)
		return;
	buf[0] = '\0';
	for (i = 0; i < map->count; i++) {
		const struct idmap_extent *x = &map->extent[i];
		int n = snprintf(buf + len, size - len, "%s%" PRIu32 " %" PRIu32 " %" PRIu32,
				 i ? ", " : "", x->container, x->host, x->size);

		if (n < 0 || (size_t)n >= size - len) {
			if (size >= 4)
				memcpy(buf + size - 4, "...", 4);
			return;
		}
		len += (size_t)n;
	}
}
