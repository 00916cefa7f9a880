// SPDX-License-Identifier: GPL-2.0
/* fileio.c: see fileio.h. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "common.h"
#include "fileio.h"

/* Grow by doubling from here; most inputs fit the first buffer. */
#define READ_CHUNK 4096

static int grow(char **buf, size_t *size, size_t cap, struct error *e)
{
	/* One byte beyond the cap tells "exactly cap" from "more". */
	size_t want = *size * 2 > cap + 2 ? cap + 2 : *size * 2;
	char *bigger = realloc(*buf, want);

	if (!bigger)
		return error_errno(e, ENOMEM, "read");
	*buf = bigger;
	*size = want;
	return 0;
}

int read_fd_capped(int fd, const char *what, size_t cap, char **out,
		   size_t *len, struct error *e)
{
	_cleanup_free_ char *buf = NULL;
	size_t size = READ_CHUNK, used = 0;
	int ret;

	buf = malloc(size);
	if (!buf)
		return error_errno(e, ENOMEM, "read %s", what);
	for (;;) {
		ssize_t n;

		if (used + 1 >= size) {
			ret = grow(&buf, &size, cap, e);
			if (ret < 0)
				return ret;
		}
		n = read(fd, buf + used, size - used - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return error_errno(e, errno, "read %s", what);
		if (n == 0)
			break;
		used += (size_t)n;
		if (used > cap)
			return error_msg(e, EFBIG, "%s: larger than %zu bytes",
					 what, cap);
	}
	buf[used] = '\0';
	*len = used;
	*out = steal_pointer(&buf);
	return 0;
}

static const char *file_type_name(mode_t mode)
{
	static const struct {
		mode_t type;
		const char *name;
	} names[] = {
		{ S_IFDIR, "a directory" },
		{ S_IFIFO, "a FIFO" },
		{ S_IFSOCK, "a socket" },
		{ S_IFCHR, "a character device" },
		{ S_IFBLK, "a block device" },
		{ S_IFLNK, "a symbolic link" },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(names); i++)
		if ((mode & S_IFMT) == names[i].type)
			return names[i].name;
	return "not a regular file";
}

int read_regular_file_at(int dirfd, const char *name, const char *display,
			 enum open_policy policy, size_t cap, char **out,
			 size_t *len, struct error *e)
{
	/* O_NONBLOCK: opening a FIFO for reading must not wait for a writer. */
	int flags = O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK;
	_cleanup_close_ int fd = -1;
	struct stat st;

	if (policy == REFUSE_SYMLINK)
		flags |= O_NOFOLLOW;
	fd = openat(dirfd, name, flags);
	if (fd < 0 && errno == ELOOP && policy == REFUSE_SYMLINK)
		return error_msg(e, ELOOP,
				 "open `%s`: is a symbolic link, refused",
				 display);
	if (fd < 0)
		return error_errno(e, errno, "open `%s`", display);
	if (fstat(fd, &st) < 0)
		return error_errno(e, errno, "stat `%s`", display);
	if (!S_ISREG(st.st_mode))
		return error_msg(e, EINVAL, "open `%s`: %s, expected a regular file",
				 display, file_type_name(st.st_mode));
	return read_fd_capped(fd, display, cap, out, len, e);
}

int open_resolved(int dirfd, const char *path, int flags,
		  enum resolve_scope scope)
{
	static const __u64 resolve[] = {
		[SCOPE_IN_ROOT] = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS,
		[SCOPE_NO_SYMLINKS] = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS |
				      RESOLVE_NO_MAGICLINKS,
		[SCOPE_SAME_MOUNT] = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS |
				     RESOLVE_NO_MAGICLINKS | RESOLVE_NO_XDEV,
	};
	struct open_how how = {
		.flags = (unsigned int)flags | O_CLOEXEC,
		.resolve = resolve[scope],
	};
	long fd;

	/* Both refuse any symlink: the trailing one too, unless O_PATH. */
	if (scope != SCOPE_IN_ROOT)
		how.flags |= O_NOFOLLOW;
	/* "/x" is inside the root; RESOLVE_BENEATH refuses it (EXDEV). */
	if (scope == SCOPE_IN_ROOT)
		while (*path == '/')
			path++;
	if (!*path)
		path = ".";
	fd = syscall(SYS_openat2, dirfd, path, &how, sizeof(how));
	/*
	 * Without openat2(2) (valgrind before 3.20 has none), one name
	 * other than ".." resolves alike with O_NOFOLLOW: it cannot leave
	 * dirfd, and no link is followed.  Not for SCOPE_SAME_MOUNT: the
	 * name may be a mount point.
	 */
	if (fd < 0 && errno == ENOSYS && scope == SCOPE_NO_SYMLINKS &&
	    !strchr(path, '/') && strcmp(path, ".."))
		fd = openat(dirfd, path, (int)how.flags);
	return fd < 0 ? -errno : (int)fd;
}

int read_bundle_config(const char *bundle, size_t cap, int *dirfd, char **text,
		       size_t *len, struct error *e)
{
	char display[PATH_MAX + sizeof("/config.json")];
	int fd, ret;

	snprintf(display, sizeof(display), "%s/config.json", bundle);
	fd = open(bundle, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return error_errno(e, errno, "open bundle `%s`", bundle);
	ret = read_regular_file_at(fd, "config.json", display, REFUSE_SYMLINK,
				   cap, text, len, e);
	if (ret == 0 && dirfd)
		*dirfd = steal_fd(&fd);
	closep(&fd);
	return ret;
}

int write_all(int fd, const void *data, size_t len)
{
	const char *p = data;

	while (len > 0) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			return -EIO;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

ssize_t read_exact(int fd, void *buf, size_t len)
{
	char *p = buf;
	size_t got = 0;

	while (got < len) {
		ssize_t n = read(fd, p + got, len - got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			break;
		got += (size_t)n;
	}
	return (ssize_t)got;
}

/*
 * A name for the temporary file next to name, not taken yet: an fd, or
 * -errno.  The suffix comes from getrandom(): whoever can write the
 * directory must not be able to take every name this will try.
 */
static int create_temp_at(int dirfd, const char *name, char *tmp, size_t size)
{
	unsigned long long suffix;
	unsigned int attempt;
	int fd;

	for (attempt = 0; attempt < 100; attempt++) {
		if (getrandom(&suffix, sizeof(suffix), 0) != (ssize_t)sizeof(suffix))
			return errno ? -errno : -EIO;
		snprintf(tmp, size, ".%s.%016llx", name, suffix);
		fd = openat(dirfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
			    O_CLOEXEC, 0600);
		if (fd >= 0 || errno != EEXIST)
			return fd < 0 ? -errno : fd;
	}
	return -EEXIST;
}

int write_file_atomic(int dirfd, const char *display, const char *name,
		      const void *data, size_t len, const struct stat *old,
		      struct error *e)
{
	_cleanup_close_ int fd = -1;
	char tmp[NAME_MAX + 1];
	int ret;

	fd = create_temp_at(dirfd, name, tmp, sizeof(tmp));
	if (fd < 0)
		return error_errno(e, -fd, "create a temporary file next to `%s`", display);
	ret = write_all(fd, data, len);
	if (ret == 0 && fchown(fd, old->st_uid, old->st_gid) < 0) {
		ret = -errno;
		unlinkat(dirfd, tmp, 0);
		return error_errno(e, -ret,
				   "write `%s`: keep its owner %u:%u (run this as that user or as root)",
				   display, (unsigned int)old->st_uid,
				   (unsigned int)old->st_gid);
	}
	if (ret == 0 && fchmod(fd, old->st_mode & 0777) < 0)
		ret = -errno;
	if (ret == 0 && fsync(fd) < 0)
		ret = -errno;
	if (ret == 0 && renameat(dirfd, tmp, dirfd, name) < 0)
		ret = -errno;
	if (ret < 0) {
		unlinkat(dirfd, tmp, 0);
		return error_errno(e, -ret, "write `%s`", display);
	}
	return 0;
}

bool path_within(const char *path, const char *dir, bool strictly)
{
	size_t len = strlen(dir);

	while (len > 0 && dir[len - 1] == '/')
		len--;
	if (strncmp(path, dir, len))
		return false;
	if (path[len] == '\0')
		return !strictly && len > 0;
	/* "/dev" holds "/dev/x", not "/devx"; strictly, not "/dev/" either. */
	return path[len] == '/' && (path[len + 1] || !strictly);
}
