/* SPDX-License-Identifier: GPL-2.0 */
/*
 * util.h: small helpers shared by the benchmark programs in bench/.
 *
 * Errors go through err(3)/errx(3): one line naming the program, what
 * failed and on what, then exit status 1 (2 for bad usage).
 */
#ifndef SHIFTBIND_BENCH_UTIL_H
#define SHIFTBIND_BENCH_UTIL_H

#include <err.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

/* One extent of an id mapping, written CONTAINER:HOST:SIZE. */
struct id_extent {
	unsigned int inside;
	unsigned int outside;
	unsigned int count;
};

static inline void parse_extent(const char *arg, const char *what,
				struct id_extent *e)
{
	char tail;

	if (sscanf(arg, "%u:%u:%u%c", &e->inside, &e->outside, &e->count,
		   &tail) != 3 || e->count == 0 ||
	    e->count > UINT32_MAX - e->outside ||
	    e->count > UINT32_MAX - e->inside)
		errx(2, "%s '%s': expected CONTAINER:HOST:SIZE within 32 bits, e.g. 0:100000:65536",
		     what, arg);
}

/* The arguments of the programs that apply a mapping to a tree. */
struct mapping_args {
	const char *src, *dst;
	struct id_extent uid, gid;
};

/* PROGRAM SRC DST UID_MAP GID_MAP into @a; usage and exit 2 otherwise. */
static inline void parse_mapping_args(int argc, char **argv,
				      const char *program,
				      struct mapping_args *a)
{
	if (argc != 5)
		errx(2, "usage: %s SRC DST UID_MAP GID_MAP (maps: CONTAINER:HOST:SIZE)",
		     program);
	a->src = argv[1];
	a->dst = argv[2];
	parse_extent(argv[3], "UID_MAP", &a->uid);
	parse_extent(argv[4], "GID_MAP", &a->gid);
}

/* Seconds on CLOCK_MONOTONIC, for intervals measured by one process. */
static inline double monotonic_s(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_MONOTONIC, &ts) < 0)
		err(1, "clock_gettime(CLOCK_MONOTONIC)");
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/*
 * PATH/NAME into buf, PATH being relative to ROOT ("." is ROOT itself);
 * ROOT only names the tree in the error.
 */
static inline void join_path(char *buf, size_t size, const char *root,
			     const char *path, const char *name)
{
	int len = strcmp(path, ".") == 0 ?
		snprintf(buf, size, "%s", name) :
		snprintf(buf, size, "%s/%s", path, name);

	if (len < 0 || (size_t)len >= size)
		errx(1, "%s/%s/%s: path too long", root, path, name);
}

#endif /* SHIFTBIND_BENCH_UTIL_H */
