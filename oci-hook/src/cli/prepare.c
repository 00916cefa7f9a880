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
#include "fileio.h"
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

/*
 * Links podman 5 makes in a container's /etc when missing, from the host
 * side before any hook runs and owned by the container's root as mapped
 * on the host (libpod's makePlatformMtabLink: /etc/mtab -> /proc/mounts,
 * chowned to 100000:100000 under --uidmap 0:100000:...): in a shared
 * image that is a file of the first container's mapping, kept for every
 * later one, and an EROFS failure on a read-only store.  An existing
 * entry of that name, whatever it is, is left as it is, as podman does.
 */
static const struct link_target {
	const char *dir;	/* relative to the image root */
	const char *name;
	const char *to;
} links[] = {
	{ "etc", "mtab", "/proc/mounts" },
};

#define DIR_MODE	0755
#define FILE_MODE	0644

/* A dangling symlink where an entry is to be made: followed in the image. */
#define IS_SYMLINK	1
/* Symlinks followed for one target, as the kernel's own limit (ELOOP). */
#define SYMLINKS_MAX	40
/* Missing directories made for one target: a bound on the recursion. */
#define MISSING_MAX	64

/* One target being made: where, and what was followed and made for it. */
struct target_walk {
	int rootfd;		/* the image root */
	const char *dir;	/* its path, for messages */
	FILE *report;
	unsigned int links;
	unsigned int missing;
};

