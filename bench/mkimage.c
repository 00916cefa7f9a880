// SPDX-License-Identifier: GPL-2.0
/*
 * mkimage: generate a container image tree for the benchmarks.
 *
 *   mkimage DIR COUNT [SEED]
 *
 * Creates DIR (which must not exist) and COUNT entries below it, the same
 * tree for the same COUNT and SEED: a mix resembling a distribution's
 * /usr, with every size and owner the runtime's chown copy has to handle.
 * Run as root, so that the owners can be set.  Prints one JSON line:
 *
 *   {"entries":N,"dirs":N,"files":N,"symlinks":N,"bytes":N}
 *
 * The shape: each new entry goes into a directory picked uniformly among
 * those planned so far (a random recursive tree: average depth about
 * ln N, around 7 files per directory).  The tree is planned first and
 * then created depth first, each directory's entries together, the order
 * in which a runtime extracts an image layer from its tar archive (and in
 * which bench/chown-copy copies it): the inodes of a directory's entries
 * lie together, as in a real image and in its chowned copy.  File sizes
 * are small (3.6 KiB on average, median about 1.4 KiB): the cost this
 * benchmark is about grows with the number of entries, and smaller files
 * keep 100k-entry runs short under TCG.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util.h"

#define MAX_FILE_SIZE 65536
#define NONE UINT32_MAX

/* A weighted choice; what a and b mean is said at each table. */
struct choice {
	unsigned int weight;
	unsigned int a;
	unsigned int b;
};

enum kind { KIND_DIR, KIND_FILE, KIND_SYMLINK };

/* a: the kind of entry. */
static const struct choice kinds[] = {
	{ 12, KIND_DIR, 0 },
	{ 78, KIND_FILE, 0 },
	{ 10, KIND_SYMLINK, 0 },
};

/* a: uid, b: gid.  Mostly root, as in distribution images. */
static const struct choice owners[] = {
	{ 88, 0, 0 },
	{ 4, 0, 42 },		/* root:shadow and other root-owned group files */
	{ 3, 1000, 1000 },	/* a user's files */
	{ 3, 100, 101 },	/* a service account */
	{ 2, 65534, 65534 },	/* nobody */
};

/* a: mode of a regular file; setuid ones must survive a chown copy. */
static const struct choice file_modes[] = {
	{ 72, 0644, 0 },
	{ 20, 0755, 0 },
	{ 4, 0600, 0 },
	{ 3, 0640, 0 },
	{ 1, 04755, 0 },
};

/* a: mode of a directory. */
static const struct choice dir_modes[] = {
	{ 95, 0755, 0 },
	{ 3, 0700, 0 },
	{ 2, 01777, 0 },
};

/* a..b: size range of a regular file, in bytes. */
static const struct choice sizes[] = {
	{ 40, 0, 512 },
	{ 40, 512, 4096 },
	{ 18, 4096, 16384 },
	{ 2, 16384, MAX_FILE_SIZE },
};

static const char *const extensions[] = { "", ".so", ".conf", ".py", ".txt", ".h" };

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* splitmix64: small, fast, and the same sequence everywhere. */
static uint64_t rng_state;

