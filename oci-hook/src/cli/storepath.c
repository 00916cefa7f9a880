// SPDX-License-Identifier: GPL-2.0
/* storepath.c: see storepath.h. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "common.h"
#include "fileio.h"
#include "storepath.h"

struct walk {
	const char *target;		/* the store's full path, for messages */
	unsigned int checks;
};

/* " (on the way to `target`)" for an ancestor, "" for the store. */
static const char *on_the_way(const struct walk *w, const char *canon,
			      char *buf, size_t size)
{
	if (!strcmp(canon, w->target))
		return "";
	snprintf(buf, size, " (on the way to `%s`)", w->target);
	return buf;
}

/*
 * Who could swap what the path leads to: the owner of a directory on the
 * way, and anyone it lets write there.  A POSIX ACL that lets a named
 * user or group write shows in the group bits (the ACL mask).  The
 * sticky bit (/tmp) does not help: others still create entries.
 */
static int check_owner(const struct walk *w, const char *canon,
		       const struct stat *st, struct error *e)
{
	char way[PATH_MAX + 32];
	const char *writers;

	if (st->st_uid != 0)
		return error_msg(e, EPERM,
				 "`%s`%s is owned by uid %u, not root: that user could replace the store; make root own it (chown root) or choose a store whose directories are all root's",
				 canon, on_the_way(w, canon, way, sizeof(way)),
				 (unsigned int)st->st_uid);
	if (!(st->st_mode & (S_IWGRP | S_IWOTH)))
		return 0;
	writers = (st->st_mode & S_IWGRP) ? (st->st_mode & S_IWOTH) ?
		  "its group and others" : "its group" : "others";
	return error_msg(e, EPERM,
			 "`%s`%s is writable by %s (mode %04o): they could replace the store; chmod go-w it or choose a store whose directories only root can write",
			 canon, on_the_way(w, canon, way, sizeof(way)), writers,
			 (unsigned int)(st->st_mode & 07777));
}

/* One directory walked, the store or an ancestor: never a link. */
static int check_component(const struct walk *w, int fd, const char *canon,
			   struct stat *st, struct error *e)
{
	if (fstat(fd, st) < 0)
		return error_errno(e, errno, "stat `%s`", canon);
	if (S_ISLNK(st->st_mode))
		return error_msg(e, ELOOP,
				 "`%s` is a symbolic link: the store is resolved without following links, so that what is checked is what is marked; name it by its real path",
				 canon);
	if (!S_ISDIR(st->st_mode))
		return error_msg(e, ENOTDIR, "`%s` is not a directory", canon);
	if (w->checks & STORE_CHECK_OWNERS)
		return check_owner(w, canon, st, e);
	return 0;
}

/* path made absolute against the working directory, into full. */
static int absolute(const char *path, char *full, size_t size, struct error *e)
{
	char cwd[PATH_MAX];
	int n;

	if (path[0] == '/')
		n = snprintf(full, size, "%s", path);
	else if (!getcwd(cwd, sizeof(cwd)))
		return error_errno(e, errno, "resolve `%s`: the working directory", path);
	else
		n = snprintf(full, size, "%s/%s", cwd, path);
	if (n < 0 || (size_t)n >= size)
		return error_msg(e, ENAMETOOLONG, "`%.256s...`: path too long", path);
	return 0;
}

/*
 * The absolute path full without empty and "." components, in place.
 * ".." is refused rather than resolved: taken back by text it could
 * undo a link the walk would refuse, taken back by the kernel it
 * would name a directory the path does not.
 */
static int normalize(char *full, struct error *e)
{
	char *in = full, *out = full;

	while (*in) {
		size_t n = strcspn(in, "/");

		if (n == 2 && !strncmp(in, "..", 2))
			return error_msg(e, EINVAL,
					 "`%s`: \"..\" in the path; name the store without it",
					 full);
		if (n && !(n == 1 && in[0] == '.')) {
			*out++ = '/';
			memmove(out, in, n);
			out += n;
		}
		in += n + (in[n] == '/');
	}
	if (out == full)
		*out++ = '/';
	*out = '\0';
	return 0;
}

/*
 * Step from the directory *fd (canon) into its entry name, the old fd
 * closed, canon extended.  open_resolved() follows no link and opens a
 * trailing one itself (O_PATH), which check_component() then refuses
 * by name: nothing is followed, not even last.
 */
static int step(const struct walk *w, int *fd, const char *name,
		char *canon, size_t size, struct stat *st, struct error *e)
{
	size_t len = strlen(canon);
	int next;

	if (snprintf(canon + len, size - len, "%s%s", len > 1 ? "/" : "", name) >=
	    (int)(size - len))
		return error_msg(e, ENAMETOOLONG, "`%.256s...`: path too long", w->target);
	next = open_resolved(*fd, name, O_PATH, SCOPE_NO_SYMLINKS);
	if (next < 0)
		return error_errno(e, -next, "open `%s`", canon);
	closep(fd);
	*fd = next;
	return check_component(w, *fd, canon, st, e);
}

/* Every component of w->target below "/", in order; st: the last one's. */
static int walk_down(const struct walk *w, int *fd, char *canon, size_t size,
		     struct stat *st, struct error *e)
{
	char components[PATH_MAX], *name, *save = NULL;
	int ret = 0;

	/* strtok_r cuts a copy: the target stays whole for the messages. */
	snprintf(components, sizeof(components), "%s", w->target);
	for (name = strtok_r(components, "/", &save); ret == 0 && name;
	     name = strtok_r(NULL, "/", &save))
		ret = step(w, fd, name, canon, size, st, e);
	return ret;
}

int store_open(const char *path, unsigned int checks, int *out, char *canon,
	       size_t size, struct error *e)
{
	struct walk w = { .target = NULL, .checks = checks };
	_cleanup_close_ int fd = -1;
	char full[PATH_MAX];
	struct stat st;
	int ret;

	ret = absolute(path, full, sizeof(full), e);
	if (ret == 0)
		ret = normalize(full, e);
	if (ret < 0)
		return ret;
	w.target = full;
	snprintf(canon, size, "/");
	fd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return error_errno(e, errno, "open `/`");
	ret = check_component(&w, fd, canon, &st, e);
	if (ret == 0)
		ret = walk_down(&w, &fd, canon, size, &st, e);
	if (ret < 0)
		return ret;
	*out = steal_fd(&fd);
	return 0;
}
