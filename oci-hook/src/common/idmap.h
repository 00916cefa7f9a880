/* SPDX-License-Identifier: GPL-2.0 */
/*
 * idmap.h: user namespace id mappings, as config.json states them
 * (linux.uidMappings) and as /proc/<pid>/uid_map shows them.
 */
#ifndef SHIFTBIND_IDMAP_H
#define SHIFTBIND_IDMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <yajl/yajl_tree.h>

#include "error.h"

/* The kernel's UID_GID_MAP_MAX_EXTENTS. */
#define IDMAP_MAX_EXTENTS 340

struct idmap_extent {
	uint32_t container;	/* first id inside the namespace */
	uint32_t host;		/* first id in the parent namespace */
	uint32_t size;
};

struct idmap {
	struct idmap_extent *extent;
	size_t count;
};

void idmap_free(struct idmap *map);

/*
 * idmap_from_json: read an OCI mapping array (objects with containerID,
 * hostID and size) into map.  what names it in messages
 * ("config.json: linux.uidMappings").  Checks types and ranges only; see
 * idmap_validate.
 */
int idmap_from_json(yajl_val array, const char *what, struct idmap *map,
		    struct error *e);

/*
 * idmap_validate: the rules of the kernel's map_write() (no zero size,
 * no u32 overflow, no overlap on either side, at most 340 extents) and
 * ours: id 0 is mapped, and the mapping is not the identity, which would
 * leave nothing to shift.
 */
int idmap_validate(const struct idmap *map, const char *what,
		   struct error *e);

/* idmap_parse_proc: the text of a /proc/<pid>/uid_map or gid_map file. */
int idmap_parse_proc(const char *text, const char *what, struct idmap *map,
		     struct error *e);

/*
 * idmap_same: the same extents, in any order (the kernel shows more than
 * five sorted).  Both must be free of overlaps.
 */
bool idmap_same(const struct idmap *a, const struct idmap *b);

/*
 * idmap_format: "0 100000 65536, 65536 0 1" into buf, cut with "..."
 * when it does not fit.
 */
void idmap_format(const struct idmap *map, char *buf, size_t size);

#endif /* SHIFTBIND_IDMAP_H */
