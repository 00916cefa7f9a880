// SPDX-License-Identifier: GPL-2.0
/*
 * chown-copy: what runtimes do today to give a user namespace its own view
 * of an image: copy the image and chown every entry into the mapping.
 *
 *   chown-copy SRC DST UID_MAP GID_MAP        (maps: CONTAINER:HOST:SIZE)
 *
 * containers-storage does this the first time an image is used with a
 * mapping it has no copy for (store.go, imageTopLayerForMapping: a new top
 * layer made from the image's as a template, then UpdateLayerIDMap chowns
 * the whole tree); containerd's remapped snapshots chown a copy the same
 * way.  This program does both in one walk (each entry is created, then
 * given its mapped owner), which is cheaper than a copy followed by a
 * chown pass: a lower bound of what a runtime pays.
 *
 * Copied: directories, regular files (copy_file_range(2): the data stays
 * in the kernel), symbolic links, device nodes, FIFOs and sockets; owners
 * mapped, modes (setuid included) and timestamps kept.  Not copied:
 * extended attributes; hard links become separate files.  The benchmark's
 * images have neither.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "util.h"

static struct mapping_args opt;

static unsigned int map_id(const struct id_extent *e, unsigned int id,
			   const char *which, const char *path)
{
	if (id < e->inside || id - e->inside >= e->count)
		errx(1, "%s/%s: %s %u is outside the mapping %u:%u:%u; the container could not own it",
		     opt.src, path, which, id, e->inside, e->outside, e->count);
	return e->outside + (id - e->inside);
}

/* Owner first: chown clears setuid and setgid bits, the mode restores them. */
static void copy_owner_and_mode(int fd, const struct stat *st, const char *path)
{
	uid_t uid = map_id(&opt.uid, st->st_uid, "uid", path);
	gid_t gid = map_id(&opt.gid, st->st_gid, "gid", path);

	if (fchown(fd, uid, gid) < 0)
		err(1, "chown %u:%u %s/%s", uid, gid, opt.dst, path);
	if (fchmod(fd, st->st_mode & 07777) < 0)
		err(1, "chmod %04o %s/%s", st->st_mode & 07777, opt.dst, path);
}

static void copy_times(int dirfd, const char *name, const struct stat *st,
		       const char *path)
{
	const struct timespec times[2] = { st->st_atim, st->st_mtim };

	if (utimensat(dirfd, name, times, AT_SYMLINK_NOFOLLOW) < 0)
		err(1, "set the times of %s/%s", opt.dst, path);
}

static void copy_data_rw(int in, int out, const char *path)
{
	char buf[65536];
	ssize_t n;

	while ((n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, (size_t)n) != n)
			err(1, "write %s/%s", opt.dst, path);
	if (n < 0)
		err(1, "read %s/%s", opt.src, path);
}

static void copy_data(int in, int out, const char *path)
{
	bool first = true;
	ssize_t n;

	while ((n = copy_file_range(in, NULL, out, NULL, SSIZE_MAX, 0)) > 0)
		first = false;
	if (n == 0)
		return;
	/*
	 * Across file systems (EXDEV), on file systems without it (EINVAL,
	 * EOPNOTSUPP) or on kernels before 4.5 (ENOSYS): copy through a
	 * buffer.
	 */
	if (first && (errno == EXDEV || errno == EINVAL || errno == ENOSYS ||
		      errno == EOPNOTSUPP)) {
		copy_data_rw(in, out, path);
		return;
	}
	err(1, "copy_file_range %s/%s to %s/%s", opt.src, path, opt.dst, path);
}

