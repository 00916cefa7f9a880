// SPDX-License-Identifier: GPL-2.0
/*
 * fswork: the steady-state workload, run inside a container: what every
 * file system operation through the container's root mount costs once the
 * container runs.
 *
 *   fswork ROOT SCRATCH COUNT [CONTROL ROUNDS]
 *
 * Three timed phases, each on CLOCK_MONOTONIC:
 *   stat           walk ROOT (readdir) and lstat every entry, not crossing
 *                  into other file systems (/proc, /sys, /dev)
 *   read           open and read every regular file the walk found
 *   create_unlink  create COUNT empty files in SCRATCH, then unlink them
 *
 * With CONTROL, another mount of the same tree outside ROOT, ROUNDS
 * rounds follow that compare ROOT's mount with CONTROL's, in this one
 * process on the same cached dentries and pages.  A round is two passes
 * over every entry (lstat by its path from the mount's root) and every
 * file (open and read), in batches of STAT_BATCH entries or READ_BATCH
 * files that go through the two mounts in turn: the even batches through
 * ROOT in the first pass and through CONTROL in the second, the odd ones
 * the other way round.  So each mount sees every path once a round, as
 * often first as second, and a slice of time the machine takes away
 * lands on one batch of milliseconds, not on a whole phase: under an
 * emulator on a shared host, phases of seconds run apart vary by tens of
 * percent.  Each batch runs with the file system ids of the owner of the
 * mount's root as that mount shows it (0 through a plain bind, 100000
 * through an idmapped mount with 0:100000), as a container's root would;
 * run as real root, which keeps its capabilities across the switch.
 *
 * Prints one JSON line:
 *   {"owner":"U:G","entries":N,"files":N,"bytes":N,
 *    "stat_s":S,"read_s":S,"create_unlink_s":S
 *    [,"control":{"rounds":N,"stat_batch":N,"read_batch":N,
 *                 "stat_ratio":[R...],"read_ratio":[R...]}]}
 * where owner is ROOT's owner as the container sees it, so that the
 * caller can check that it measured the mount it meant to, and a ratio
 * is one round's time through ROOT over its time through CONTROL.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/securebits.h>
#include <sys/fsuid.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util.h"

#define STAT_BATCH	64
#define READ_BATCH	16

/* A mount of the image, and the owner of its root as the mount shows it. */
struct tree {
	const char *root;
	int rootfd;
	dev_t dev;
	ino_t ino;
	uid_t uid;
	gid_t gid;
};

struct pathlist {
	char **path;
	size_t n, cap;
};

/* What the walk found: paths relative to the root. */
static struct {
	struct pathlist entries, files;
	unsigned long long bytes;
} found;

static void pathlist_add(struct pathlist *l, const char *path)
{
	if (l->n == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 4096;
		l->path = realloc(l->path, l->cap * sizeof(*l->path));
		if (!l->path)
			err(1, "growing a path list to %zu entries", l->cap);
	}
	l->path[l->n] = strdup(path);
	if (!l->path[l->n++])
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

/* lstat every entry below directory fd (path), noting them; closes fd. */
static void stat_tree(const struct tree *t, int fd, const char *path)
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
		join_path(child, sizeof(child), t->root, path, de->d_name);
		if (fstatat(fd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0)
			err(1, "lstat %s", child);
		/* Mount points of /proc, /sys, /dev: not the image. */
		if (st.st_dev != t->dev)
			continue;
		pathlist_add(&found.entries, child);
		if (S_ISREG(st.st_mode))
			pathlist_add(&found.files, child);
		if (S_ISDIR(st.st_mode))
			stat_tree(t, open_dir(fd, de->d_name, child), child);
	}
	if (errno)
		err(1, "read directory %s", path);
	closedir(dir);
}

