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

/* Checks beyond enum store_checks, for the walks of this file only. */
enum {
	/* With STORE_CHECK_OWNERS: the caller's (real uid) may be too. */
	PATH_OWNER_CALLER = 1 << 1,
	/*
	 * With STORE_CHECK_OWNERS: an ancestor (not the target) with the
	 * sticky bit may be writable by others, as /tmp: they cannot
	 * rename or remove what the next component's owner, checked in
	 * turn, put there.
	 */
	PATH_STICKY_ANCESTORS = 1 << 2,
};

/*
 * What a walk resolves, and how its directories are judged: the words
 * its refusals use.  Each refusal reads "<what is wrong>: <who> could
 * <harm>; <fix>".
 */
struct path_kind {
	const char *noun;	/* "the store" */
	const char *harm;	/* what the owner or writers could do */
	const char *owner_fix;	/* a directory owned by someone else */
	const char *mode_fix;	/* a directory others can write */
	const char *link_why;	/* a symbolic link on the way, or last */
};

static const struct path_kind store_kind = {
	.noun = "the store",
	.harm = "replace the store",
	.owner_fix = "make root own it (chown root) or choose a store whose directories are all root's",
	.mode_fix = "chmod go-w it or choose a store whose directories only root can write",
	.link_why = "the store is resolved without following links, so that what is checked is what is marked; name it by its real path",
};

/*
 * patch-config, run by root on a bundle another user can swap, would
 * rewrite whatever config.json that user points it at.
 */
static const struct path_kind bundle_kind = {
	.noun = "the bundle",
	.harm = "swap the bundle for another directory and choose which config.json is rewritten",
	.owner_fix = "run patch-config as that user, or keep the bundle below directories that only root or you can write",
	.mode_fix = "chmod go-w it (a shared directory such as /tmp needs its sticky bit, chmod +t), or keep the bundle below directories that only root or you can write",
	.link_why = "patch-config follows no link to the bundle, since whoever can change the link would choose which config.json is rewritten; name the bundle by its real path",
};

/* allow.conf says which stores are marked, and for whom. */
static const struct path_kind conf_kind = {
	.noun = "the file",
	.harm = "replace the file and choose which stores are marked and for whom",
	.owner_fix = "make it root's (chown root:root it) or keep the file in a directory only root can write",
	.mode_fix = "chmod go-w it (a shared directory such as /tmp needs its sticky bit, chmod +t), or keep the file in a directory only root can write",
	.link_why = "the file is read through no symbolic link, so that the file checked is the file read; name it by its real path",
};

struct walk {
	const char *target;		/* the full path, for messages */
	const struct path_kind *kind;
	unsigned int checks;		/* enum store_checks, PATH_* */
	uid_t caller;			/* the real uid, for PATH_OWNER_CALLER */
};

/* " (on the way to `target`)" for an ancestor, "" for the target. */
static const char *on_the_way(const struct walk *w, const char *canon,
			      char *buf, size_t size)
{
	if (!strcmp(canon, w->target))
		return "";
	snprintf(buf, size, " (on the way to `%s`)", w->target);
	return buf;
}

static bool trusted_owner(const struct walk *w, uid_t uid)
{
	return uid == 0 ||
	       ((w->checks & PATH_OWNER_CALLER) && uid == w->caller);
}

/*
 * Who could swap what the path leads to: the owner of a directory on the
 * way, and anyone it lets write there.  A POSIX ACL that lets a named
 * user or group write shows in the group bits (the ACL mask).  The
 * sticky bit (/tmp) keeps others from renaming or removing what they do
 * not own, but not from creating entries: an ancestor may have it where
 * the kind allows (the next component's owner is checked in turn), the
 * target itself never.
 */
static int check_owner(const struct walk *w, const char *canon,
		       const struct stat *st, struct error *e)
{
	bool ancestor = strcmp(canon, w->target) != 0;
	char way[PATH_MAX + 32], you[48] = "";
	const char *writers;

	if (!trusted_owner(w, st->st_uid)) {
		if ((w->checks & PATH_OWNER_CALLER) && w->caller != 0)
			snprintf(you, sizeof(you), " or you (uid %u)",
				 (unsigned int)w->caller);
		return error_msg(e, EPERM,
				 "`%s`%s is owned by uid %u, not root%s: that user could %s; %s",
				 canon, on_the_way(w, canon, way, sizeof(way)),
				 (unsigned int)st->st_uid, you, w->kind->harm,
				 w->kind->owner_fix);
	}
	if (!(st->st_mode & (S_IWGRP | S_IWOTH)))
		return 0;
	if (ancestor && (st->st_mode & S_ISVTX) &&
	    (w->checks & PATH_STICKY_ANCESTORS))
		return 0;
	writers = (st->st_mode & S_IWGRP) ? (st->st_mode & S_IWOTH) ?
		  "its group and others" : "its group" : "others";
	return error_msg(e, EPERM,
			 "`%s`%s is writable by %s (mode %04o): they could %s; %s",
			 canon, on_the_way(w, canon, way, sizeof(way)), writers,
			 (unsigned int)(st->st_mode & 07777), w->kind->harm,
			 w->kind->mode_fix);
}