static uint64_t rng_next(void)
{
	uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static unsigned int rng_below(unsigned int n)
{
	return (unsigned int)(rng_next() % n);
}

static const struct choice *pick(const struct choice *table, size_t n)
{
	unsigned int total = 0, x;
	size_t i;

	for (i = 0; i < n; i++)
		total += table[i].weight;
	x = rng_below(total);
	for (i = 0; x >= table[i].weight; i++)
		x -= table[i].weight;
	return &table[i];
}

/*
 * One planned entry; entry 0 is the image's root.  Its name is its kind's
 * letter and its index (plus an extension for files), so it is never
 * stored.
 */
struct entry {
	enum kind kind;
	unsigned int parent;
	unsigned int first_child, last_child, next_sibling;
	unsigned int uid, gid, mode;
	unsigned int size;	/* regular files */
	unsigned int target;	/* symbolic links: a file, or NONE for "/" */
	const char *ext;	/* regular files */
};

static struct {
	const char *root;
	int rootfd;
	struct entry *entries;
	unsigned int count;
	unsigned int *dirs, ndirs;	/* planned so far, to pick parents */
	unsigned int *files, nfiles;	/* planned so far, to pick targets */
	unsigned long long bytes;
	char data[MAX_FILE_SIZE];
} img;

static void *alloc_array(size_t n, size_t size, const char *what)
{
	void *p = calloc(n, size);

	if (!p)
		err(1, "allocating %zu %s", n, what);
	return p;
}

static void plan_entry(unsigned int i)
{
	struct entry *e = &img.entries[i];
	struct entry *parent;
	const struct choice *o = pick(owners, ARRAY_SIZE(owners));
	const struct choice *range;

	e->parent = img.dirs[rng_below(img.ndirs)];
	e->kind = (enum kind)pick(kinds, ARRAY_SIZE(kinds))->a;
	e->uid = o->a;
	e->gid = o->b;
	e->first_child = e->last_child = e->next_sibling = NONE;
	switch (e->kind) {
	case KIND_DIR:
		e->mode = pick(dir_modes, ARRAY_SIZE(dir_modes))->a;
		img.dirs[img.ndirs++] = i;
		break;
	case KIND_FILE:
		range = pick(sizes, ARRAY_SIZE(sizes));
		e->size = range->a + rng_below(range->b - range->a + 1);
		e->mode = pick(file_modes, ARRAY_SIZE(file_modes))->a;
		e->ext = extensions[rng_below(ARRAY_SIZE(extensions))];
		img.files[img.nfiles++] = i;
		img.bytes += e->size;
		break;
	case KIND_SYMLINK:
		e->target = img.nfiles ? img.files[rng_below(img.nfiles)] : NONE;
		break;
	}
	/* Children in the order they were planned. */
	parent = &img.entries[e->parent];
	if (parent->last_child == NONE)
		parent->first_child = i;
	else
		img.entries[parent->last_child].next_sibling = i;
	parent->last_child = i;
}

static void plan(unsigned int count)
{
	unsigned int i;

	img.count = count;
	img.entries = alloc_array(count + 1, sizeof(*img.entries), "entries");
	img.dirs = alloc_array(count + 1, sizeof(*img.dirs), "directory indexes");
	img.files = alloc_array(count + 1, sizeof(*img.files), "file indexes");
	img.entries[0] = (struct entry){ .kind = KIND_DIR, .first_child = NONE,
					 .last_child = NONE, .next_sibling = NONE };
	img.dirs[img.ndirs++] = 0;
	for (i = 1; i <= count; i++)
		plan_entry(i);
}

static void entry_name(unsigned int i, char *buf, size_t size)
{
	const struct entry *e = &img.entries[i];

	switch (e->kind) {
	case KIND_DIR:
		snprintf(buf, size, "d%u", i);
		break;
	case KIND_FILE:
		snprintf(buf, size, "f%u%s", i, e->ext);
		break;
	case KIND_SYMLINK:
		snprintf(buf, size, "l%u", i);
		break;
	}
}

/* The absolute path of entry i inside the image, for symbolic links. */
static void entry_path(unsigned int i, char *buf, size_t size)
{
	char name[32], tail[PATH_MAX] = "";

	for (; i != 0; i = img.entries[i].parent) {
		entry_name(i, name, sizeof(name));
		if (snprintf(buf, size, "/%s%s", name, tail) >= (int)size)
			errx(1, "path of entry %u is too long", i);
		strcpy(tail, buf);
	}
	if (!*tail)
		snprintf(buf, size, "/");
}

static void set_owner(const struct entry *e, const char *path)
{
	if (fchownat(img.rootfd, path, e->uid, e->gid, AT_SYMLINK_NOFOLLOW) < 0)
		err(1, "chown %u:%u %s/%s (mkimage must run as root)", e->uid,
		    e->gid, img.root, path);
}

static void make_dir(const struct entry *e, const char *path)
{
	if (mkdirat(img.rootfd, path, 0700) < 0)
		err(1, "mkdir %s/%s", img.root, path);
	set_owner(e, path);
	/* After the chown, and without the umask: the exact mode. */
	if (fchmodat(img.rootfd, path, e->mode, 0) < 0)
		err(1, "chmod %04o %s/%s", e->mode, img.root, path);
}

static void make_file(const struct entry *e, const char *path)
{
	int fd;

	fd = openat(img.rootfd, path,
		    O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		err(1, "create %s/%s", img.root, path);
	if (e->size > 0 && write(fd, img.data, e->size) != (ssize_t)e->size)
		err(1, "write %u bytes to %s/%s", e->size, img.root, path);
	set_owner(e, path);
	/* chown clears setuid bits: set the mode after it. */
	if (fchmod(fd, e->mode) < 0)
		err(1, "chmod %04o %s/%s", e->mode, img.root, path);
	close(fd);
}

/* Absolute targets, as images have them: they resolve inside the container. */
static void make_symlink(const struct entry *e, const char *path)
{
	char target[PATH_MAX];

	if (e->target == NONE)
		snprintf(target, sizeof(target), "/");
	else
		entry_path(e->target, target, sizeof(target));
	if (symlinkat(target, img.rootfd, path) < 0)
		err(1, "symlink %s/%s -> %s", img.root, path, target);
	set_owner(e, path);
}

/* Creates the entries of directory dir (at path, "." for the root). */
static void create_children(unsigned int dir, const char *path)
{
	char name[32], child[PATH_MAX];
	unsigned int i;

	for (i = img.entries[dir].first_child; i != NONE;
	     i = img.entries[i].next_sibling) {
		const struct entry *e = &img.entries[i];

		entry_name(i, name, sizeof(name));
		if (snprintf(child, sizeof(child), "%s/%s", path, name) >=
		    (int)sizeof(child))
			errx(1, "%s/%s/%s: path too long", img.root, path, name);
		switch (e->kind) {
		case KIND_DIR:
			make_dir(e, child);
			create_children(i, child);
			break;
		case KIND_FILE:
			make_file(e, child);
			break;
		case KIND_SYMLINK:
			make_symlink(e, child);
			break;
		}
	}
}

static unsigned int parse_count(const char *arg, const char *what)
{
	unsigned long value;
	char *end;

	errno = 0;
	value = strtoul(arg, &end, 10);
	if (errno || end == arg || *end || value == 0 || value >= NONE)
		errx(2, "%s '%s': expected a number from 1 to %u", what, arg,
		     NONE - 1);
	return (unsigned int)value;
}

int main(int argc, char **argv)
{
	unsigned int count;
	size_t i;

	if (argc < 3 || argc > 4)
		errx(2, "usage: mkimage DIR COUNT [SEED]");
	img.root = argv[1];
	count = parse_count(argv[2], "COUNT");
	rng_state = argc == 4 ? parse_count(argv[3], "SEED") : 1;

	for (i = 0; i < sizeof(img.data); i++)
		img.data[i] = (char)rng_next();
	plan(count);

	if (mkdir(img.root, 0755) < 0)
		err(1, "mkdir %s (it must not exist yet: remove it first)",
		    img.root);
	img.rootfd = open(img.root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (img.rootfd < 0)
		err(1, "open %s", img.root);
	create_children(0, ".");

	printf("{\"entries\":%u,\"dirs\":%u,\"files\":%u,\"symlinks\":%u,\"bytes\":%llu}\n",
	       count, img.ndirs - 1, img.nfiles, count - (img.ndirs - 1) - img.nfiles,
	       img.bytes);
	return 0;
}
