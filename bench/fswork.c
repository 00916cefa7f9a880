// SPDX-License-Identifier: GPL-2.0
/*
 * fswork: the steady-state workload, run inside a container: what every
 * file system operation through the container's root mount costs once the
 * container runs.
 *
 *   fswork ROOT SCRATCH COUNT
 *
 * Three timed phases, each on CLOCK_MONOTONIC:
 *   stat           walk ROOT (readdir) and lstat every entry, not crossing
 *                  into other file systems (/proc, /sys, /dev)
 *   read           open and read every regular file the walk found
 *   create_unlink  create COUNT empty files in SCRATCH, then unlink them
 *
 * Prints one JSON line:
 *   {"owner":"U:G","entries":N,"files":N,"bytes":N,
 *    "stat_s":S,"read_s":S,"create_unlink_s":S}
 * where owner is ROOT's owner as the container sees it, so that the
 * caller can check that it measured the mount it meant to.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util.h"

static struct {
	const char *root;
	int rootfd;
	dev_t dev;
	unsigned long entries;
	unsigned long long bytes;
	char **files;
	size_t nfiles, cap;
} walk;

static void add_file(const char *path)
{
	if (walk.nfiles == walk.cap) {
		walk.cap = walk.cap ? 2 * walk.cap : 4096;
		walk.files = realloc(walk.files, walk.cap * sizeof(*walk.files));
		if (!walk.files)
			err(1, "growing the file list to %zu entries", walk.cap);
	}
	walk.files[walk.nfiles] = strdup(path);
	if (!walk.files[walk.nfiles++])
		err(1, "strdup");
}

static int open_dir(int parent, const char *name, const char *path)
{
	int fd = openat(parent, name,
			O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

	if (fd < 0)
		err(1, "open directory %s", path);
	return fd;
}

/* lstat every entry below directory fd (path); closes fd. */
static void stat_tree(int fd, const char *path)
{
	char child[PATH_MAX];
	struct dirent *de;
	struct stat st;
	DIR *dir = fdopendir(fd);

	if (!dir)
		err(1, "read directory %s", path);
	while ((errno = 0, de = readdir(dir))) {
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		join_path(child, sizeof(child), walk.root, path, de->d_name);
		if (fstatat(fd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0)
			err(1, "lstat %s", child);
		/* Mount points of /proc, /sys, /dev: not the image. */
		if (st.st_dev != walk.dev)
			continue;
		walk.entries++;
		if (S_ISREG(st.st_mode))
			add_file(child);
		if (!S_ISDIR(st.st_mode))
			continue;
		stat_tree(open_dir(fd, de->d_name, child), child);
	}
	if (errno)
		err(1, "read directory %s", path);
	closedir(dir);
}

static void read_files(void)
{
	static char buf[65536];
	ssize_t n;
	size_t i;
	int fd;

	for (i = 0; i < walk.nfiles; i++) {
		fd = openat(walk.rootfd, walk.files[i],
			    O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0)
			err(1, "open %s", walk.files[i]);
		while ((n = read(fd, buf, sizeof(buf))) > 0)
			walk.bytes += (unsigned long long)n;
		if (n < 0)
			err(1, "read %s", walk.files[i]);
		close(fd);
	}
}

static void create_unlink(const char *scratch, unsigned long count)
{
	char name[32];
	unsigned long i;
	int dirfd, fd;

	dirfd = open(scratch, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dirfd < 0)
		err(1, "open directory %s", scratch);
	for (i = 0; i < count; i++) {
		snprintf(name, sizeof(name), "fswork-%lu", i);
		fd = openat(dirfd, name,
			    O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
			    0644);
		if (fd < 0)
			err(1, "create %s/%s", scratch, name);
		close(fd);
	}
	for (i = 0; i < count; i++) {
		snprintf(name, sizeof(name), "fswork-%lu", i);
		if (unlinkat(dirfd, name, 0) < 0)
			err(1, "unlink %s/%s", scratch, name);
	}
	close(dirfd);
}

int main(int argc, char **argv)
{
	double t0, t1, t2, t3;
	unsigned long count;
	struct stat st;
	char *end;

	if (argc != 4)
		errx(2, "usage: fswork ROOT SCRATCH COUNT");
	count = strtoul(argv[3], &end, 10);
	if (*argv[3] == '\0' || *end)
		errx(2, "COUNT '%s': expected a number", argv[3]);
	walk.root = argv[1];
	walk.rootfd = open_dir(AT_FDCWD, argv[1], argv[1]);
	if (fstat(walk.rootfd, &st) < 0)
		err(1, "stat %s", argv[1]);
	walk.dev = st.st_dev;

	t0 = monotonic_s();
	stat_tree(open_dir(walk.rootfd, ".", argv[1]), ".");
	t1 = monotonic_s();
	read_files();
	t2 = monotonic_s();
	create_unlink(argv[2], count);
	t3 = monotonic_s();

	printf("{\"owner\":\"%u:%u\",\"entries\":%lu,\"files\":%zu,\"bytes\":%llu,",
	       (unsigned int)st.st_uid, (unsigned int)st.st_gid, walk.entries,
	       walk.nfiles, walk.bytes);
	printf("\"stat_s\":%.6f,\"read_s\":%.6f,\"create_unlink_s\":%.6f}\n",
	       t1 - t0, t2 - t1, t3 - t2);
	return 0;
}
