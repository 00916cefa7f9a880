/* SPDX-License-Identifier: GPL-2.0 */
/*
 * treewalk.h: a root-run walk of a tree that users may change while it
 * runs.  Every entry is reached from its parent's fd by open_resolved()
 * in SCOPE_SAME_MOUNT (no symbolic link, no other mount, nothing above
 * the root), and given to the callback as an fd, so that what is
 * changed is what was looked at, never a path resolved again.  Iterative, with one fd per level:
 * depth is bounded by TREEWALK_DEPTH_MAX, below which a directory is
 * skipped and reported, not a failure.  An entry that vanished, moved or
 * changed type between its listing and its opening is skipped and
 * reported too; symbolic links are never followed, nor reported.
 */
#ifndef SHIFTBIND_TREEWALK_H
#define SHIFTBIND_TREEWALK_H

#include <stdio.h>
#include <sys/stat.h>

#include "error.h"

#define TREEWALK_DEPTH_MAX	128

struct walk_entry {
	int fd;			/* O_RDONLY: a directory or a regular file */
	const struct stat *st;
	const char *path;	/* for messages: the walk's root, then names */
	unsigned int depth;	/* 0: the root */
};

/* A callback's answer besides 0 (go on) and -errno (stop, e set). */
#define WALK_SKIP_CONTENTS	1

typedef int (*walk_fn)(const struct walk_entry *ent, void *arg,
		       struct error *e);

struct walk_stats {
	unsigned int skipped;	/* entries skipped, each reported */
};

/*
 * treewalk: fn on the directory sub (relative, below rootfd) and every
 * directory and regular file below it, parents first.  A skipped entry
 * is reported on report as "skipped PATH: WHY".  0, or fn's -errno.
 */
int treewalk(int rootfd, const char *sub, const char *display, walk_fn fn,
	     void *arg, struct walk_stats *stats, FILE *report, struct error *e);

#endif /* SHIFTBIND_TREEWALK_H */
