// SPDX-License-Identifier: GPL-2.0
/* prepare.c: see prepare.h. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <fcntl.h>
#include <limits.h>
#include <string.h>
#include <sys/stat.h>

#include "common.h"
#include "prepare.h"

/*
 * crun binds /proc, /dev and /sys; podman adds the three /etc files and
 * /run/.containerenv.  Missing parents (etc, run) are created as
 * directories.
 */
static const struct mount_target {
	const char *path;	/* relative to the image root */
	mode_t type;		/* S_IFDIR or S_IFREG */
} targets[] = {
	{ "proc", S_IFDIR },
	{ "dev", S_IFDIR },
	{ "sys", S_IFDIR },
	{ "etc/hosts", S_IFREG },
	{ "etc/resolv.conf", S_IFREG },
	{ "etc/hostname", S_IFREG },
	{ "run/.containerenv", S_IFREG },
};

#define DIR_MODE	0755
#define FILE_MODE	0644

/* What is at name, for a refusal: never followed. */
static int refuse_existing(int dirfd, const char *name, const char *display,
			   const char *wanted, struct error *e)
{
	struct stat st;

	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return error_errno(e, errno, "stat `%s`", display);
	if (S_ISLNK(st.st_mode))
		return error_msg(e, ELOOP,
				 "`%s` is a symbolic link: refusing to follow it (it could lead out of the image); replace it with a %s",
				 display, wanted);
	return error_msg(e, EEXIST, "`%s` exists and is not a %s", display, wanted);
}

/* Set owner and mode on the fd just created, not again by name. */
static int own(int fd, mode_t mode, const char *display, struct error *e)
{
	if (fchown(fd, 0, 0) < 0)
		return error_errno(e, errno, "chown `%s` to 0:0", display);
	if (fchmod(fd, mode) < 0)	/* the umask must not decide */
		return error_errno(e, errno, "chmod `%s`", display);
	return 0;
}

/* The directory name under dirfd, created if missing: a new fd in *out. */
static int ensure_dir(int dirfd, const char *name, const char *display,
		      FILE *report, int *out, struct error *e)
{
	const int flags = O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC;
	_cleanup_close_ int fd = openat(dirfd, name, flags);
	int ret;

	if (fd >= 0) {
		*out = steal_fd(&fd);
		return 0;
	}
	if (errno == ELOOP || errno == ENOTDIR)
		return refuse_existing(dirfd, name, display, "directory", e);
	if (errno != ENOENT)
		return error_errno(e, errno, "open `%s`", display);
	if (mkdirat(dirfd, name, DIR_MODE) < 0)
		return error_errno(e, errno, "mkdir `%s`", display);
	fd = openat(dirfd, name, flags);
	if (fd < 0)
		return error_errno(e, errno, "open `%s`", display);
	ret = own(fd, DIR_MODE, display, e);
	if (ret < 0)
		return ret;
	fprintf(report, "created %s/\n", display);
	*out = steal_fd(&fd);
	return 0;
}

/* O_EXCL never follows a symlink, even a dangling one. */
static int ensure_file(int dirfd, const char *name, const char *display,
		       FILE *report, struct error *e)
{
	_cleanup_close_ int fd = openat(dirfd, name, O_WRONLY | O_CREAT | O_EXCL |
					O_NOFOLLOW | O_CLOEXEC | O_NOCTTY,
					FILE_MODE);
	struct stat st;
	int ret;

	if (fd < 0 && errno == EEXIST) {
		if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
		    S_ISREG(st.st_mode))
			return 0;
		return refuse_existing(dirfd, name, display, "regular file", e);
	}
	if (fd < 0)
		return error_errno(e, errno, "create `%s`", display);
	ret = own(fd, FILE_MODE, display, e);
	if (ret < 0)
		return ret;
	fprintf(report, "created %s\n", display);
	return 0;
}

/* Walk t->path one component at a time from the image root rootfd. */
static int ensure_target(int rootfd, const char *dir,
			 const struct mount_target *t, FILE *report,
			 struct error *e)
{
	char path[64], display[PATH_MAX + 64];	/* display: for messages */
	_cleanup_close_ int parent = -1;
	char *name, *slash;
	int ret, fd;

	if (strlen(t->path) >= sizeof(path))	/* the table's own paths */
		return error_msg(e, ENAMETOOLONG, "%s: target name too long", t->path);
	memcpy(path, t->path, strlen(t->path) + 1);
	parent = dup(rootfd);
	if (parent < 0)
		return error_errno(e, errno, "dup");
	for (name = path; (slash = strchr(name, '/')); name = slash + 1) {
		*slash = '\0';
		snprintf(display, sizeof(display), "%s/%s", dir, path);
		ret = ensure_dir(parent, name, display, report, &fd, e);
		if (ret < 0)
			return ret;
		closep(&parent);
		parent = fd;
		*slash = '/';
	}
	snprintf(display, sizeof(display), "%s/%s", dir, t->path);
	if (t->type == S_IFDIR) {
		ret = ensure_dir(parent, name, display, report, &fd, e);
		if (ret == 0)
			close(fd);
		return ret;
	}
	return ensure_file(parent, name, display, report, e);
}

int prepare_image(const char *dir, FILE *report, struct error *e)
{
	_cleanup_close_ int rootfd = -1;
	size_t i;
	int ret;

	if (geteuid() != 0)
		return error_msg(e, EPERM,
				 "prepare-image must run as real root: the targets must be owned by 0:0");
	/* dir is the administrator's argument: it may itself be a symlink. */
	rootfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (rootfd < 0)
		return error_errno(e, errno, "open image `%s`", dir);
	for (i = 0; i < ARRAY_SIZE(targets); i++) {
		ret = ensure_target(rootfd, dir, &targets[i], report, e);
		if (ret < 0)
			return ret;
	}
	return 0;
}