/* The image's path of path, for messages. */
static const char *shown(const struct target_walk *t, const char *path,
			 char *buf, size_t size)
{
	while (*path == '/')
		path++;
	snprintf(buf, size, "%s/%s", t->dir, path);
	return buf;
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

/* An existing entry: the type wanted (its fd into *out for a directory). */
static int check_type(int fd, mode_t type, const char *display, int *out,
		      struct error *e)
{
	struct stat st;

	if (fstat(fd, &st) < 0)
		return error_errno(e, errno, "stat `%s`", display);
	if ((st.st_mode & S_IFMT) != type)
		return error_msg(e, EEXIST, "`%s` exists and is not a %s", display,
				 type == S_IFDIR ? "directory" : "regular file");
	if (out)
		*out = dup(fd);
	return out && *out < 0 ? error_errno(e, errno, "dup") : 0;
}

/*
 * Where the entry just made as fd is, for the report: the kernel's path
 * of it, without the ".." of links followed to get there (else display).
 */
static const char *where_made(int fd, const char *display, char *buf,
			      size_t size)
{
	char proc[sizeof("/proc/self/fd/") + 12];
	ssize_t n;

	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	n = readlink(proc, buf, size - 1);
	if (n <= 0 || (size_t)n >= size - 1)
		return display;
	buf[n] = '\0';
	return buf;
}

/*
 * Make name under the directory pfd as type (O_EXCL, O_NOFOLLOW: never
 * through a link), owned 0:0; a directory's fd into *out.  IS_SYMLINK
 * when a (dangling) link is in the way.
 */
static int make_entry(int pfd, const char *name, mode_t type,
		      const char *display, FILE *report, int *out,
		      struct error *e)
{
	_cleanup_close_ int fd = -1;
	char made[PATH_MAX];
	struct stat st;
	int ret;

	if (type == S_IFDIR) {
		if (mkdirat(pfd, name, DIR_MODE) == 0)
			fd = openat(pfd, name, O_RDONLY | O_DIRECTORY |
				    O_NOFOLLOW | O_CLOEXEC);
	} else {
		fd = openat(pfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
			    O_CLOEXEC | O_NOCTTY, FILE_MODE);
	}
	if (fd < 0 && errno == EEXIST) {
		if (fstatat(pfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
			return error_errno(e, errno, "stat `%s`", display);
		if (S_ISLNK(st.st_mode))
			return IS_SYMLINK;
		return error_msg(e, EEXIST, "`%s` appeared while it was made; run prepare-image again",
				 display);
	}
	if (fd < 0)
		return error_errno(e, errno, "create `%s`", display);
	ret = own(fd, type == S_IFDIR ? DIR_MODE : FILE_MODE, display, e);
	if (ret < 0)
		return ret;
	fprintf(report, "created %s%s\n", where_made(fd, display, made, sizeof(made)),
		type == S_IFDIR ? "/" : "");
	if (out)
		*out = steal_fd(&fd);
	return 0;
}

static int ensure(struct target_walk *t, const char *path, mode_t type,
		  int *out, struct error *e);

/*
 * The dangling link name under pfd, met at path (whose parent is
 * parent): go on where it leads inside the image, as the runtime will.
 */
static int follow_link(struct target_walk *t, int pfd, const char *name,
		       const char *parent, const char *path, mode_t type,
		       int *out, struct error *e)
{
	char display[2 * PATH_MAX], text[PATH_MAX], next[2 * PATH_MAX];
	ssize_t n;

	shown(t, path, display, sizeof(display));
	if (++t->links > SYMLINKS_MAX)
		return error_msg(e, ELOOP, "`%s`: more than %d symbolic links",
				 display, SYMLINKS_MAX);
	n = readlinkat(pfd, name, text, sizeof(text) - 1);
	if (n < 0)
		return error_errno(e, errno, "readlink `%s`", display);
	text[n] = '\0';
	/* Relative from the link's directory, absolute from the image root. */
	if (snprintf(next, sizeof(next), "%s/%s", text[0] == '/' ? "" : parent,
		     text) >= PATH_MAX)
		return error_msg(e, ENAMETOOLONG, "`%s` -> `%s`: path too long",
				 display, text);
	fprintf(t->report, "%s is a symbolic link to %s: following it inside the image\n",
		display, text);
	return ensure(t, next, type, out, e);
}

/*
 * The missing path: its parent made first (as a directory), then its
 * last component in that parent.
 */
static int create(struct target_walk *t, const char *path, mode_t type,
		  int *out, struct error *e)
{
	char display[2 * PATH_MAX];
	_cleanup_free_ char *parent = strdup(path);
	_cleanup_close_ int pfd = -1;
	char *slash, *name;
	int ret;

	if (!parent)
		return error_errno(e, ENOMEM, "prepare `%s`", path);
	if (++t->missing > MISSING_MAX)
		return error_msg(e, ENAMETOOLONG, "`%s`: more than %d missing directories on the way",
				 shown(t, path, display, sizeof(display)), MISSING_MAX);
	slash = strrchr(parent, '/');
	name = slash ? slash + 1 : parent;
	if (slash)
		*slash = '\0';
	ret = ensure(t, slash ? parent : "", S_IFDIR, &pfd, e);
	if (ret < 0)
		return ret;
	/* "x/.." or "x/.": nothing to make once x is there. */
	if (!strcmp(name, ".") || !strcmp(name, ".."))
		return ensure(t, path, type, out, e);
	shown(t, path, display, sizeof(display));
	ret = make_entry(pfd, name, type, display, t->report, out, e);
	if (ret == IS_SYMLINK)
		return follow_link(t, pfd, name, slash ? parent : "", path,
				   type, out, e);
	return ret;
}

/*
 * path (relative to the image root, or absolute from it) as type, made
 * if missing, resolved by the kernel inside the image (SCOPE_IN_ROOT):
 * links on the way lead where they would for the runtime, never out.
 * For a directory, its fd into *out (when out).
 */
static int ensure(struct target_walk *t, const char *path, mode_t type,
		  int *out, struct error *e)
{
	char display[2 * PATH_MAX];
	_cleanup_close_ int fd = -1;
	size_t len = strlen(path);

	/* "etc/" is "etc": the slash only says it is a directory. */
	while (len > 1 && path[len - 1] == '/')
		len--;
	if (len < strlen(path)) {
		_cleanup_free_ char *trimmed = strndup(path, len);

		return trimmed ? ensure(t, trimmed, type, out, e) :
				 error_errno(e, ENOMEM, "prepare `%s`", path);
	}
	shown(t, path, display, sizeof(display));
	fd = open_resolved(t->rootfd, path, O_PATH, SCOPE_IN_ROOT);
	if (fd >= 0)
		return check_type(fd, type, display, out, e);
	if (fd == -ELOOP)
		return error_msg(e, ELOOP, "`%s`: more than %d symbolic links, or a loop of them",
				 display, SYMLINKS_MAX);
	if (fd != -ENOENT)
		return error_errno(e, -fd, "open `%s`", display);
	return create(t, path, type, out, e);
}

/* The link l in its directory (made as a target if missing), 0:0. */
static int ensure_link(struct target_walk *t, const struct link_target *l,
		       struct error *e)
{
	char dir[2 * PATH_MAX], display[3 * PATH_MAX], made[PATH_MAX];
	_cleanup_close_ int dfd = -1;
	int ret;

	ret = ensure(t, l->dir, S_IFDIR, &dfd, e);
	if (ret < 0)
		return ret;
	shown(t, l->dir, dir, sizeof(dir));
	snprintf(display, sizeof(display), "%s/%s", dir, l->name);
	if (symlinkat(l->to, dfd, l->name) < 0)
		return errno == EEXIST ? 0 : error_errno(e, errno, "symlink `%s`", display);
	if (fchownat(dfd, l->name, 0, 0, AT_SYMLINK_NOFOLLOW) < 0)
		return error_errno(e, errno, "chown `%s` to 0:0", display);
	fprintf(t->report, "created %s/%s -> %s\n",
		where_made(dfd, dir, made, sizeof(made)), l->name, l->to);
	return 0;
}

int prepare_image(const char *dir, FILE *report, struct error *e)
{
	struct error one = { 0, "" }, first = { 0, "" };
	_cleanup_close_ int rootfd = -1;
	size_t i, refused = 0, total = ARRAY_SIZE(targets) + ARRAY_SIZE(links);
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
		struct target_walk t = { rootfd, dir, report, 0, 0 };

		ret = ensure(&t, targets[i].path, targets[i].type, NULL, &one);
		if (ret == 0)
			continue;
		fprintf(report, "refused: %s\n", one.msg);
		if (!refused++)
			first = one;
	}
	for (i = 0; i < ARRAY_SIZE(links); i++) {
		struct target_walk t = { rootfd, dir, report, 0, 0 };

		ret = ensure_link(&t, &links[i], &one);
		if (ret == 0)
			continue;
		fprintf(report, "refused: %s\n", one.msg);
		if (!refused++)
			first = one;
	}
	if (refused)
		return error_msg(e, first.code, "%zu of %zu mount targets not prepared; first: %s",
				 refused, total, first.msg);
	return 0;
}