/* One directory walked, the target or an ancestor: never a link. */
static int check_component(const struct walk *w, int fd, const char *canon,
			   struct stat *st, struct error *e)
{
	if (fstat(fd, st) < 0)
		return error_errno(e, errno, "stat `%s`", canon);
	if (S_ISLNK(st->st_mode))
		return error_msg(e, ELOOP, "`%s` is a symbolic link: %s", canon,
				 w->kind->link_why);
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
static int normalize(char *full, const char *noun, struct error *e)
{
	char *in = full, *out = full;

	while (*in) {
		size_t n = strcspn(in, "/");

		if (n == 2 && !strncmp(in, "..", 2))
			return error_msg(e, EINVAL,
					 "`%s`: \"..\" in the path; name %s without it",
					 full, noun);
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

static int absolute_normal(const char *path, const char *noun, char *full,
			   size_t size, struct error *e)
{
	int ret = absolute(path, full, size, e);

	return ret < 0 ? ret : normalize(full, noun, e);
}

int store_path_normalize(const char *path, char *full, size_t size,
			 struct error *e)
{
	return absolute_normal(path, store_kind.noun, full, size, e);
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

/*
 * The directory components of dir below "/", in order, from *fd, the
 * checked "/"; st: the last one's.
 */
static int walk_down(const struct walk *w, const char *dir, int *fd,
		     char *canon, size_t size, struct stat *st, struct error *e)
{
	char components[PATH_MAX], *name, *save = NULL;
	int ret = 0;

	/* strtok_r cuts a copy: the path stays whole for the messages. */
	snprintf(components, sizeof(components), "%s", dir);
	for (name = strtok_r(components, "/", &save); ret == 0 && name;
	     name = strtok_r(NULL, "/", &save))
		ret = step(w, fd, name, canon, size, st, e);
	return ret;
}

/* The directory dir (normalized), walked from "/" as w says. */
static int open_dir(const struct walk *w, const char *dir, int *out,
		    char *canon, size_t size, struct error *e)
{
	_cleanup_close_ int fd = -1;
	struct stat st;
	int ret;

	snprintf(canon, size, "/");
	fd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return error_errno(e, errno, "open `/`");
	ret = check_component(w, fd, canon, &st, e);
	if (ret == 0)
		ret = walk_down(w, dir, &fd, canon, size, &st, e);
	if (ret < 0)
		return ret;
	*out = steal_fd(&fd);
	return 0;
}

static int open_kind(const struct path_kind *kind, unsigned int checks,
		     const char *path, int *out, char *canon, size_t size,
		     struct error *e)
{
	struct walk w = {
		.target = NULL, .kind = kind, .checks = checks, .caller = getuid(),
	};
	char full[PATH_MAX];
	int ret;

	ret = absolute_normal(path, kind->noun, full, sizeof(full), e);
	if (ret < 0)
		return ret;
	w.target = full;
	return open_dir(&w, full, out, canon, size, e);
}

int store_open(const char *path, unsigned int checks, int *out, char *canon,
	       size_t size, struct error *e)
{
	return open_kind(&store_kind, checks, path, out, canon, size, e);
}

int bundle_open(const char *path, int *out, char *canon, size_t size,
		struct error *e)
{
	return open_kind(&bundle_kind,
			 STORE_CHECK_OWNERS | PATH_OWNER_CALLER | PATH_STICKY_ANCESTORS,
			 path, out, canon, size, e);
}

/* The file's own owner and mode, as its directories' (sshd's StrictModes). */
static int check_conf_file(const char *canon, const struct stat *st,
			   struct error *e)
{
	const char *writers;

	if (!S_ISREG(st->st_mode))
		return error_msg(e, EINVAL, "`%s` is not a regular file", canon);
	if (st->st_uid != 0)
		return error_msg(e, EPERM,
				 "`%s` is owned by uid %u, not root: that user could choose which stores are marked and for whom; make it root's and writable by root only: chown root:root %s; chmod 644 %s",
				 canon, (unsigned int)st->st_uid, canon, canon);
	if (!(st->st_mode & (S_IWGRP | S_IWOTH)))
		return 0;
	writers = (st->st_mode & S_IWGRP) ? (st->st_mode & S_IWOTH) ?
		  "its group and others" : "its group" : "others";
	return error_msg(e, EPERM,
			 "`%s` is writable by %s (mode %04o): they could choose which stores are marked and for whom; make it root's and writable by root only: chown root:root %s; chmod 644 %s",
			 canon, writers, (unsigned int)(st->st_mode & 07777),
			 canon, canon);
}

int conf_file_open(const char *path, int *out, char *canon, size_t size,
		   struct error *e)
{
	struct walk w = {
		.target = NULL, .kind = &conf_kind,
		.checks = STORE_CHECK_OWNERS | PATH_STICKY_ANCESTORS, .caller = 0,
	};
	_cleanup_close_ int dirfd = -1, fd = -1;
	char full[PATH_MAX], dir[PATH_MAX];
	const char *name;
	struct stat st;
	int ret;

	ret = absolute_normal(path, conf_kind.noun, full, sizeof(full), e);
	if (ret < 0)
		return ret;
	name = strrchr(full, '/') + 1;
	if (!*name)
		return error_msg(e, EISDIR, "`%s` is a directory, not a file", full);
	snprintf(dir, sizeof(dir), "%.*s", (int)(name - full), full);
	w.target = full;
	ret = open_dir(&w, dir, &dirfd, canon, size, e);
	if (ret < 0)
		return ret;
	snprintf(canon, size, "%s", full);
	/* O_NONBLOCK: a FIFO must not hold the boot's unit forever. */
	fd = open_resolved(dirfd, name, O_RDONLY | O_NOCTTY | O_NONBLOCK,
			   SCOPE_NO_SYMLINKS);
	if (fd == -ELOOP)
		return error_msg(e, ELOOP, "`%s` is a symbolic link: %s", canon,
				 conf_kind.link_why);
	if (fd < 0)
		return error_errno(e, -fd, "open `%s`", canon);
	if (fstat(fd, &st) < 0)
		return error_errno(e, errno, "stat `%s`", canon);
	ret = check_conf_file(canon, &st, e);
	if (ret < 0)
		return ret;
	*out = steal_fd(&fd);
	return 0;
}
