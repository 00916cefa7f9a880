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

/* A symlink met on the way: the caller resolves it inside the image. */
#define IS_SYMLINK	1
/* Symlinks resolved for one target, as the kernel's own limit (ELOOP). */
#define SYMLINKS_MAX	40

/* What is at name, for a refusal: never followed.  IS_SYMLINK for a link. */
static int refuse_existing(int dirfd, const char *name, const char *display,
			   const char *wanted, struct error *e)
{
	struct stat st;

	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return error_errno(e, errno, "stat `%s`", display);
	if (S_ISLNK(st.st_mode))
		return IS_SYMLINK;
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

/*
 * The directory name under dirfd, created if missing: a new fd in *out,
 * or IS_SYMLINK when name is a symlink (never followed here).
 */
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

/* O_EXCL never follows a symlink, even a dangling one: IS_SYMLINK then. */
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

/*
 * Push the components of @path onto the stack @out (a path relative to
 * the image root, no leading or doubled slashes), "." dropped and ".."
 * stopping at the image root, as the kernel resolves a path inside a
 * root (RESOLVE_IN_ROOT) and as runtimes resolve mount targets.
 */
static int push_components(char *out, size_t size, const char *path)
{
	size_t len = strlen(out);

	while (*path) {
		size_t n = strcspn(path, "/");

		if (n == 2 && !strncmp(path, "..", 2)) {
			char *slash = strrchr(out, '/');

			len = slash ? (size_t)(slash - out) : 0;
			out[len] = '\0';
		} else if (n && !(n == 1 && path[0] == '.')) {
			if (len + !!len + n >= size)
				return -ENAMETOOLONG;
			if (len)
				out[len++] = '/';
			memcpy(out + len, path, n);
			len += n;
			out[len] = '\0';
		}
		path += n;
		while (*path == '/')
			path++;
	}
	return 0;
}

/*
 * Where the symlink at @link_path (relative to the image root), whose
 * text is @text, leads inside the image, followed by @rest.
 */
static int resolve_link(const char *link_path, const char *text, const char *rest,
			char *out, size_t size)
{
	const char *slash = strrchr(link_path, '/');
	int ret = 0;

	out[0] = '\0';
	if (text[0] != '/' && slash) {	/* relative: from the link's directory */
		char dir[PATH_MAX];

		snprintf(dir, sizeof(dir), "%.*s", (int)(slash - link_path), link_path);
		ret = push_components(out, size, dir);
	}
	if (ret == 0)
		ret = push_components(out, size, text);
	if (ret == 0)
		ret = push_components(out, size, rest);
	return ret;
}

static int ensure_path(int rootfd, const char *dir, const char *path, mode_t type,
		       FILE *report, unsigned int links, struct error *e);

/* The symlink at path[0..end): resolve it inside the image and go on there. */
static int follow_in_image(int rootfd, const char *dir, const char *path,
			   size_t end, mode_t type, FILE *report,
			   unsigned int links, int parent, struct error *e)
{
	char link_path[PATH_MAX], text[PATH_MAX], next[PATH_MAX];
	const char *name, *rest = path + end;
	ssize_t n;

	snprintf(link_path, sizeof(link_path), "%.*s", (int)end, path);
	name = strrchr(link_path, '/');
	name = name ? name + 1 : link_path;
	n = readlinkat(parent, name, text, sizeof(text) - 1);
	if (n < 0)
		return error_errno(e, errno, "readlink `%s/%s`", dir, link_path);
	text[n] = '\0';
	if (links >= SYMLINKS_MAX)
		return error_msg(e, ELOOP, "`%s/%s`: more than %d symbolic links",
				 dir, link_path, SYMLINKS_MAX);
	if (resolve_link(link_path, text, rest, next, sizeof(next)) < 0)
		return error_msg(e, ENAMETOOLONG, "`%s/%s` -> `%s`: path too long",
				 dir, link_path, text);
	fprintf(report, "%s/%s is a symbolic link to %s: following it inside the image\n",
		dir, link_path, text);
	return ensure_path(rootfd, dir, next, type, report, links + 1, e);
}

/*
 * Make path (relative to the image root rootfd, shown under dir) exist
 * as a type, one component at a time with O_NOFOLLOW; a symlink on the
 * way is resolved inside the image, never by the kernel from here.
 */
static int ensure_path(int rootfd, const char *dir, const char *path, mode_t type,
		       FILE *report, unsigned int links, struct error *e)
{
	char display[2 * PATH_MAX], name[NAME_MAX + 1];
	_cleanup_close_ int parent = -1;
	size_t start = 0, end;
	int ret, fd;

	if (!*path)	/* a link to the image root */
		return type == S_IFDIR ? 0 :
			error_msg(e, EISDIR, "%s: a link leads to the image root, not a file", dir);
	parent = dup(rootfd);
	if (parent < 0)
		return error_errno(e, errno, "dup");
	for (;;) {
		fd = -1;
		end = start + strcspn(path + start, "/");
		if (end - start > NAME_MAX)
			return error_msg(e, ENAMETOOLONG, "%s/%s: name too long", dir, path);
		snprintf(name, sizeof(name), "%.*s", (int)(end - start), path + start);
		snprintf(display, sizeof(display), "%s/%.*s", dir, (int)end, path);
		if (!path[end] && type == S_IFREG) {
			ret = ensure_file(parent, name, display, report, e);
		} else {
			ret = ensure_dir(parent, name, display, report, &fd, e);
		}
		if (ret == IS_SYMLINK)
			return follow_in_image(rootfd, dir, path, end, type, report,
					       links, parent, e);
		if (ret < 0 || !path[end]) {
			if (fd >= 0)
				close(fd);
			return ret;
		}
		closep(&parent);
		parent = fd;
		start = end + 1;
	}
}

int prepare_image(const char *dir, FILE *report, struct error *e)
{
	struct error one = { 0, "" }, first = { 0, "" };
	_cleanup_close_ int rootfd = -1;
	size_t i, refused = 0;
	int ret;

	if (geteuid() != 0)
		return error_msg(e, EPERM,
				 "prepare-image must run as real root: the targets must be owned by 0:0");
	/* dir is the administrator's argument: it may itself be a symlink. */
	rootfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (rootfd < 0)
		return error_errno(e, errno, "open image `%s`", dir);
	/* Every target is tried: one refusal leaves the others prepared. */
	for (i = 0; i < ARRAY_SIZE(targets); i++) {
		ret = ensure_path(rootfd, dir, targets[i].path, targets[i].type,
				  report, 0, &one);
		if (ret == 0)
			continue;
		fprintf(report, "refused: %s\n", one.msg);
		if (!refused++)
			first = one;
	}
	if (refused)
		return error_msg(e, first.code, "%zu of %zu mount targets not prepared; first: %s",
				 refused, ARRAY_SIZE(targets), first.msg);
	return 0;
}