/* Open and read @path under @t; returns the bytes read. */
static unsigned long long read_file(const struct tree *t, const char *path)
{
	static char buf[65536];
	unsigned long long bytes = 0;
	ssize_t n;
	int fd;

	fd = openat(t->rootfd, path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		err(1, "open %s under %s", path, t->root);
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		bytes += (unsigned long long)n;
	if (n < 0)
		err(1, "read %s under %s", path, t->root);
	close(fd);
	return bytes;
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

static void open_tree(struct tree *t, const char *root)
{
	struct stat st;

	t->root = root;
	t->rootfd = open_dir(AT_FDCWD, root, root);
	if (fstat(t->rootfd, &st) < 0)
		err(1, "stat %s", root);
	t->dev = st.st_dev;
	t->ino = st.st_ino;
	t->uid = st.st_uid;
	t->gid = st.st_gid;
}

/*
 * File system accesses through @t from here on as the owner of its root,
 * as a container's root is: real root through a plain bind, the mapped
 * id through an idmapped mount.  Path walks then take the owner's fast
 * path through either, and not the other users' one through only one.
 */
static void act_as_owner_of(const struct tree *t)
{
	setfsuid(t->uid);
	setfsgid(t->gid);
	if ((uid_t)setfsuid((uid_t)-1) != t->uid || (gid_t)setfsgid((gid_t)-1) != t->gid)
		errx(1, "cannot act as %u:%u, the owner of %s", (unsigned int)t->uid,
		     (unsigned int)t->gid, t->root);
}

/*
 * A timed batch: paths [from, to) of @l through @t.  Returns seconds;
 * adds to @sum what both mounts of one tree must agree on.
 */
typedef double timed_batch_fn(const struct tree *t, const struct pathlist *l,
			      size_t from, size_t to, unsigned long long *sum);

static double stat_batch(const struct tree *t, const struct pathlist *l,
			 size_t from, size_t to, unsigned long long *sum)
{
	double t0 = monotonic_s();
	struct stat st;
	size_t i;

	for (i = from; i < to; i++) {
		if (fstatat(t->rootfd, l->path[i], &st, AT_SYMLINK_NOFOLLOW) < 0)
			err(1, "lstat %s under %s", l->path[i], t->root);
		*sum += (unsigned long long)st.st_ino + (unsigned long long)st.st_size;
	}
	return monotonic_s() - t0;
}

static double read_batch(const struct tree *t, const struct pathlist *l,
			 size_t from, size_t to, unsigned long long *sum)
{
	double t0 = monotonic_s();
	size_t i;

	for (i = from; i < to; i++)
		*sum += read_file(t, l->path[i]);
	return monotonic_s() - t0;
}

/* One operation compared: its ratio in each round. */
struct comparison {
	const char *name;
	const struct pathlist *paths;
	size_t batch;
	timed_batch_fn *timed;
	double *round_ratio;	/* ROUNDS */
};

/* One round of @c: two passes, each batch through the two trees in turn. */
static void compare_round(struct comparison *c, const struct tree *trees[2],
			  unsigned long round)
{
	unsigned long long sum[2] = { 0, 0 };
	double total[2] = { 0, 0 };
	size_t from, to, k;
	int pass, side;

	for (pass = 0; pass < 2; pass++) {
		for (k = 0, from = 0; from < c->paths->n; k++, from = to) {
			to = from + c->batch < c->paths->n ? from + c->batch : c->paths->n;
			side = (int)((k + (size_t)pass) % 2);
			act_as_owner_of(trees[side]);
			total[side] += c->timed(trees[side], c->paths, from, to, &sum[side]);
		}
	}
	if (sum[0] != sum[1])
		errx(1, "%s through %s and through %s differ: not the same tree",
		     c->name, trees[0]->root, trees[1]->root);
	c->round_ratio[round] = total[0] / total[1];
}

static void print_comparison(const struct comparison *c, unsigned long rounds)
{
	unsigned long r;

	printf(",\"%s_ratio\":[", c->name);
	for (r = 0; r < rounds; r++)
		printf("%s%.4f", r ? "," : "", c->round_ratio[r]);
	printf("]");
}

static void comparison_init(struct comparison *c, const char *name,
			    const struct pathlist *paths, size_t batch,
			    timed_batch_fn *timed, unsigned long rounds)
{
	*c = (struct comparison){ .name = name, .paths = paths, .batch = batch,
				  .timed = timed };
	c->round_ratio = calloc(rounds, sizeof(double));
	if (!c->round_ratio)
		err(1, "allocating %lu rounds of %s ratios", rounds, name);
}

/* ROUNDS rounds of ROOT against CONTROL; the "control" JSON member. */
static void compare_with_control(const struct tree *root, const char *control,
				 unsigned long rounds)
{
	struct comparison stat_cmp, read_cmp;
	const struct tree *trees[2];
	struct tree ctl;
	unsigned long r;

	open_tree(&ctl, control);
	if (ctl.dev != root->dev || ctl.ino != root->ino)
		errx(1, "control %s is not a mount of %s's tree", control, root->root);
	trees[0] = root;
	trees[1] = &ctl;
	/* Another fsuid keeps the capabilities: other users' 0700 directories. */
	if (prctl(PR_SET_SECUREBITS, SECBIT_NO_SETUID_FIXUP) < 0)
		err(1, "prctl(PR_SET_SECUREBITS, SECBIT_NO_SETUID_FIXUP)");
	comparison_init(&stat_cmp, "stat", &found.entries, STAT_BATCH, stat_batch, rounds);
	comparison_init(&read_cmp, "read", &found.files, READ_BATCH, read_batch, rounds);
	for (r = 0; r < rounds; r++) {
		compare_round(&stat_cmp, trees, r);
		compare_round(&read_cmp, trees, r);
	}
	act_as_owner_of(root);
	printf(",\"control\":{\"rounds\":%lu,\"stat_batch\":%d,\"read_batch\":%d",
	       rounds, STAT_BATCH, READ_BATCH);
	print_comparison(&stat_cmp, rounds);
	print_comparison(&read_cmp, rounds);
	printf("}");
}

static unsigned long parse_count(const char *arg, const char *what)
{
	unsigned long n;
	char *end;

	errno = 0;
	n = strtoul(arg, &end, 10);
	if (*arg == '\0' || *end || errno)
		errx(2, "%s '%s': expected a number", what, arg);
	return n;
}

int main(int argc, char **argv)
{
	unsigned long count, rounds = 0;
	double t0, t1, t2, t3;
	struct tree root;
	struct stat st;
	size_t i;

	if (argc != 4 && argc != 6)
		errx(2, "usage: fswork ROOT SCRATCH COUNT [CONTROL ROUNDS]");
	count = parse_count(argv[3], "COUNT");
	if (argc == 6 && (rounds = parse_count(argv[5], "ROUNDS")) == 0)
		errx(2, "ROUNDS must be at least 1");
	open_tree(&root, argv[1]);
	if (fstat(root.rootfd, &st) < 0)
		err(1, "stat %s", argv[1]);

	t0 = monotonic_s();
	stat_tree(&root, open_dir(root.rootfd, ".", argv[1]), ".");
	t1 = monotonic_s();
	for (i = 0; i < found.files.n; i++)
		found.bytes += read_file(&root, found.files.path[i]);
	t2 = monotonic_s();
	create_unlink(argv[2], count);
	t3 = monotonic_s();

	printf("{\"owner\":\"%u:%u\",\"entries\":%zu,\"files\":%zu,\"bytes\":%llu,",
	       (unsigned int)st.st_uid, (unsigned int)st.st_gid, found.entries.n,
	       found.files.n, found.bytes);
	printf("\"stat_s\":%.6f,\"read_s\":%.6f,\"create_unlink_s\":%.6f",
	       t1 - t0, t2 - t1, t3 - t2);
	if (rounds)
		compare_with_control(&root, argv[4], rounds);
	printf("}\n");
	return 0;
}
