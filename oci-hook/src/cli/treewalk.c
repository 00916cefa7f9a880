// SPDX-License-Identifier: GPL-2.0
/* treewalk.c: see treewalk.h. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common.h"
#include "fileio.h"
#include "treewalk.h"

struct level {
	DIR *dir;
	char *path;
};

struct walk {
	struct level stack[TREEWALK_DEPTH_MAX + 1];
	unsigned int depth;	/* levels on the stack */
	walk_fn fn;
	void *arg;
	struct walk_stats *stats;
	FILE *report;
};

static void skip(struct walk *w, const char *path, const char *why)
{
	w->stats->skipped++;
	fprintf(w->report, "skipped %s: %s\n", path, why);
}

/* Hand the directory fd to fn, then keep it as the next level. */
static int enter_dir(struct walk *w, int fd, const struct stat *st,
		     char *path, struct error *e)
{
	struct walk_entry ent = { fd, st, path, w->depth };
	int ret = w->fn(&ent, w->arg, e);
	DIR *dir;

	if (ret != 0) {
		close(fd);
		free(path);
		return ret == WALK_SKIP_CONTENTS ? 0 : ret;
	}
	dir = fdopendir(fd);
	if (!dir) {
		ret = error_errno(e, errno, "read directory `%s`", path);
		close(fd);
		free(path);
		return ret;
	}
	w->stack[w->depth++] = (struct level){ dir, path };
	return 0;
}

/*
 * A regular file: opened again for reading (O_PATH fds take no fchmod
 * nor fsetxattr) and kept only if it is still the file that was looked
 * at, so that a swap in between is seen.
 */
static int visit_file(struct walk *w, int parent, const char *name,
		      const struct stat *st, const char *path, struct error *e)
{
	_cleanup_close_ int fd = open_resolved(parent, name,
					       O_RDONLY | O_NONBLOCK | O_NOCTTY,
					       SCOPE_SAME_MOUNT);
	struct walk_entry ent = { fd, st, path, w->depth };
	struct stat now;
	int ret;

	if (fd < 0 || fstat(fd, &now) < 0 || now.st_ino != st->st_ino ||
	    now.st_dev != st->st_dev) {
		skip(w, path, "replaced while it was being looked at");
		return 0;
	}
	ret = w->fn(&ent, w->arg, e);
	return ret < 0 ? ret : 0;
}

/* A directory, from the O_PATH fd it was looked at through. */
static int visit_dir(struct walk *w, int pathfd, const struct stat *st,
		     char **path, struct error *e)
{
	int fd;

	if (w->depth > TREEWALK_DEPTH_MAX) {
		skip(w, *path, "deeper than the walk goes; its contents are left as they are");
		return 0;
	}
	/* Its ".": the directory that was looked at, whatever its name now. */
	fd = openat(pathfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return error_errno(e, errno, "open directory `%s`", *path);
	return enter_dir(w, fd, st, steal_pointer(path), e);
}

/* One entry of the directory on top of the stack. */
static int visit(struct walk *w, const char *name, struct error *e)
{
	struct level *top = &w->stack[w->depth - 1];
	int parent = dirfd(top->dir), ret = 0;
	_cleanup_free_ char *path = NULL;
	_cleanup_close_ int fd = -1;
	struct stat st;

	if (asprintf(&path, "%s/%s", top->path, name) < 0)
		return error_errno(e, ENOMEM, "walk `%s`", top->path);
	fd = open_resolved(parent, name, O_PATH, SCOPE_SAME_MOUNT);
	if (fd < 0) {
		skip(w, path, fd == -EXDEV ? "another mount, not walked" :
			      "moved or removed while the walk ran");
		return 0;
	}
	if (fstat(fd, &st) < 0)
		return error_errno(e, errno, "stat `%s`", path);
	/* Links, devices, fifos and sockets are left alone. */
	if (S_ISREG(st.st_mode))
		ret = visit_file(w, parent, name, &st, path, e);
	else if (S_ISDIR(st.st_mode))
		ret = visit_dir(w, fd, &st, &path, e);
	return ret;
}

/* The directory on top of the stack is done: back to its parent. */
static void leave_dir(struct walk *w)
{
	struct level *top = &w->stack[--w->depth];

	closedir(top->dir);
	free(top->path);
}

int treewalk(int rootfd, const char *sub, const char *display, walk_fn fn,
	     void *arg, struct walk_stats *stats, FILE *report, struct error *e)
{
	struct walk *w = calloc(1, sizeof(*w));
	struct dirent *de;
	struct stat st;
	char *path;
	int fd, ret;

	if (!w)
		return error_errno(e, ENOMEM, "walk `%s`", display);
	*w = (struct walk){ .fn = fn, .arg = arg, .stats = stats, .report = report };
	fd = open_resolved(rootfd, sub, O_RDONLY | O_DIRECTORY, SCOPE_SAME_MOUNT);
	if (fd < 0) {
		free(w);
		return error_errno(e, -fd, "open `%s` below the store", display);
	}
	path = strdup(display);
	if (!path || fstat(fd, &st) < 0) {
		ret = error_errno(e, path ? errno : ENOMEM, "walk `%s`", display);
		free(path);
		close(fd);
		free(w);
		return ret;
	}
	ret = enter_dir(w, fd, &st, path, e);
	while (ret == 0 && w->depth > 0) {
		errno = 0;
		de = readdir(w->stack[w->depth - 1].dir);
		if (!de && errno) {
			ret = error_errno(e, errno, "read directory `%s`",
					  w->stack[w->depth - 1].path);
		} else if (!de) {
			leave_dir(w);
		} else if (strcmp(de->d_name, ".") && strcmp(de->d_name, "..")) {
			ret = visit(w, de->d_name, e);
		}
	}
	while (w->depth > 0)	/* an error left directories open */
		leave_dir(w);
	free(w);
	return ret;
}
