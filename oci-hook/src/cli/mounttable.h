/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mounttable.h: the caller's mount table (/proc/self/mountinfo) as an
 * array, and where a directory lies in its filesystem: the questions of
 * `shiftbind allow` about the mounts that reach a store (hostpaths.h)
 * and what a store is a bind of (systemdirs.h).
 */
#ifndef SHIFTBIND_MOUNTTABLE_H
#define SHIFTBIND_MOUNTTABLE_H

#include <stdbool.h>
#include <stddef.h>

#include "error.h"
#include "mountinfo.h"

struct mount_table {
	char *text;			/* mountinfo, cut in place */
	struct mount_entry *entry;
	size_t count;
};

/* mount_table_read: the caller's mount table, freed by mount_table_free. */
int mount_table_read(struct mount_table *t, struct error *e);
void mount_table_free(struct mount_table *t);

/* mount_table_find: the mount with this id, or NULL. */
const struct mount_entry *mount_table_find(const struct mount_table *t, int id);

/*
 * path_below: the absolute path is dir or below it (whole components):
 * the rest, "" or starting with '/', in *rest.  Both without "." or ".."
 * (mountinfo's paths, a canonical path).
 */
bool path_below(const char *path, const char *dir, const char **rest);

/* path_join: dir and a rest from path_below, into out. */
void path_join(char *out, size_t size, const char *dir, const char *rest);

/*
 * mount_table_locate: where the directory fd, reached by the canonical
 * path canon (no link, "." or ".."), lies: *mount is the mount it is on
 * (its dev, the filesystem), fs_path its path from that filesystem's
 * root, as mountinfo's root field gives it.  A bind mount of /usr/share
 * elsewhere is then at /usr/share of the root filesystem, whatever its
 * mount point.
 */
int mount_table_locate(const struct mount_table *t, int fd, const char *canon,
		       const struct mount_entry **mount, char *fs_path,
		       size_t size, struct error *e);

#endif /* SHIFTBIND_MOUNTTABLE_H */