static void copy_regular(int sdir, int ddir, const char *name,
			 const struct stat *st, const char *path)
{
	int in, out;

	in = openat(sdir, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (in < 0)
		err(1, "open %s/%s", opt.src, path);
	out = openat(ddir, name,
		     O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (out < 0)
		err(1, "create %s/%s", opt.dst, path);
	copy_data(in, out, path);
	copy_owner_and_mode(out, st, path);
	close(in);
	close(out);
	copy_times(ddir, name, st, path);
}

static void copy_symlink(int sdir, int ddir, const char *name,
			 const struct stat *st, const char *path)
{
	char target[PATH_MAX];
	uid_t uid = map_id(&opt.uid, st->st_uid, "uid", path);
	gid_t gid = map_id(&opt.gid, st->st_gid, "gid", path);
	ssize_t len;

	len = readlinkat(sdir, name, target, sizeof(target) - 1);
	if (len < 0)
		err(1, "readlink %s/%s", opt.src, path);
	target[len] = '\0';
	if (symlinkat(target, ddir, name) < 0)
		err(1, "symlink %s/%s", opt.dst, path);
	if (fchownat(ddir, name, uid, gid, AT_SYMLINK_NOFOLLOW) < 0)
		err(1, "chown %u:%u %s/%s", uid, gid, opt.dst, path);
	copy_times(ddir, name, st, path);
}

/* Device nodes, FIFOs and sockets: nothing to copy but the node. */
static void copy_node(int ddir, const char *name, const struct stat *st,
		      const char *path)
{
	uid_t uid = map_id(&opt.uid, st->st_uid, "uid", path);
	gid_t gid = map_id(&opt.gid, st->st_gid, "gid", path);

	if (mknodat(ddir, name, st->st_mode & S_IFMT, st->st_rdev) < 0)
		err(1, "mknod %s/%s (type %o, device %u:%u)", opt.dst, path,
		    st->st_mode & S_IFMT, major(st->st_rdev),
		    minor(st->st_rdev));
	if (fchownat(ddir, name, uid, gid, AT_SYMLINK_NOFOLLOW) < 0)
		err(1, "chown %u:%u %s/%s", uid, gid, opt.dst, path);
	if (fchmodat(ddir, name, st->st_mode & 07777, 0) < 0)
		err(1, "chmod %s/%s", opt.dst, path);
	copy_times(ddir, name, st, path);
}

static int open_dir(int parent, const char *name, const char *root,
		    const char *path)
{
	int fd = openat(parent, name,
			O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

	if (fd < 0)
		err(1, "open directory %s/%s", root, path);
	return fd;
}

static void copy_dir_contents(int sfd, int dfd, const char *path);

static void copy_dir(int sdir, int ddir, const char *name,
		     const struct stat *st, const char *path)
{
	int sfd, dfd;

	if (mkdirat(ddir, name, 0700) < 0)
		err(1, "mkdir %s/%s", opt.dst, path);
	sfd = open_dir(sdir, name, opt.src, path);
	dfd = open_dir(ddir, name, opt.dst, path);
	copy_dir_contents(sfd, dfd, path);
	copy_owner_and_mode(dfd, st, path);
	close(dfd);
	/* Last: creating the children changed the directory's times. */
	copy_times(ddir, name, st, path);
}

/* Copies what directory sfd holds into dfd; closes sfd. */
static void copy_dir_contents(int sfd, int dfd, const char *path)
{
	char child[PATH_MAX];
	struct dirent *de;
	struct stat st;
	DIR *dir;

	dir = fdopendir(sfd);
	if (!dir)
		err(1, "read directory %s/%s", opt.src, path);
	while ((errno = 0, de = readdir(dir))) {
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		join_path(child, sizeof(child), opt.src, path, de->d_name);
		if (fstatat(sfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0)
			err(1, "stat %s/%s", opt.src, child);
		switch (st.st_mode & S_IFMT) {
		case S_IFDIR:
			copy_dir(sfd, dfd, de->d_name, &st, child);
			break;
		case S_IFREG:
			copy_regular(sfd, dfd, de->d_name, &st, child);
			break;
		case S_IFLNK:
			copy_symlink(sfd, dfd, de->d_name, &st, child);
			break;
		default:
			copy_node(dfd, de->d_name, &st, child);
			break;
		}
	}
	if (errno)
		err(1, "read directory %s/%s", opt.src, path);
	closedir(dir);
}

int main(int argc, char **argv)
{
	struct stat st;
	int sfd, dfd;

	parse_mapping_args(argc, argv, "chown-copy", &opt);

	sfd = open_dir(AT_FDCWD, opt.src, opt.src, ".");
	if (fstat(sfd, &st) < 0)
		err(1, "stat %s", opt.src);
	if (mkdir(opt.dst, 0700) < 0)
		err(1, "mkdir %s (it must not exist yet: remove it first)",
		    opt.dst);
	dfd = open_dir(AT_FDCWD, opt.dst, opt.dst, ".");
	copy_dir_contents(sfd, dfd, ".");
	copy_owner_and_mode(dfd, &st, ".");
	close(dfd);
	copy_times(AT_FDCWD, opt.dst, &st, ".");
	return 0;
}
