/* SPDX-License-Identifier: GPL-2.0 */
/*
 * annotations.h: the hook's options, set per container through OCI
 * annotations in the org.shiftbind. namespace:
 *
 *   org.shiftbind.shift         "true" (default) or "false": opt out
 *   org.shiftbind.extra-mounts  "/dst1,/dst2": bind mounts of the
 *                               container (destinations inside it) to
 *                               shift as well as the rootfs
 *
 * Any other org.shiftbind.* key is refused, so that a typo in an opt-out
 * does not go unnoticed.
 */
#ifndef SHIFTBIND_ANNOTATIONS_H
#define SHIFTBIND_ANNOTATIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <yajl/yajl_tree.h>

#include "error.h"

#define ANNOTATION_PREFIX	"org.shiftbind."
#define ANNOTATION_SHIFT	ANNOTATION_PREFIX "shift"
#define ANNOTATION_EXTRA_MOUNTS	ANNOTATION_PREFIX "extra-mounts"

/* More would be a configuration mistake, and each costs a reconfigure. */
#define EXTRA_MOUNTS_MAX 32

struct hook_options {
	bool opt_out;		/* org.shiftbind.shift=false */
	char **extra_mounts;	/* absolute destinations, NULL-terminated */
	size_t extra_count;
};

/*
 * annotations_parse: read the annotations object (every value must be a
 * string) into opts.  what names it in messages.  The object is read
 * whole, so a key it has twice is refused, whoever the key belongs to
 * ("<what>: duplicate key \"<key>\""): the hook and the runtime could
 * otherwise see different values of org.shiftbind.shift.
 */
int annotations_parse(yajl_val annotations, const char *what,
		      struct hook_options *opts, struct error *e);

void hook_options_free(struct hook_options *opts);

/*
 * annotation_check_destination: dst[len] is a destination an extra
 * mount may have: absolute and plain (no empty, "." or ".." component,
 * not "/" itself), shorter than PATH_MAX.  key names it in messages.
 */
int annotation_check_destination(const char *key, const char *dst, size_t len,
				 struct error *e);

#endif /* SHIFTBIND_ANNOTATIONS_H */
