// SPDX-License-Identifier: GPL-2.0
/*
 * configfd_fuzz: the in-guest fuzzer of the configfd syscalls of the
 * shiftbind series (configfd_open 500, configfd_action 501), their
 * "bind", filesystem and "mount" types, and the allow-shift/shift bind
 * mount.  docs/fuzzing.md explains how it is run and how to replay it.
 *
 * It refuses to run unless configfd_probe() finds configfd: a kernel
 * without the series has no syscalls 500 and 501, and one built with
 * other out-of-tree patches may use them for calls of its own.
 *
 * Modes (--mode):
 *   random      random sequences of configfd_open, configfd_action and
 *               read(2) on the log with hostile arguments, interleaved
 *               with valid-looking recipes that reach deep states (bind
 *               mounts, shifts, filesystem instances, reconfiguration),
 *               from one or more threads sharing one pool of fds.
 *   failslab    walks /proc/thread-self/fail-nth over a fixed valid
 *               sequence, so that each allocation of each configfd call
 *               fails once: the call must then fail with ENOMEM (or absorb
 *               the failure), retrying it must behave as documented, and
 *               no fd or mount may be left behind.
 *   shift-race  shifts attached mounts in place while other threads write
 *               through them, unmount them, close the configfd and read
 *               /proc/self/mountinfo, and one thread attacks through them
 *               (itself, or by a host process of the namespace root's ids
 *               reaching them by /proc/PID/root or a passed fd): device
 *               nodes opened, setuid and setgid bits (chmod, creation,
 *               ACLs), file capabilities, shared-mapping writes and overlay
 *               copy-ups, for ids the shift lends.
 *   revoke-race real root revokes a live shift (disallow-shift,revoke) at
 *               a random moment while threads of the user namespace change
 *               files they opened through it before (write, ftruncate,
 *               fchmod, fchown, fremovexattr, FS_IOC_SETFLAGS, F_SETLEASE,
 *               FICLONERANGE, copy_file_range, mmap, mprotect) and open and
 *               create files below a directory they hold: nothing started
 *               after the revocation may succeed but reads and stores
 *               through a mapping writable before it, and nothing on disk
 *               may grant a lent id.
 *
 * Confinement: the process moves to a private mount namespace first
 * (unshare(CLONE_NEWNS), then MS_PRIVATE|MS_REC on /), builds a scratch
 * tree on a tmpfs of its own under /tmp (plus, for the user namespace
 * modes, a directory under /var/tmp, on the guest's ext4, bound into it),
 * and only ever hands the kernel paths and fds from that tree.  Mounts
 * are attached only on the scratch tree's targets.  The superblock-level
 * "mount" type can only reach the scratch tmpfs and instances the fuzzer
 * created itself: the ext4 bind exists only in a user namespace, where
 * reconfiguring the guest's root filesystem is refused.
 *
 * The work runs in a child process (root in a new user namespace with
 * --userns); the parent, real root, sets up and tears down the scratch
 * tree and checks what the child left behind.
 *
 * Reproducibility: every random choice comes from a per-thread generator
 * seeded from --seed and the thread's index, so a single-threaded run
 * makes the same calls again when given the same seed; the interleaving
 * of several threads is not reproducible.  The seed is printed and
 * written to /dev/kmsg before the first call, so that the console log of
 * a run that crashed the kernel names it.
 *
 * Exit status: 0 no problem found, 1 a problem was found (a violated
 * contract, a leaked fd or mount, an implausible error under fault
 * injection, a shift race inconsistency), 2 usage or setup error,
 * 3 refused (no configfd, not root), 4 no fault injection in this kernel.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <getopt.h>
#include <grp.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/vfs.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>

#include <linux/fs.h>
#include <linux/magic.h>

#include "configfd.h"

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

#define EXIT_FOUND	1
#define EXIT_SETUP	2
#define EXIT_REFUSED	3
#define EXIT_NOFAULT	4

#define PAGE_SZ		4096
/* The user namespace of --userns: root there is uid 100000 outside. */
/* Real root's device nodes in the ext4 directory (shift-race's attacker). */
#define RACE_CHR	"chr"
#define RACE_BLK	"blk"
/*
 * Real root's setuid programs in ext4's w/ (shift-race's attacker writes
 * them through a shared mapping): RACE_SUID00 .. RACE_SUID31.
 */
#define RACE_SUID	"suid-"
#define RACE_SUID_FILES	32
/*
 * Real root's programs in ext4's lower/ (the attacker's overlay copies
 * them up into w/): a setuid one, and one with a v2 file capability.
 */
#define RACE_LOWER	"lower"
#define RACE_SUID_PROG	"su"
#define RACE_FCAP_PROG	"ping"
/* Where the attacker mounts its overlay, in the scratch tree. */
#define RACE_OVL	"ovlmnt"

#define USERNS_BASE	100000
#define USERNS_LEN	65536
/* At most this many violations are described; all are counted. */
#define MAX_REPORTED	10

/* ------------------------------------------------------------------ */
/* Options                                                              */

enum mode {
	MODE_RANDOM,
	MODE_FAILSLAB,
	MODE_SHIFT_RACE,
	MODE_REVOKE_RACE,
};

static const char *const mode_names[] = {
	[MODE_RANDOM]		= "random",
	[MODE_FAILSLAB]		= "failslab",
	[MODE_SHIFT_RACE]	= "shift-race",
	[MODE_REVOKE_RACE]	= "revoke-race",
};

static struct options {
	enum mode mode;
	uint64_t seed;
	uint64_t calls;		/* random: total over all threads */
	unsigned int threads;
	unsigned int duration;	/* random: seconds, 0 for no limit */
	unsigned int rounds;	/* shift-race, revoke-race */
	bool userns;
	bool mark;		/* mark the scratch mounts allow-shift */
	bool leak_fd;		/* self-test: leak an fd, which must be found */
} opt = {
	.mode		= MODE_RANDOM,
	.calls		= 20000,
	.threads	= 1,
	.rounds		= 16,
	.mark		= true,
};

/* The exact command line that replays this run. */
static char replay[PATH_MAX + 256];

/* ------------------------------------------------------------------ */
/* Messages                                                             */

static __attribute__((format(printf, 1, 2))) void say(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	flockfile(stdout);
	fputs("configfd_fuzz: ", stdout);
	vfprintf(stdout, fmt, ap);
	fputc('\n', stdout);
	funlockfile(stdout);
	va_end(ap);
}

static __attribute__((format(printf, 1, 2), noreturn)) void
die_setup(const char *fmt, ...)
{
	va_list ap;
	char msg[512];

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	say("setup failed: %s", msg);
	say("reproduce: %s", replay);
	exit(EXIT_SETUP);
}

static atomic_ulong n_violations;

/*
 * A kernel behaviour the contract (the man pages) rules out, a leak, or
 * an inconsistency: counted, the first few described.
 */
static __attribute__((format(printf, 1, 2))) void violation(const char *fmt,
							     ...)
{
	unsigned long n = atomic_fetch_add(&n_violations, 1);
	char msg[1024];
	va_list ap;

	if (n >= MAX_REPORTED)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	say("VIOLATION: %s", msg);
}

static const char *errname(int err)
{
	const char *name = err ? strerrorname_np(err) : "ok";

	return name ? name : "E?";
}

/*
 * Write a line to the kernel log (real root only), so that a console
 * log of a crashed run says which seed and command crashed it.
 */
static __attribute__((format(printf, 1, 2))) void kmsg(const char *fmt, ...)
{
	char msg[1024];
	va_list ap;
	int fd, n;

	va_start(ap, fmt);
	n = vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	fd = open("/dev/kmsg", O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	if (write(fd, msg, n < (int)sizeof(msg) ? (size_t)n : sizeof(msg) - 1) < 0)
		say("cannot write to /dev/kmsg: %s", strerror(errno));
	close(fd);
}

/* ------------------------------------------------------------------ */
/* Random numbers: splitmix64, one generator per thread                 */

struct rng {
	uint64_t s;
};

static uint64_t rng_next(struct rng *r)
{
	uint64_t z = (r->s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* The generator of thread @id: the same seed and id, the same sequence. */
static void rng_init(struct rng *r, uint64_t seed, unsigned int id)
{
	r->s = seed ^ (0x5851f42d4c957f2dULL * (id + 1));
	rng_next(r);
}

static uint32_t rng_below(struct rng *r, uint32_t n)
{
	return n ? (uint32_t)(rng_next(r) % n) : 0;
}

static bool rng_chance(struct rng *r, unsigned int percent)
{
	return rng_below(r, 100) < percent;
}

#define PICK(r, arr)	((arr)[rng_below((r), ARRAY_SIZE(arr))])

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* ------------------------------------------------------------------ */
/* Accounting                                                           */

/* The syscalls a worker issues, counted separately. */
enum sc {
	SC_OPEN,	/* configfd_open */
	SC_ACTION,	/* configfd_action */
	SC_READ,	/* read(2) of a log */
	SC_CLOSE,
	SC_NEWFD,	/* open, pipe2, socketpair, eventfd, dup of pool fds */
	SC_MOVE,	/* move_mount of a result */
	SC_UMOUNT,	/* umount2 of a target */
	SC_MOUNTINFO,	/* a read of /proc/self/mountinfo */
	SC_NR,
};

static const char *const sc_names[SC_NR] = {
	[SC_OPEN]	= "configfd_open",
	[SC_ACTION]	= "configfd_action",
	[SC_READ]	= "read",
	[SC_CLOSE]	= "close",
	[SC_NEWFD]	= "new fd",
	[SC_MOVE]	= "move_mount",
	[SC_UMOUNT]	= "umount2",
	[SC_MOUNTINFO]	= "mountinfo",
};

/* Deep states the valid-looking recipes reached, to show they do. */
enum deep {
	D_BIND_DETACHED,	/* bind CMD_CREATE of a detached mount */
	D_BIND_OPATH,		/* bind CMD_CREATE without "detached" */
	D_BIND_RECONF,		/* bind CMD_RECONFIGURE with a change */
	D_ALLOW_SHIFT,		/* a mount marked allow-shift */
	D_SHIFT_CREATE,		/* a shifted detached bind */
	D_SHIFT_INPLACE,	/* an attached mount shifted in place */
	D_FS_CREATE,		/* a filesystem instance created */
	D_MOUNT_RECONF,		/* a superblock reconfigured */
	D_GET_FD,		/* a result fetched */
	D_ATTACH,		/* a result attached with move_mount */
	D_LOG_MSG,		/* a log message read */
	D_NR,
};

static const char *const deep_names[D_NR] = {
	[D_BIND_DETACHED]	= "bind_detached",
	[D_BIND_OPATH]		= "bind_opath",
	[D_BIND_RECONF]		= "bind_reconfigured",
	[D_ALLOW_SHIFT]		= "allow_shift_set",
	[D_SHIFT_CREATE]	= "shifted_on_create",
	[D_SHIFT_INPLACE]	= "shifted_in_place",
	[D_FS_CREATE]		= "fs_created",
	[D_MOUNT_RECONF]	= "fs_reconfigured",
	[D_GET_FD]		= "results_fetched",
	[D_ATTACH]		= "results_attached",
	[D_LOG_MSG]		= "log_messages_read",
};

/* Slot 0 counts successes, slot e errno e (the last one: anything above). */
#define ERRNO_SLOTS	134

/* The operations of the random mode (ops[]). */
#define N_OPS		15

struct stats {
	uint64_t calls[SC_NR];
	uint64_t res[ERRNO_SLOTS];
	uint64_t deep[D_NR];
	double op_secs[N_OPS];	/* time spent in each operation */
	uint64_t predicted;	/* calls whose outcome the oracle knew */
};

static uint64_t stats_calls(const struct stats *st)
{
	uint64_t n = 0;
	int i;

	for (i = 0; i < SC_NR; i++)
		n += st->calls[i];
	return n;
}

static void stats_add(struct stats *to, const struct stats *from)
{
	int i;

	for (i = 0; i < SC_NR; i++)
		to->calls[i] += from->calls[i];
	for (i = 0; i < ERRNO_SLOTS; i++)
		to->res[i] += from->res[i];
	for (i = 0; i < D_NR; i++)
		to->deep[i] += from->deep[i];
	for (i = 0; i < N_OPS; i++)
		to->op_secs[i] += from->op_secs[i];
	to->predicted += from->predicted;
}

/* Print the calls, the per-errno histogram (most frequent first), the deep states. */
static void stats_print(const struct stats *st, double secs)
{
	char line[2048];
	uint64_t total = stats_calls(st), shown[ERRNO_SLOTS] = { 0 };
	size_t len;
	int i, k;

	len = snprintf(line, sizeof(line), "calls %" PRIu64 " in %.1f s (%.0f/s):",
		       total, secs, secs > 0 ? total / secs : 0.0);
	for (i = 0; i < SC_NR && len < sizeof(line); i++)
		len += snprintf(line + len, sizeof(line) - len, " %s %" PRIu64 "%s",
				sc_names[i], st->calls[i], i + 1 < SC_NR ? "," : "");
	say("%s", line);

	len = snprintf(line, sizeof(line), "results:");
	for (k = 0; k < ERRNO_SLOTS && len < sizeof(line); k++) {
		int best = -1;

		for (i = 0; i < ERRNO_SLOTS; i++)
			if (st->res[i] && !shown[i] &&
			    (best < 0 || st->res[i] > st->res[best]))
				best = i;
		if (best < 0)
			break;
		shown[best] = 1;
		len += snprintf(line + len, sizeof(line) - len, " %s %" PRIu64,
				best == ERRNO_SLOTS - 1 ? "other" : errname(best),
				st->res[best]);
	}
	say("%s", line);

	say("contract: the outcome of %" PRIu64 " calls was known beforehand (errno or must fail); any mismatch is a VIOLATION above",
	    st->predicted);
	len = snprintf(line, sizeof(line), "deep states:");
	for (i = 0; i < D_NR && len < sizeof(line); i++)
		len += snprintf(line + len, sizeof(line) - len, " %s=%" PRIu64,
				deep_names[i], st->deep[i]);
	say("%s", line);
}

/* ------------------------------------------------------------------ */
/* Hostile memory: guard pages, a read-only page, kernel addresses      */

enum ptr_kind {
	PK_VALID,
	PK_NULL,
	PK_GUARD,	/* a PROT_NONE page of ours */
	PK_RDONLY,	/* readable, not writable */
	PK_KERNEL,	/* kernel text and direct map */
	PK_NONCANON,	/* above the user address space */
	PK_LOW,		/* the unmapped first page */
};

static const char *const ptr_kind_names[] = {
	[PK_VALID]	= "valid",
	[PK_NULL]	= "NULL",
	[PK_GUARD]	= "unmapped (guard page)",
	[PK_RDONLY]	= "read-only page",
	[PK_KERNEL]	= "kernel address",
	[PK_NONCANON]	= "non-canonical address",
	[PK_LOW]	= "first page",
};

/*
 * Per thread: strings for keys end at the end of @str, values and
 * buffers at the end of @buf, each followed by a PROT_NONE guard page,
 * so that "unterminated" means "runs into a guard page".
 */
#define BUF_PAGES	3
#define BUF_SZ		(BUF_PAGES * PAGE_SZ)

struct arena {
	char *str;	/* 1 page, then a guard */
	char *guard;
	char *ro;	/* 1 read-only page holding the string "rw" */
	char *buf;	/* BUF_PAGES pages, then a guard */
};

static void arena_init(struct arena *ar)
{
	size_t pages = 1 + 1 + 1 + 1 + BUF_PAGES + 1;
	char *base = mmap(NULL, pages * PAGE_SZ, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (base == MAP_FAILED)
		die_setup("mmap: %s", strerror(errno));
	ar->str = base;
	ar->guard = base + PAGE_SZ;
	ar->ro = base + 2 * PAGE_SZ;
	ar->buf = base + 4 * PAGE_SZ;
	strcpy(ar->ro, "rw");
	if (mprotect(ar->guard, PAGE_SZ, PROT_NONE) ||
	    mprotect(ar->ro, PAGE_SZ, PROT_READ) ||
	    mprotect(ar->ro + PAGE_SZ, PAGE_SZ, PROT_NONE) ||
	    mprotect(ar->buf + BUF_SZ, PAGE_SZ, PROT_NONE))
		die_setup("mprotect: %s", strerror(errno));
}

/* One CONFIGFD_BINARY_MAX blob followed by a guard page, for all threads. */
static char *bigblob;

static void bigblob_init(void)
{
	char *p = mmap(NULL, CONFIGFD_BINARY_MAX + PAGE_SZ, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		die_setup("mmap: %s", strerror(errno));
	/*
	 * Never written: its pages stay the shared zero page (faulting in
	 * 1 MiB costs seconds under TCG), and read-only it cannot take a
	 * GET_FD result either.
	 */
	if (mprotect(p, CONFIGFD_BINARY_MAX, PROT_READ) ||
	    mprotect(p + CONFIGFD_BINARY_MAX, PAGE_SZ, PROT_NONE))
		die_setup("mprotect: %s", strerror(errno));
	bigblob = p;
}

/* A pointer the kernel must refuse to read through (EFAULT). */
static const char *bad_ptr(struct rng *r, const struct arena *ar,
			   enum ptr_kind *pk)
{
	static const uintptr_t kernel[] = {
		0xffffffff81000000UL,	/* kernel text */
		0xffff888000000000UL,	/* direct map */
		0xfffffffffffff000UL,
	};
	static const uintptr_t noncanon[] = {
		0x0000800000000000UL,
		0x8000000000000000UL,
		0xdead000000000000UL,
	};

	switch (rng_below(r, 4)) {
	case 0:
		*pk = PK_GUARD;
		return ar->guard + rng_below(r, PAGE_SZ);
	case 1:
		*pk = PK_KERNEL;
		return (const char *)PICK(r, kernel);
	case 2:
		*pk = PK_NONCANON;
		return (const char *)PICK(r, noncanon);
	default:
		*pk = PK_LOW;
		return (const char *)(uintptr_t)(1 + rng_below(r, PAGE_SZ - 1));
	}
}

/*
 * A string argument and what the kernel can tell about it: where it
 * points, and how many bytes it has before its NUL (or, unterminated,
 * before the guard page).
 */
struct str_arg {
	const char *p;
	enum ptr_kind pk;
	size_t len;
	bool term;
};

static void str_set(struct str_arg *s, const char *p)
{
	s->p = p;
	s->pk = p ? PK_VALID : PK_NULL;
	s->len = p ? strlen(p) : 0;
	s->term = true;
}

/* Copy @len bytes of @src to the end of a region; NUL-terminated or not. */
static void str_place_end(struct str_arg *s, char *region, size_t size,
			  const char *src, size_t len, bool term)
{
	char *p;

	if (len + term > size)
		len = size - term;
	p = region + size - len - term;
	memmove(p, src, len);
	if (term)
		p[len] = '\0';
	s->p = p;
	s->pk = PK_VALID;
	s->len = len;
	s->term = term;
}

/* A run of @len bytes from an alphabet without '/' and '.' at the region's end. */
static void str_random(struct str_arg *s, struct rng *r, char *region,
		       size_t size, size_t len, bool term)
{
	static const char alphabet[] =
		"abcdefghijklmnopqrstuvwxyz-_=,:ABCDEFXYZ0123456789 \t\n\\%\x7f\xff";
	char *p;
	size_t i;

	if (len + term > size)
		len = size - term;
	p = region + size - len - term;
	for (i = 0; i < len; i++)
		p[i] = alphabet[rng_below(r, sizeof(alphabet) - 1)];
	if (term)
		p[len] = '\0';
	s->p = p;
	s->pk = PK_VALID;
	s->len = len;
	s->term = term;
}

/*
 * The errno the kernel must give for copying in @s with a limit of @max
 * bytes including the NUL (strndup_user: CONFIGFD_KEY_MAX, EINVAL;
 * getname: PATH_MAX, ENAMETOOLONG), or 0 if the copy succeeds.
 */
static int str_expect(const struct str_arg *s, size_t max, int toolong)
{
	if (s->pk == PK_NULL)
		return 0;
	if (s->pk != PK_VALID)
		return EFAULT;
	if (!s->term)
		return s->len < max ? EFAULT : toolong;
	return s->len >= max ? toolong : 0;
}

static void str_describe(const struct str_arg *s, char *out, size_t size)
{
	if (s->pk != PK_VALID)
		snprintf(out, size, "%s", ptr_kind_names[s->pk]);
	else if (!s->term)
		snprintf(out, size, "%zu bytes unterminated before a guard page",
			 s->len);
	else if (s->len > 40)
		snprintf(out, size, "%zu-byte string", s->len);
	else
		snprintf(out, size, "\"%.*s\"", (int)s->len, s->p);
}

/*
 * A key, name or value: usually @word (sometimes copied so that its NUL
 * is the last byte before a guard page), else one of the shapes the core
 * must refuse: random, 255 and 256 bytes, unterminated at a guard page,
 * or a pointer it cannot read.
 */
static void str_hostile(struct str_arg *s, struct rng *r, const struct arena *ar,
			char *region, size_t size, const char *word)
{
	unsigned int roll = rng_below(r, 100);

	if (roll < 62) {
		str_set(s, word);
	} else if (roll < 76) {
		str_place_end(s, region, size, word, strlen(word), true);
	} else if (roll < 81) {
		str_random(s, r, region, size, 1 + rng_below(r, 40), true);
	} else if (roll < 84) {
		str_random(s, r, region, size, CONFIGFD_KEY_MAX - 1, true);
	} else if (roll < 87) {
		str_random(s, r, region, size, CONFIGFD_KEY_MAX + rng_below(r, 8), true);
	} else if (roll < 93) {
		/* Part of a valid word, then the guard page: no NUL. */
		str_place_end(s, region, size, word, strlen(word), false);
		if (rng_chance(r, 50))
			str_random(s, r, region, size, 1 + rng_below(r, 300), false);
	} else if (roll < 95) {
		str_set(s, ar->ro);
	} else {
		s->p = bad_ptr(r, ar, &s->pk);
		s->len = 0;
		s->term = false;
	}
}

/* ------------------------------------------------------------------ */
/* The configfd types and their parameters                              */

enum cfd_type {
	T_BIND,
	T_TMPFS,
	T_RAMFS,
	T_PROC,
	T_DEVPTS,
	T_OVERLAY,
	T_EXT4,
	T_MOUNT,
	T_TEST,
	T_BOGUS,
	T_NR,		/* also: not known */
};

/* A SET_STRING parameter; '@' in a value stands for the scratch root. */
struct kv {
	const char *key;
	const char *val;
};

#define OP_CREATE	(1u << CONFIGFD_CMD_CREATE)
#define OP_RECONF	(1u << CONFIGFD_CMD_RECONFIGURE)

struct type_desc {
	const char *name;
	unsigned int weight;		/* how often random opens pick it */
	unsigned int ops;		/* the ops configfd_open accepts */
	const char *fd_key;		/* its SET_FD parameter */
	const char *result;		/* its GET_FD result, if it has one */
	const char *const *flags;	/* SET_FLAG keys */
	size_t nflags;
	const struct kv *opts;		/* SET_STRING keys and values */
	size_t nopts;
	/*
	 * The SET_* commands it takes (the kernel's configfd_type.params),
	 * 0 for all: the others are refused (EINVAL) before anything is
	 * copied in, so a bad pointer is no EFAULT there.
	 */
	unsigned long long params;
};

#define PARAM(cmd)	(1ULL << (cmd))

/*
 * "mand" is left out on purpose: the kernel answers it with a one-time
 * "WARNING: The mand mount option has been deprecated" that is no bug.
 */
static const char *const bind_flags[] = {
	"ro", "rw", "nosuid", "suid", "nodev", "dev", "noexec", "exec",
	"noatime", "relatime", "strictatime", "nodiratime", "diratime",
	"recursive", "detached", "allow-shift", "shift", "bogus", "RO",
};

/*
 * Whom a mark delegates to.  Every valid list names real root, whose user
 * namespaces the workers are in, and "disallow-shift" is left out: a
 * fuzzed withdrawal would end the shifts the run is there to exercise.
 */
static const struct kv bind_opts[] = {
	{ "owner", "0" }, { "owner", "0-65535" }, { "owner", "bogus" },
	{ "owner", "5-3" }, { "owner", "" }, { "bogus", "x" },
};

/* The mount attribute flags of "bind", for the recipes. */
static const char *const bind_attr_flags[] = {
	"ro", "rw", "nosuid", "suid", "nodev", "dev", "noexec", "exec",
	"noatime", "relatime", "strictatime", "nodiratime", "diratime",
	"recursive",
};

static const char *const tmpfs_flags[] = {
	"ro", "rw", "sync", "async", "dirsync", "lazytime", "nolazytime",
	"silent", "inode64", "inode32", "posixacl", "bogus",
};

static const struct kv tmpfs_opts[] = {
	{ "size", "1m" }, { "size", "0" }, { "size", "50%" }, { "size", "-1" },
	{ "size", "99999999999999999999" }, { "nr_inodes", "16" },
	{ "nr_inodes", "0" }, { "nr_blocks", "8" }, { "mode", "0700" },
	{ "mode", "01777" }, { "mode", "8" }, { "uid", "0" },
	{ "uid", "100000" }, { "uid", "-1" }, { "gid", "65534" },
	{ "huge", "never" }, { "huge", "within_size" }, { "huge", "bogus" },
	{ "mpol", "default" }, { "mpol", "bind:0" }, { "mpol", "interleave" },
	{ "mpol", "prefer:9" }, { "source", "fuzz" }, { "bogus", "1" },
};

static const char *const sb_flags[] = {
	"ro", "rw", "sync", "async", "dirsync", "lazytime", "silent", "bogus",
};

static const struct kv ramfs_opts[] = {
	{ "mode", "0755" }, { "mode", "bad" }, { "source", "fuzz" },
};

static const struct kv proc_opts[] = {
	{ "hidepid", "invisible" }, { "hidepid", "2" },
	{ "hidepid", "ptraceable" }, { "hidepid", "9" }, { "subset", "pid" },
	{ "subset", "bogus" }, { "gid", "0" }, { "gid", "-1" },
};

static const char *const devpts_flags[] = {
	"newinstance", "ro", "bogus",
};

static const struct kv devpts_opts[] = {
	{ "mode", "0620" }, { "ptmxmode", "0666" }, { "gid", "5" },
	{ "uid", "0" }, { "max", "16" }, { "max", "-1" },
};

static const char *const overlay_flags[] = {
	"volatile", "userxattr", "ro", "bogus",
};

static const struct kv overlay_opts[] = {
	{ "lowerdir", "@/ovl/lower" }, { "upperdir", "@/ovl/upper" },
	{ "workdir", "@/ovl/work" }, { "lowerdir", "@/ovl/lower:@/dir0" },
	{ "lowerdir", "@/missing" }, { "upperdir", "@/ovl/lower" },
	{ "redirect_dir", "on" }, { "index", "on" }, { "metacopy", "on" },
	{ "xino", "auto" },
};

static const char *const ext4_flags[] = {
	"ro", "dax", "bogus",
};

/* Never a block device: ext4 can only fail to find its source here. */
static const struct kv ext4_opts[] = {
	{ "source", "@/file0" }, { "source", "@/dir0" },
	{ "source", "@/missing" }, { "errors", "remount-ro" },
	{ "data", "journal" }, { "journal_path", "@/file0" },
};

static const char *const mount_flags[] = {
	"ro", "rw", "sync", "async", "lazytime", "bogus",
};

static const struct kv mount_opts[] = {
	{ "size", "2m" }, { "size", "1k" }, { "nr_inodes", "0" },
	{ "mode", "0700" }, { "hidepid", "2" }, { "source", "x" },
};

static const char *const test_flags[] = {
	"ok", "fail", "bogus",
};

static const struct kv test_opts[] = {
	{ "echo", "hello" }, { "echo", "" }, { "bogus", "x" },
};

#define LIST(a)	a, ARRAY_SIZE(a)

static const struct type_desc types[T_NR] = {
	[T_BIND]    = { "bind", 30, OP_CREATE | OP_RECONF, "pathfd", "bindfd",
			LIST(bind_flags), LIST(bind_opts),
			PARAM(CONFIGFD_SET_FLAG) | PARAM(CONFIGFD_SET_STRING) |
			PARAM(CONFIGFD_SET_FD) },
	[T_TMPFS]   = { "tmpfs", 12, OP_CREATE, "source", "mountfd",
			LIST(tmpfs_flags), LIST(tmpfs_opts) },
	[T_RAMFS]   = { "ramfs", 3, OP_CREATE, "source", "mountfd",
			LIST(sb_flags), LIST(ramfs_opts) },
	[T_PROC]    = { "proc", 4, OP_CREATE, "source", "mountfd",
			LIST(sb_flags), LIST(proc_opts) },
	[T_DEVPTS]  = { "devpts", 3, OP_CREATE, "source", "mountfd",
			LIST(devpts_flags), LIST(devpts_opts) },
	[T_OVERLAY] = { "overlay", 3, OP_CREATE, "source", "mountfd",
			LIST(overlay_flags), LIST(overlay_opts) },
	[T_EXT4]    = { "ext4", 2, OP_CREATE, "source", "mountfd",
			LIST(ext4_flags), LIST(ext4_opts) },
	[T_MOUNT]   = { "mount", 10, OP_RECONF, "pathfd", NULL,
			LIST(mount_flags), LIST(mount_opts) },
	[T_TEST]    = { "configfd-test", 10, OP_CREATE | OP_RECONF, "fd", "fd",
			LIST(test_flags), LIST(test_opts) },
	/* No such filesystem: as real root, each open runs modprobe. */
	[T_BOGUS]   = { "no-such-fs", 1, 0, "x", NULL, LIST(sb_flags),
			LIST(test_opts) },
};

/* Every key any type knows, and a few near misses, for random calls. */
static const char *const all_keys[] = {
	"pathfd", "bindfd", "mountfd", "mount_attrs", "source", "size",
	"mode", "uid", "gid", "hidepid", "lowerdir", "upperdir", "workdir",
	"fd", "fail", "ok", "echo", "blob", "path", "int", "detached",
	"recursive", "allow-shift", "shift", "ro", "rw", "", "pathfd ",
	"shift\n", "allow-shift=1", "bindfd\x01",
};

static enum cfd_type pick_type(struct rng *r)
{
	unsigned int total = 0, roll;
	int t;

	for (t = 0; t < T_NR; t++)
		total += types[t].weight;
	roll = rng_below(r, total);
	for (t = 0; t < T_NR; t++) {
		if (roll < types[t].weight)
			return t;
		roll -= types[t].weight;
	}
	return T_BIND;
}

/* An op its type accepts (or, sometimes, the other one). */
static unsigned int pick_op(struct rng *r, enum cfd_type t)
{
	unsigned int ops = t < T_NR ? types[t].ops : 0;

	if (ops == OP_RECONF || (ops & OP_RECONF && rng_chance(r, 40)))
		return rng_chance(r, 95) ? CONFIGFD_CMD_RECONFIGURE : CONFIGFD_CMD_CREATE;
	return rng_chance(r, 95) ? CONFIGFD_CMD_CREATE : CONFIGFD_CMD_RECONFIGURE;
}

/* ------------------------------------------------------------------ */
/* The scratch tree                                                     */

#define N_TARGETS	8

static struct scratch {
	char root[64];		/* a private tmpfs: /tmp/cfdfuzz.XXXXXX */
	char ext4[64];		/* /var/tmp/cfdfuzz.XXXXXX, bound on root/ext4 */
	char target[N_TARGETS][96];	/* where results are attached */
} scratch;

/* Relative to the scratch root, which is every child's working directory. */
static const char *const rel_paths[] = {
	"dir0", "dir0/sub", "file0", "link", "loop", "mnt0", "mnt1", "t3",
	".", "missing", "file0/x", "ext4/d0", "ovl/lower",
};

/* ------------------------------------------------------------------ */
/* Workers and the shared pool of fds                                   */

struct worker {
	unsigned int id;
	struct rng rng;
	struct stats st;
	struct arena ar;
	uint64_t budget;	/* calls to make */
	char tmp[PATH_MAX];	/* expanded values, absolute paths */
	pthread_t thread;
};

/* Count one syscall of @w and its outcome; returns @ret, errno intact. */
static long note(struct worker *w, enum sc sc, long ret)
{
	int slot = 0;

	if (ret < 0)
		slot = errno < ERRNO_SLOTS - 1 ? errno : ERRNO_SLOTS - 1;
	w->st.calls[sc]++;
	w->st.res[slot]++;
	return ret;
}

enum fd_kind {
	FK_CONFIGFD,	/* from configfd_open, or a dup of one */
	FK_RESULT,	/* from GET_FD: a mount, an O_PATH fd, whatever */
	FK_MNTROOT,	/* O_PATH of the root of a mount of the scratch tree */
	FK_PATH,	/* O_PATH of something that is no mount root */
	FK_EXT4,	/* O_PATH inside the ext4 bind (user namespace) */
	FK_DIR,		/* O_RDONLY directory */
	FK_FILE,	/* O_RDONLY regular file */
	FK_PIPE,
	FK_SOCKET,
	FK_EVENTFD,
	FK_NR,
};

static const char *const fd_kind_names[FK_NR] = {
	[FK_CONFIGFD]	= "configfd",
	[FK_RESULT]	= "result",
	[FK_MNTROOT]	= "O_PATH mount root",
	[FK_PATH]	= "O_PATH",
	[FK_EXT4]	= "O_PATH on ext4",
	[FK_DIR]	= "directory",
	[FK_FILE]	= "file",
	[FK_PIPE]	= "pipe",
	[FK_SOCKET]	= "socket",
	[FK_EVENTFD]	= "eventfd",
};

#define FKM(k)		(1u << (k))
#define FK_ANY		(FKM(FK_NR) - 1)
#define FK_SOURCES	(FKM(FK_MNTROOT) | FKM(FK_PATH) | FKM(FK_EXT4) | \
			 FKM(FK_DIR) | FKM(FK_FILE) | FKM(FK_RESULT))

struct slot {
	int fd;
	enum fd_kind kind;
	enum cfd_type type;	/* configfds: the type, else T_NR */
	unsigned int op;	/* configfds: the op */
};

/*
 * All threads share one pool, so that they race on the same fds.  Every
 * fd in it is non-blocking or not readable, so a read(2) of a number
 * another thread closed and reused meanwhile cannot hang.  Only the pool
 * closes its fds, under its lock, so no thread closes an fd it does not
 * own.
 */
#define POOL_SIZE	48
#define RECENT		8

static struct {
	pthread_mutex_t lock;
	struct slot slot[POOL_SIZE];
	unsigned int n;
	int recent[RECENT];	/* numbers closed lately, maybe reused */
	unsigned int recent_pos;
} pool = { .lock = PTHREAD_MUTEX_INITIALIZER };

static void pool_close_locked(struct worker *w, unsigned int i)
{
	int fd = pool.slot[i].fd;

	pool.slot[i] = pool.slot[--pool.n];
	pool.recent[pool.recent_pos++ % RECENT] = fd;
	note(w, SC_CLOSE, close(fd));
}

/* Add @fd; a full pool closes a random other fd to make room. */
static void pool_add(struct worker *w, int fd, enum fd_kind kind,
		     enum cfd_type type, unsigned int op)
{
	pthread_mutex_lock(&pool.lock);
	if (pool.n == POOL_SIZE)
		pool_close_locked(w, rng_below(&w->rng, POOL_SIZE));
	pool.slot[pool.n++] = (struct slot){ fd, kind, type, op };
	pthread_mutex_unlock(&pool.lock);
}

static int pool_index_locked(struct worker *w, unsigned int mask)
{
	unsigned int match[POOL_SIZE], n = 0, i;

	for (i = 0; i < pool.n; i++)
		if (mask & FKM(pool.slot[i].kind))
			match[n++] = i;
	return n ? (int)match[rng_below(&w->rng, n)] : -1;
}

/* A random fd of the kinds in @mask; false if there is none. */
static bool pool_pick(struct worker *w, unsigned int mask, struct slot *out)
{
	int i;

	pthread_mutex_lock(&pool.lock);
	i = pool_index_locked(w, mask);
	if (i >= 0)
		*out = pool.slot[i];
	pthread_mutex_unlock(&pool.lock);
	return i >= 0;
}

static void pool_close_random(struct worker *w, unsigned int mask)
{
	int i;

	pthread_mutex_lock(&pool.lock);
	i = pool_index_locked(w, mask);
	if (i >= 0)
		pool_close_locked(w, i);
	pthread_mutex_unlock(&pool.lock);
}

static int pool_recent(struct worker *w)
{
	int fd;

	pthread_mutex_lock(&pool.lock);
	fd = pool.recent[rng_below(&w->rng, RECENT)];
	pthread_mutex_unlock(&pool.lock);
	return fd;
}

static void pool_drain(struct worker *w)
{
	pthread_mutex_lock(&pool.lock);
	while (pool.n)
		pool_close_locked(w, pool.n - 1);
	pthread_mutex_unlock(&pool.lock);
}

/* ------------------------------------------------------------------ */
/* The contract of configfd_action(2) and configfd_open(2), as oracle   */

/*
 * What the fuzzer knows about an fd argument.  With one thread the pool
 * is exact; with several, another thread may have closed and reused a
 * number, so only numbers that can never be open are known.
 */
struct fdinfo {
	bool known;
	bool open;
	enum fd_kind kind;
	enum cfd_type type;	/* a hint even when not known */
	unsigned int op;
};

static struct fdinfo fdinfo_of(const struct slot *s)
{
	struct fdinfo fi = { .known = opt.threads == 1, .open = true,
			     .kind = s->kind, .type = s->type, .op = s->op };

	/* configfd-test hands back whatever it was given: unknown. */
	if (s->kind == FK_RESULT)
		fi.known = false;
	return fi;
}

/* A number no fd can have: RLIMIT_NOFILE is far below 65536 here. */
static bool fd_never_open(int fd)
{
	return fd < 0 || fd >= 65536;
}

enum val_kind {
	VK_NONE,	/* NULL */
	VK_JUNK,	/* a pointer where NULL is required */
	VK_STR,		/* SET_STRING */
	VK_PATH,	/* SET_PATH, SET_PATH_EMPTY */
	VK_BLOB,	/* SET_BINARY: @room readable bytes at @ptr */
	VK_INTP,	/* GET_FD: @room writable bytes at @ptr */
};

/* One configfd_action call and what the fuzzer knows of its arguments. */
struct act {
	int fd;
	struct fdinfo fi;
	unsigned int cmd;
	struct str_arg key;
	enum val_kind vk;
	struct str_arg val;	/* VK_STR, VK_PATH */
	const void *ptr;	/* VK_JUNK, VK_BLOB, VK_INTP */
	enum ptr_kind pk;
	size_t room;
	int aux;
	struct fdinfo auxfi;	/* SET_FD: what aux is */
};

static const void *act_value(const struct act *a)
{
	switch (a->vk) {
	case VK_NONE:
		return NULL;
	case VK_STR:
	case VK_PATH:
		return a->val.p;
	case VK_JUNK:
	case VK_BLOB:
	case VK_INTP:
		return a->ptr;
	}
	return NULL;
}

/*
 * The shape of each command's arguments as configfd_action(2) states
 * it: checked by the kernel before anything else, so it is the first
 * thing the oracle checks too.
 */
enum aux_rule {
	AUX_ZERO,
	AUX_ANY,
	AUX_SIZE,	/* 1 .. CONFIGFD_BINARY_MAX */
	AUX_DIRFD,	/* AT_FDCWD or >= 0 */
	AUX_FD,		/* >= 0 */
	AUX_FLAGS,	/* 0 or O_CLOEXEC */
};

struct shape {
	bool valid, key, value;
	enum aux_rule aux;
};

static const struct shape shapes[CONFIGFD_GET_FD + 1] = {
	[CONFIGFD_SET_FLAG]		= { true, true, false, AUX_ZERO },
	[CONFIGFD_SET_STRING]		= { true, true, true, AUX_ZERO },
	[CONFIGFD_SET_BINARY]		= { true, true, true, AUX_SIZE },
	[CONFIGFD_SET_PATH]		= { true, true, true, AUX_DIRFD },
	[CONFIGFD_SET_PATH_EMPTY]	= { true, true, true, AUX_DIRFD },
	[CONFIGFD_SET_FD]		= { true, true, false, AUX_FD },
	[CONFIGFD_CMD_CREATE]		= { true, false, false, AUX_ZERO },
	[CONFIGFD_CMD_RECONFIGURE]	= { true, false, false, AUX_ZERO },
	[CONFIGFD_SET_INT]		= { true, true, false, AUX_ANY },
	[CONFIGFD_GET_FD]		= { true, true, true, AUX_FLAGS },
};

static const struct shape *shape_of(unsigned int cmd)
{
	if (cmd >= ARRAY_SIZE(shapes) || !shapes[cmd].valid)
		return NULL;
	return &shapes[cmd];
}

static bool aux_ok(enum aux_rule rule, int aux)
{
	switch (rule) {
	case AUX_ZERO:
		return aux == 0;
	case AUX_ANY:
		return true;
	case AUX_SIZE:
		return aux > 0 && aux <= CONFIGFD_BINARY_MAX;
	case AUX_DIRFD:
		return aux == AT_FDCWD || aux >= 0;
	case AUX_FD:
		return aux >= 0;
	case AUX_FLAGS:
		return (aux & ~O_CLOEXEC) == 0;
	}
	return false;
}

static bool shape_ok(const struct act *a, const struct shape *sh)
{
	return !a->key.p == !sh->key && !act_value(a) == !sh->value &&
	       aux_ok(sh->aux, a->aux);
}

/*
 * A value of another kind than the command takes (a mutated call): only
 * an unreadable pointer is sure to fail.
 */
static int ptr_expect(const struct act *a)
{
	enum ptr_kind pk = a->vk == VK_STR || a->vk == VK_PATH ? a->val.pk : a->pk;

	return a->vk != VK_NONE && pk != PK_VALID && pk != PK_RDONLY ? EFAULT : 0;
}

/* The errno copying in @a's value must give, 0 if it copies in. */
static int value_expect(const struct act *a)
{
	int err;

	switch (a->cmd) {
	case CONFIGFD_SET_STRING:
		if (a->vk != VK_STR)
			return ptr_expect(a);
		return str_expect(&a->val, CONFIGFD_KEY_MAX, EINVAL);
	case CONFIGFD_SET_PATH:
	case CONFIGFD_SET_PATH_EMPTY:
		if (a->vk != VK_PATH)
			return ptr_expect(a);
		err = str_expect(&a->val, PATH_MAX, ENAMETOOLONG);
		if (!err && a->cmd == CONFIGFD_SET_PATH && a->val.len == 0)
			err = ENOENT;
		return err;
	case CONFIGFD_SET_BINARY:
		if (a->vk != VK_BLOB)
			return ptr_expect(a);
		return a->pk != PK_VALID || (size_t)a->aux > a->room ? EFAULT : 0;
	case CONFIGFD_SET_FD:
		if (fd_never_open(a->aux) || (a->auxfi.known && !a->auxfi.open))
			return EBADF;
		/* A configfd would let a type keep a configfd, or itself, alive. */
		return a->auxfi.known && a->auxfi.kind == FK_CONFIGFD ? EINVAL : 0;
	default:
		return 0;
	}
}

/*
 * The errno configfd_action(2) must return for @a, in the order its
 * ERRORS section gives, as far as the fuzzer can tell; 0 when it
 * depends on the type or the state of the context.
 */
static int action_expect(const struct act *a)
{
	const struct shape *sh = shape_of(a->cmd);
	bool is_cmd;
	int err;

	if (!sh)
		return EOPNOTSUPP;
	if (!shape_ok(a, sh))
		return EINVAL;
	if (fd_never_open(a->fd))
		return EBADF;
	if (!a->fi.known)
		return 0;
	if (!a->fi.open)
		return EBADF;
	if (a->fi.kind != FK_CONFIGFD)
		return EINVAL;
	is_cmd = a->cmd == CONFIGFD_CMD_CREATE ||
		 a->cmd == CONFIGFD_CMD_RECONFIGURE;
	if (is_cmd && a->cmd != a->fi.op)
		return EOPNOTSUPP;
	if (a->cmd == CONFIGFD_GET_FD && a->fi.type < T_NR &&
	    !types[a->fi.type].result)
		return EOPNOTSUPP;
	if (!is_cmd && a->cmd != CONFIGFD_GET_FD && a->fi.type < T_NR &&
	    types[a->fi.type].params && !(types[a->fi.type].params & PARAM(a->cmd)))
		return EINVAL;
	err = str_expect(&a->key, CONFIGFD_KEY_MAX, EINVAL);
	return err ? err : value_expect(a);
}

/* Whatever the fd: a call that reads or writes through these cannot succeed. */
static bool action_cannot_succeed(const struct act *a)
{
	if (str_expect(&a->key, CONFIGFD_KEY_MAX, EINVAL))
		return true;
	if (a->cmd == CONFIGFD_GET_FD)
		return a->vk == VK_INTP &&
		       (a->pk != PK_VALID || a->room < sizeof(int));
	return value_expect(a) != 0;
}

static void act_describe(const struct act *a, char *out, size_t size)
{
	char key[64], val[64], fd[64];
	const char *kind = "unknown fd";

	if (a->fi.known && !a->fi.open)
		kind = "closed";
	else if (a->fi.known)
		kind = fd_kind_names[a->fi.kind];
	if (a->fi.known && a->fi.kind == FK_CONFIGFD && a->fi.type < T_NR)
		snprintf(fd, sizeof(fd), "%d [%s %s/%s]", a->fd, kind,
			 types[a->fi.type].name,
			 a->fi.op == CONFIGFD_CMD_CREATE ? "CREATE" : "RECONFIGURE");
	else
		snprintf(fd, sizeof(fd), "%d [%s]", a->fd, kind);
	str_describe(&a->key, key, sizeof(key));
	if (a->vk == VK_STR || a->vk == VK_PATH)
		str_describe(&a->val, val, sizeof(val));
	else if (a->vk == VK_NONE)
		snprintf(val, sizeof(val), "NULL");
	else
		snprintf(val, sizeof(val), "%s pointer, %zu bytes of room",
			 ptr_kind_names[a->pk], a->room);
	snprintf(out, size, "configfd_action(fd %s, %s (%u), key %s, value %s, aux %d)",
		 fd, configfd_cmd_name(a->cmd), a->cmd, key, val, a->aux);
}

/* Check @a's outcome; returns whether the contract predicted it. */
static bool action_check(const struct act *a, int ret, int err)
{
	int want = action_expect(a);
	bool must_fail = action_cannot_succeed(a);
	char desc[512];

	if (ret != 0 && ret != -1) {
		act_describe(a, desc, sizeof(desc));
		violation("%s returned %d, not 0 or -1", desc, ret);
	} else if (want && (ret != -1 || err != want)) {
		act_describe(a, desc, sizeof(desc));
		violation("%s = %s, expected %s", desc, ret ? errname(err) : "0",
			  errname(want));
	} else if (ret == 0 && must_fail) {
		act_describe(a, desc, sizeof(desc));
		violation("%s succeeded", desc);
	}
	return want || must_fail;
}

/* Is @s exactly the name of a type? */
static enum cfd_type type_named(const struct str_arg *s)
{
	int t;

	if (s->pk != PK_VALID || !s->term)
		return T_NR;
	for (t = 0; t < T_NR; t++)
		if (strcmp(s->p, types[t].name) == 0)
			return t;
	return T_NR;
}

/*
 * What configfd_open(2) must return: an errno, 0 if it cannot be told,
 * or -1 for "must succeed".  The child is root in its mount namespace's
 * user namespace, so no EPERM is due.
 */
static int open_expect(const struct str_arg *name, unsigned int flags,
		       unsigned int op)
{
	enum cfd_type t;
	int err;

	if (flags & ~O_CLOEXEC)
		return EINVAL;
	if (op != CONFIGFD_CMD_CREATE && op != CONFIGFD_CMD_RECONFIGURE)
		return EINVAL;
	err = str_expect(name, CONFIGFD_KEY_MAX, EINVAL);
	if (err || !name->p)
		return err ? err : EFAULT;
	t = type_named(name);
	if (t == T_NR)
		return 0;
	if (!types[t].ops)
		return ENODEV;
	return types[t].ops & (1u << op) ? -1 : EOPNOTSUPP;
}

/* ------------------------------------------------------------------ */
/* Arguments                                                            */

/* '@' in @val stands for the scratch root; the result is in w->tmp. */
static const char *expand(struct worker *w, const char *val)
{
	size_t len = 0, room = sizeof(w->tmp) - 1;
	const char *p;

	for (p = val; *p && len < room; p++) {
		if (*p == '@')
			len += snprintf(w->tmp + len, room - len, "%s", scratch.root);
		else
			w->tmp[len++] = *p;
	}
	w->tmp[len < room ? len : room] = '\0';
	return w->tmp;
}

/* Numbers that are no open fd: stale, impossible, or AT_FDCWD. */
static const int hostile_fds[] = {
	-1, AT_FDCWD, INT_MIN, INT_MAX, 1 << 20, 65536, 1023,
};

/* The fd a call goes to: mostly from the pool, sometimes stale or impossible. */
static void pick_fd(struct worker *w, unsigned int mask, int *fd,
		    struct fdinfo *fi)
{
	unsigned int roll = rng_below(&w->rng, 100);
	struct slot s;

	memset(fi, 0, sizeof(*fi));
	fi->type = T_NR;
	if (roll < 88 && (pool_pick(w, mask, &s) || pool_pick(w, FK_ANY, &s))) {
		*fd = s.fd;
		*fi = fdinfo_of(&s);
		return;
	}
	*fd = roll < 94 ? pool_recent(w) : PICK(&w->rng, hostile_fds);
	fi->known = fd_never_open(*fd);
}

/* An fd argument (SET_FD, a SET_PATH dirfd), and what the fuzzer knows of it. */
static int pick_aux_fd(struct worker *w, unsigned int mask, struct fdinfo *fi)
{
	unsigned int roll = rng_below(&w->rng, 100);
	struct slot s;
	int fd;

	memset(fi, 0, sizeof(*fi));
	fi->type = T_NR;
	if (roll < 80 && pool_pick(w, mask, &s)) {
		*fi = fdinfo_of(&s);
		return s.fd;
	}
	fd = roll < 88 ? pool_recent(w) : PICK(&w->rng, hostile_fds);
	fi->known = fd_never_open(fd);
	return fd;
}

/* Mostly commands that exist; also the reserved gap, and far beyond. */
static unsigned int pick_cmd(struct rng *r)
{
	static const unsigned int valid[] = {
		CONFIGFD_SET_FLAG, CONFIGFD_SET_FLAG, CONFIGFD_SET_STRING,
		CONFIGFD_SET_BINARY, CONFIGFD_SET_PATH, CONFIGFD_SET_PATH_EMPTY,
		CONFIGFD_SET_FD, CONFIGFD_SET_FD, CONFIGFD_CMD_CREATE,
		CONFIGFD_CMD_RECONFIGURE, CONFIGFD_SET_INT, CONFIGFD_GET_FD,
		CONFIGFD_GET_FD,
	};
	static const unsigned int huge[] = {
		0xffffffffu, 0x80000000u, 0x7fffffffu, 0xfffffffeu, 0x10000u,
		CONFIGFD_GET_FD + 1,
	};
	unsigned int roll = rng_below(r, 100);

	if (roll < 88)
		return PICK(r, valid);
	if (roll < 94)
		return CONFIGFD_CMD_RECONFIGURE + 1 + rng_below(r, 30);
	if (roll < 97)
		return CONFIGFD_GET_FD + 1 + rng_below(r, 1000);
	return PICK(r, huge);
}

static int hostile_int(struct rng *r)
{
	static const int v[] = {
		0, 1, -1, AT_FDCWD, INT_MIN, INT_MAX, O_CLOEXEC, O_CLOEXEC | 1,
		CONFIGFD_BINARY_MAX, CONFIGFD_BINARY_MAX + 1, 0x7f,
	};

	return rng_chance(r, 85) ? PICK(r, v) : (int)rng_next(r);
}

/* mount_attrs: valid combinations, two atime settings, idmap, junk. */
static int pick_mount_attrs(struct rng *r)
{
	static const int v[] = {
		0, MOUNT_ATTR_RDONLY,
		MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV | MOUNT_ATTR_NOEXEC,
		MOUNT_ATTR_NOATIME, MOUNT_ATTR_STRICTATIME,
		MOUNT_ATTR_NODIRATIME, MOUNT_ATTR_NOSYMFOLLOW,
		MOUNT_ATTR_NOATIME | MOUNT_ATTR_STRICTATIME, MOUNT_ATTR_IDMAP,
		0x40, -1, INT_MIN,
	};

	return PICK(r, v);
}

/* The word a key of @cmd would be for type @t (and a SET_STRING value). */
static const char *key_word(struct rng *r, enum cfd_type t, unsigned int cmd,
			    const char **val)
{
	const struct type_desc *d = &types[t < T_NR ? t : T_BIND];
	const struct kv *kv;

	*val = "1";
	if (t >= T_NR || rng_chance(r, 12))
		return PICK(r, all_keys);
	switch (cmd) {
	case CONFIGFD_SET_FLAG:
		return d->flags[rng_below(r, d->nflags)];
	case CONFIGFD_SET_STRING:
		if (!d->nopts)
			return PICK(r, all_keys);
		kv = &d->opts[rng_below(r, d->nopts)];
		*val = kv->val;
		return kv->key;
	case CONFIGFD_SET_FD:
		return d->fd_key;
	case CONFIGFD_SET_INT:
		return t == T_TEST ? "int" : "mount_attrs";
	case CONFIGFD_SET_PATH:
	case CONFIGFD_SET_PATH_EMPTY:
		return t == T_TEST ? "path" : "source";
	case CONFIGFD_SET_BINARY:
		return t == T_TEST ? "blob" : "source";
	case CONFIGFD_GET_FD:
		return d->result ? d->result : "mountfd";
	default:
		return PICK(r, all_keys);
	}
}

/* The key: usually of the shape the command needs, made hostile at times. */
static void pick_key(struct worker *w, struct act *a, const char *word)
{
	const struct shape *sh = shape_of(a->cmd);
	bool give = sh ? sh->key : rng_chance(&w->rng, 50);

	if (rng_chance(&w->rng, 3))
		give = !give;
	if (!give)
		str_set(&a->key, NULL);
	else
		str_hostile(&a->key, &w->rng, &w->ar, w->ar.str, PAGE_SZ, word);
}

/*
 * A SET_PATH value: a path of the scratch tree (absolute, or relative to
 * it, the working directory), empty, too long, unterminated, unreadable.
 */
static void pick_path(struct worker *w, struct str_arg *s)
{
	static const size_t long_lens[] = { PATH_MAX - 1, PATH_MAX, PATH_MAX + 100 };
	unsigned int roll = rng_below(&w->rng, 100);
	size_t len, i;
	char *p;

	if (roll < 40) {
		snprintf(w->tmp, sizeof(w->tmp), "%s/%s", scratch.root,
			 PICK(&w->rng, rel_paths));
		str_set(s, w->tmp);
	} else if (roll < 70) {
		str_set(s, PICK(&w->rng, rel_paths));
	} else if (roll < 76) {
		str_set(s, "");
	} else if (roll < 82) {
		/* "aaa/aaa/...": components the kernel walks, a total it may refuse. */
		len = PICK(&w->rng, long_lens);
		p = w->ar.buf + BUF_SZ - len - 1;
		for (i = 0; i < len; i++)
			p[i] = i % 200 == 199 ? '/' : 'a';
		p[len] = '\0';
		s->p = p;
		s->pk = PK_VALID;
		s->len = len;
		s->term = true;
	} else if (roll < 92) {
		str_random(s, &w->rng, w->ar.buf, BUF_SZ,
			   1 + rng_below(&w->rng, PATH_MAX + 64), false);
	} else {
		s->p = bad_ptr(&w->rng, &w->ar, &s->pk);
		s->len = 0;
		s->term = false;
	}
}

/* A SET_BINARY blob and its size: fitting, overrunning, 1 MiB, or unreadable. */
static void pick_blob(struct worker *w, struct act *a)
{
	static const int bad_sizes[] = { 0, -1, CONFIGFD_BINARY_MAX + 1, INT_MIN };
	struct rng *r = &w->rng;
	unsigned int roll = rng_below(r, 100);
	size_t n;

	a->pk = PK_VALID;
	if (roll < 70) {
		n = 1 + rng_below(r, 256);
		a->ptr = w->ar.buf + BUF_SZ - n;
		memset(w->ar.buf + BUF_SZ - n, (int)rng_below(r, 256), n);
		a->room = n;
		a->aux = n;
	} else if (roll < 78) {
		a->ptr = w->ar.buf;
		a->room = a->aux = BUF_SZ;
	} else if (roll < 85) {
		n = 1 + rng_below(r, 64);
		a->ptr = w->ar.buf + BUF_SZ - n;
		a->room = n;
		a->aux = n + 1 + rng_below(r, PAGE_SZ);
	} else if (roll < 87) {
		a->ptr = bigblob;
		a->room = a->aux = CONFIGFD_BINARY_MAX;
	} else if (roll < 93) {
		a->ptr = w->ar.buf;
		a->room = BUF_SZ;
		a->aux = PICK(r, bad_sizes);
	} else {
		a->ptr = bad_ptr(r, &w->ar, &a->pk);
		a->room = 0;
		a->aux = 1 + rng_below(r, 64);
	}
}

/* Where GET_FD writes the fd: aligned or not, across a guard, read-only, unmapped. */
static void pick_intp(struct worker *w, struct act *a)
{
	unsigned int roll = rng_below(&w->rng, 100);
	size_t off;

	a->pk = PK_VALID;
	if (roll < 84) {
		off = sizeof(int) * rng_below(&w->rng, 64);
		a->ptr = w->ar.buf + off;
		a->room = BUF_SZ - off;
	} else if (roll < 87) {
		a->ptr = w->ar.buf + 1;
		a->room = BUF_SZ - 1;
	} else if (roll < 92) {
		a->ptr = w->ar.buf + BUF_SZ - 2;
		a->room = 2;
	} else if (roll < 96) {
		a->ptr = w->ar.ro;
		a->pk = PK_RDONLY;
		a->room = 0;
	} else {
		a->ptr = bad_ptr(&w->rng, &w->ar, &a->pk);
		a->room = 0;
	}
}

/* The value of @a->cmd; @strval is the SET_STRING value that goes with the key. */
static void pick_value(struct worker *w, struct act *a, const char *strval)
{
	struct rng *r = &w->rng;

	a->vk = VK_NONE;
	switch (a->cmd) {
	case CONFIGFD_SET_STRING:
		a->vk = VK_STR;
		str_hostile(&a->val, r, &w->ar, w->ar.buf, BUF_SZ, expand(w, strval));
		break;
	case CONFIGFD_SET_PATH:
	case CONFIGFD_SET_PATH_EMPTY:
		a->vk = VK_PATH;
		pick_path(w, &a->val);
		break;
	case CONFIGFD_SET_BINARY:
		a->vk = VK_BLOB;
		pick_blob(w, a);
		break;
	case CONFIGFD_GET_FD:
		a->vk = VK_INTP;
		pick_intp(w, a);
		break;
	default:
		/* A pointer where NULL is required: refused by its shape. */
		if (rng_chance(r, 4)) {
			a->vk = VK_JUNK;
			a->ptr = w->ar.buf;
			a->pk = PK_VALID;
			a->room = BUF_SZ;
		}
		return;
	}
	/* No value where one is required: refused by its shape. */
	if (rng_chance(r, 3))
		a->vk = VK_NONE;
}

static void pick_aux(struct worker *w, struct act *a)
{
	struct rng *r = &w->rng;

	switch (a->cmd) {
	case CONFIGFD_SET_BINARY:
		if (a->vk != VK_BLOB)
			a->aux = 1 + rng_below(r, 64);
		return;		/* else pick_blob() chose it */
	case CONFIGFD_SET_FD:
		a->aux = pick_aux_fd(w, FK_ANY, &a->auxfi);
		return;
	case CONFIGFD_SET_PATH:
	case CONFIGFD_SET_PATH_EMPTY:
		a->aux = rng_chance(r, 50) ? AT_FDCWD : pick_aux_fd(w, FK_ANY, &a->auxfi);
		return;
	case CONFIGFD_SET_INT:
		a->aux = pick_mount_attrs(r);
		return;
	case CONFIGFD_GET_FD:
		a->aux = rng_chance(r, 92) ? (rng_chance(r, 50) ? O_CLOEXEC : 0) :
					     hostile_int(r);
		return;
	default:
		a->aux = rng_chance(r, 95) ? 0 : hostile_int(r);
		return;
	}
}

/* ------------------------------------------------------------------ */
/* The calls, each counted and checked against the contract             */

/* Memory of @w that GET_FD may legitimately write an fd number to. */
static bool worker_memory(const struct worker *w, const void *p, size_t n)
{
	const char *c = p;

	return (c >= w->ar.str && c + n <= w->ar.str + PAGE_SZ) ||
	       (c >= w->ar.buf && c + n <= w->ar.buf + BUF_SZ) ||
	       (c >= w->tmp && c + n <= w->tmp + sizeof(w->tmp));
}

/* A new fd that GET_FD handed back: it must be open; it joins the pool. */
static int adopt_result(struct worker *w, const void *where)
{
	int fd;

	if (!worker_memory(w, where, sizeof(fd))) {
		violation("GET_FD succeeded writing its fd to %p, memory that is not writable",
			  where);
		return -1;
	}
	memcpy(&fd, where, sizeof(fd));
	if (fcntl(fd, F_GETFD) < 0) {
		violation("GET_FD reported fd %d, which is not open", fd);
		return -1;
	}
	w->st.deep[D_GET_FD]++;
	pool_add(w, fd, FK_RESULT, T_NR, 0);
	return fd;
}

/*
 * Issue @a, count and check it.  Returns its result with errno intact; a
 * fetched fd joins the pool and is also stored in *@newfd.
 */
static int do_action(struct worker *w, const struct act *a, int *newfd)
{
	int ret, err, fd = -1;

	ret = sys_configfd_action(a->fd, a->cmd, a->key.p,
				  (void *)act_value(a), a->aux);
	err = errno;
	note(w, SC_ACTION, ret);
	w->st.predicted += action_check(a, ret, err);
	if (ret == 0 && a->cmd == CONFIGFD_GET_FD)
		fd = adopt_result(w, act_value(a));
	if (newfd)
		*newfd = fd;
	errno = err;
	return ret;
}

static int do_open(struct worker *w, const struct str_arg *name,
		   unsigned int flags, unsigned int op)
{
	int want = open_expect(name, flags, op), fd, err;
	char desc[64];

	fd = sys_configfd_open(name->p, flags, op);
	err = errno;
	note(w, SC_OPEN, fd);
	w->st.predicted += want != 0;
	if (fd < -1 || (want > 0 && (fd != -1 || err != want)) ||
	    (want < 0 && fd < 0)) {
		str_describe(name, desc, sizeof(desc));
		violation("configfd_open(name %s, flags %#x, op %u) = %s, expected %s",
			  desc, flags, op, fd >= 0 ? "an fd" : errname(err),
			  want > 0 ? errname(want) : "an fd");
	}
	errno = err;
	return fd;
}

/* "e bind: ...\n", "w ...", "i ...", or the one the log stores on ENOMEM. */
static bool log_message_ok(const char *m, size_t n)
{
	static const char oom[] = "OOM: Can't store error string";

	if (n == sizeof(oom) - 1 && memcmp(m, oom, n) == 0)
		return true;
	return n >= 3 && m[0] && strchr("ewi", m[0]) && m[1] == ' ' &&
	       m[n - 1] == '\n' && !memchr(m, '\0', n);
}

struct rd {
	int fd;
	const struct fdinfo *fi;
	const char *buf;
	size_t len;
	size_t room;		/* writable bytes at buf */
	enum ptr_kind pk;
};

static void read_check(struct worker *w, const struct rd *rd, ssize_t n, int err)
{
	bool configfd = rd->fi->known && rd->fi->open &&
			rd->fi->kind == FK_CONFIGFD;

	if (n > (ssize_t)rd->len || (n > 0 && (size_t)n > rd->room)) {
		violation("read(fd %d, %s buffer with %zu bytes of room, %zu) = %zd",
			  rd->fd, ptr_kind_names[rd->pk], rd->room, rd->len, n);
		return;
	}
	if (!configfd)
		return;
	if (n == 0)
		violation("read of configfd %d returned 0", rd->fd);
	else if (n > 0 && !log_message_ok(rd->buf, n))
		violation("read of configfd %d returned a malformed message '%.*s'",
			  rd->fd, (int)n, rd->buf);
	else if (n < 0 && err != ENODATA && err != EMSGSIZE && err != EFAULT)
		violation("read of configfd %d failed with %s", rd->fd, errname(err));
	else if (n < 0 && err == EFAULT && rd->pk == PK_VALID && rd->room >= rd->len)
		violation("read of configfd %d into a valid buffer failed with EFAULT",
			  rd->fd);
	if (n > 0)
		w->st.deep[D_LOG_MSG]++;
}

/*
 * read(2) an fd with a random size: 0, tiny, large; into good and bad
 * buffers.  Returns 0 or the errno.
 */
/*
 * Any read(2) may hit a file the fuzzer itself is reading: a number
 * picked as stale, or a pooled fd another thread has closed since, may
 * meanwhile belong to a slurp().  The read would take bytes from the
 * middle of that text, and the torn line would be reported as a fault
 * of the kernel's.  So slurp() reads alone: fuzzing reads hold this
 * lock shared, slurp() exclusively (preferring the writer, which the
 * many readers would otherwise starve).  Everything but read(2) runs
 * on while a slurp() reads, the mount changes it must survive included.
 */
static pthread_rwlock_t read_lock =
	PTHREAD_RWLOCK_WRITER_NONRECURSIVE_INITIALIZER_NP;

static int do_read(struct worker *w, int fd, const struct fdinfo *fi)
{
	static const size_t sizes[] = {
		0, 1, 2, 3, 8, 16, 31, 64, 128, 255, 256, 1024, BUF_SZ,
	};
	struct rd rd = { .fd = fd, .fi = fi, .pk = PK_VALID };
	unsigned int roll = rng_below(&w->rng, 100);
	ssize_t n;
	int err;

	rd.len = rd.room = PICK(&w->rng, sizes);
	rd.buf = w->ar.buf + BUF_SZ - rd.len;
	if (roll < 6) {
		/* Less room than the size says: the copy runs into a guard. */
		rd.room = rng_below(&w->rng, 8);
		rd.buf = w->ar.buf + BUF_SZ - rd.room;
	} else if (roll < 10) {
		rd.buf = w->ar.ro;
		rd.pk = PK_RDONLY;
		rd.room = 0;
	} else if (roll < 14) {
		rd.buf = bad_ptr(&w->rng, &w->ar, &rd.pk);
		rd.room = 0;
	}
	pthread_rwlock_rdlock(&read_lock);
	n = read(fd, (char *)rd.buf, rd.len);
	err = n < 0 ? errno : 0;
	pthread_rwlock_unlock(&read_lock);
	note(w, SC_READ, n);
	read_check(w, &rd, n, err);
	return err;
}

static int open_into_pool(struct worker *w, const char *path, int flags,
			  enum fd_kind kind)
{
	int fd = note(w, SC_NEWFD, open(path, flags | O_CLOEXEC));

	if (fd >= 0)
		pool_add(w, fd, kind, T_NR, 0);
	return fd;
}

/* ------------------------------------------------------------------ */
/* Mount tables                                                         */

struct mnt_entry {
	int id, parent;
	char point[256];
	char opts[256];
};

/* A mount table; it grows as needed (free it with mntset_free()). */
struct mntset {
	unsigned int n, cap;
	struct mnt_entry *e;
};

static void mntset_add(struct mntset *s, const struct mnt_entry *e)
{
	if (s->n == s->cap) {
		unsigned int cap = s->cap ? 2 * s->cap : 64;
		struct mnt_entry *bigger = realloc(s->e, cap * sizeof(*bigger));

		if (!bigger)
			die_setup("out of memory");
		s->e = bigger;
		s->cap = cap;
	}
	s->e[s->n++] = *e;
}

static void mntset_free(struct mntset *s)
{
	free(s->e);
	memset(s, 0, sizeof(*s));
}

/* The mounts of the child's namespace when it started: never moved. */
static struct mntset *base_mounts;

static char *slurp_alone(const char *path)
{
	size_t len = 0, cap = 16384;
	char *buf = malloc(cap);
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || !buf) {
		free(buf);
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	while ((n = read(fd, buf + len, cap - len - 1)) > 0) {
		len += n;
		if (cap - len < 4096) {
			char *bigger = realloc(buf, cap * 2);

			if (!bigger)
				break;
			buf = bigger;
			cap *= 2;
		}
	}
	close(fd);
	buf[len] = '\0';
	return buf;
}

/* The whole of @path, NUL-terminated; NULL with errno set on failure. */
static char *slurp(const char *path)
{
	char *text;
	int err;

	pthread_rwlock_wrlock(&read_lock);
	text = slurp_alone(path);
	err = errno;
	pthread_rwlock_unlock(&read_lock);
	errno = err;
	return text;
}

/* The mount options of 6.1's show_mnt_opts() and of the series. */
static bool opts_ok(const char *opts, char *why, size_t size)
{
	static const char *const known[] = {
		"nosuid", "nodev", "noexec", "noatime", "nodiratime",
		"relatime", "nosymfollow", "idmapped", "allow-shift", "shift",
		"shift-suid",	/* after a mark's owners: its shifts honour setuid */
	};
	char copy[256], *tok, *save = NULL;
	bool idmapped = strstr(opts, ",idmapped") != NULL;
	bool first = true;
	size_t i;

	snprintf(copy, sizeof(copy), "%s", opts);
	for (tok = strtok_r(copy, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save), first = false) {
		if (first) {
			if (strcmp(tok, "rw") && strcmp(tok, "ro"))
				break;
			continue;
		}
		for (i = 0; i < ARRAY_SIZE(known); i++)
			if (strcmp(tok, known[i]) == 0)
				break;
		/* A mark shows its owners: "allow-shift=0:1000-1999". */
		if (i == ARRAY_SIZE(known) && strncmp(tok, "allow-shift=", 12) == 0 &&
		    tok[12] && strspn(tok + 12, "0123456789-:") == strlen(tok + 12))
			continue;
		if (i == ARRAY_SIZE(known))
			break;
		if (strcmp(tok, "shift") == 0 && !idmapped) {
			snprintf(why, size, "options '%s' say shift but not idmapped", opts);
			return false;
		}
	}
	if (tok) {
		snprintf(why, size, "unexpected option '%s' in '%s'", tok, opts);
		return false;
	}
	return true;
}

static bool mnt_parse(const char *line, struct mnt_entry *e, char *why,
		      size_t size)
{
	if (sscanf(line, "%d %d %*s %*s %255s %255s", &e->id, &e->parent,
		   e->point, e->opts) != 4 || !strstr(line, " - ")) {
		snprintf(why, size, "unparseable line '%.200s'", line);
		return false;
	}
	return opts_ok(e->opts, why, size);
}

static const struct mnt_entry *mntset_find(const struct mntset *s, int id)
{
	unsigned int i;

	for (i = 0; i < s->n; i++)
		if (s->e[i].id == id)
			return &s->e[i];
	return NULL;
}

/* A table read in one go, while nothing changes: whole and consistent. */
static bool mntset_consistent(const struct mntset *s, char *why, size_t size)
{
	unsigned int i, j;

	for (i = 0; i < s->n; i++) {
		const struct mnt_entry *e = &s->e[i];

		for (j = 0; j < i; j++)
			if (s->e[j].id == e->id) {
				snprintf(why, size, "mount id %d appears twice", e->id);
				return false;
			}
		if (!mntset_find(s, e->parent) && strcmp(e->point, "/")) {
			snprintf(why, size, "parent %d of mount %d on %s is missing",
				 e->parent, e->id, e->point);
			return false;
		}
	}
	return true;
}

/*
 * Check mountinfo @text: every line parses and has options that make
 * sense; with @strict (nothing was changing), the table is consistent.
 * @out, if not NULL, gets the table.  On a problem, @why says what.
 */
static bool mountinfo_check(char *text, bool strict, struct mntset *out,
			    char *why, size_t size)
{
	struct mnt_entry e;
	char *line, *save = NULL;

	if (out)
		out->n = 0;
	for (line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		if (!mnt_parse(line, &e, why, size))
			return false;
		if (out)
			mntset_add(out, &e);
	}
	return !strict || !out || mntset_consistent(out, why, size);
}

/* Read this namespace's table while it is quiet; false on a problem. */
static bool mntset_read(struct mntset *s, char *why, size_t size)
{
	char *text = slurp("/proc/self/mountinfo");
	bool ok;

	if (!text) {
		snprintf(why, size, "cannot read /proc/self/mountinfo: %s",
			 strerror(errno));
		return false;
	}
	ok = mountinfo_check(text, true, s, why, size);
	free(text);
	return ok;
}

static void mntset_read_or_die(struct mntset *s)
{
	char why[512];

	if (!mntset_read(s, why, sizeof(why)))
		die_setup("mount table: %s", why);
}

/* The mount ID of what @fd refers to, or -1. */
static long long fd_mount_id(int fd)
{
	struct statx stx;

	if (statx(fd, "", AT_EMPTY_PATH, STATX_MNT_ID, &stx) ||
	    !(stx.stx_mask & STATX_MNT_ID))
		return -1;
	return (long long)stx.stx_mnt_id;
}

/*
 * Attach the mount @fd refers to on a random target, unless it is one
 * of the scratch tree's own mounts (which must stay where they are).
 * Returns an O_PATH fd of the new mount's root (in the pool), or -1.
 *
 * The check and the move use a duplicate of @fd: @fd is a number from
 * the shared pool, which another thread may close and reuse between the
 * two calls, for example for "mnt1", which the move would then carry
 * off to a target (seen once as "mount N on .../mnt1 is gone").
 */
static int attach(struct worker *w, int fd)
{
	unsigned int t = rng_below(&w->rng, N_TARGETS);
	int own = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	long long id = own >= 0 ? fd_mount_id(own) : -1;
	int ret;

	if (id < 0 || !base_mounts || mntset_find(base_mounts, (int)id)) {
		if (own >= 0)
			close(own);
		return -1;
	}
	ret = note(w, SC_MOVE, move_mount(own, "", AT_FDCWD, scratch.target[t],
					  MOVE_MOUNT_F_EMPTY_PATH));
	close(own);
	if (ret)
		return -1;
	w->st.deep[D_ATTACH]++;
	return open_into_pool(w, scratch.target[t], O_PATH, FK_MNTROOT);
}

/* Unmount everything stacked on @target; returns how many. */
static unsigned int unmount_target(const char *target)
{
	unsigned int n = 0;

	while (umount2(target, MNT_DETACH) == 0)
		n++;
	return n;
}

/*
 * Unmount what the run attached: only targets ever get mounts, and a
 * mount moved from one target to another is still on a target.
 */
static void unmount_new(void)
{
	unsigned int t;

	for (t = 0; t < N_TARGETS; t++)
		unmount_target(scratch.target[t]);
}

/* Report every mount that appeared, vanished or moved since @before. */
static unsigned int mount_balance(const struct mntset *before,
				  const struct mntset *after, const char *where)
{
	unsigned int i, bad = 0;

	for (i = 0; i < after->n; i++) {
		const struct mnt_entry *e = &after->e[i];
		const struct mnt_entry *b = mntset_find(before, e->id);

		if (!b) {
			violation("%s: mount %d on %s (%s) was left behind", where,
				  e->id, e->point, e->opts);
			bad++;
		} else if (strcmp(b->point, e->point) || b->parent != e->parent) {
			violation("%s: mount %d moved from %s to %s", where, e->id,
				  b->point, e->point);
			bad++;
		}
	}
	for (i = 0; i < before->n; i++) {
		if (!mntset_find(after, before->e[i].id)) {
			violation("%s: mount %d on %s is gone", where,
				  before->e[i].id, before->e[i].point);
			bad++;
		}
	}
	return bad;
}

/* ------------------------------------------------------------------ */
/* Open fds                                                             */

#define MAX_FDS	1024

struct fdset {
	unsigned int n;
	int fd[MAX_FDS];
};

static void fdset_read(struct fdset *s)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *de;

	if (!d)
		die_setup("/proc/self/fd: %s", strerror(errno));
	s->n = 0;
	while ((de = readdir(d))) {
		int fd = atoi(de->d_name);

		if (de->d_name[0] == '.' || fd == dirfd(d))
			continue;
		if (s->n < MAX_FDS)
			s->fd[s->n++] = fd;
	}
	closedir(d);
}

static bool fdset_has(const struct fdset *s, int fd)
{
	unsigned int i;

	for (i = 0; i < s->n; i++)
		if (s->fd[i] == fd)
			return true;
	return false;
}

/* Report every fd opened or closed since @before, with what it is. */
static unsigned int fd_balance(const struct fdset *before,
			       const struct fdset *after, const char *where)
{
	char path[64], link[256];
	unsigned int i, bad = 0;
	ssize_t n;

	for (i = 0; i < after->n; i++) {
		if (fdset_has(before, after->fd[i]))
			continue;
		snprintf(path, sizeof(path), "/proc/self/fd/%d", after->fd[i]);
		n = readlink(path, link, sizeof(link) - 1);
		link[n > 0 ? n : 0] = '\0';
		violation("%s: fd %d (%s) was left open", where, after->fd[i], link);
		bad++;
	}
	for (i = 0; i < before->n; i++) {
		if (!fdset_has(after, before->fd[i])) {
			violation("%s: fd %d was closed", where, before->fd[i]);
			bad++;
		}
	}
	return bad;
}

/* ------------------------------------------------------------------ */
/* Random operations                                                    */

/* configfd_action with every argument chosen at random. */
static void op_raw_action(struct worker *w)
{
	const char *word, *val;
	struct act a;

	memset(&a, 0, sizeof(a));
	pick_fd(w, rng_chance(&w->rng, 85) ? FKM(FK_CONFIGFD) : FK_ANY, &a.fd, &a.fi);
	a.cmd = pick_cmd(&w->rng);
	word = key_word(&w->rng, a.fi.type, a.cmd, &val);
	pick_key(w, &a, word);
	pick_value(w, &a, val);
	pick_aux(w, &a);
	do_action(w, &a, NULL);
}

/*
 * A type name: mostly a real one, else unreadable, too long, or unknown
 * (rarely: as root, each unknown name makes the kernel run modprobe).
 */
static void pick_name(struct worker *w, struct str_arg *s, enum cfd_type t)
{
	struct rng *r = &w->rng;
	unsigned int roll = rng_below(r, 100);

	if (roll < 80) {
		str_set(s, types[t].name);
	} else if (roll < 88) {
		str_place_end(s, w->ar.str, PAGE_SZ, types[t].name,
			      strlen(types[t].name), roll < 84);
	} else if (roll < 92) {
		str_random(s, r, w->ar.str, PAGE_SZ,
			   CONFIGFD_KEY_MAX + rng_below(r, 64), rng_chance(r, 50));
	} else if (roll < 94) {
		str_set(s, NULL);
	} else if (roll < 99) {
		s->p = bad_ptr(r, &w->ar, &s->pk);
		s->len = 0;
		s->term = false;
	} else {
		str_random(s, r, w->ar.str, PAGE_SZ, 1 + rng_below(r, 32), true);
	}
}

static void op_raw_open(struct worker *w)
{
	static const unsigned int bad_flags[] = {
		0, O_NONBLOCK, O_CLOEXEC | O_RDWR, 0x80000000u, ~0u,
	};
	static const unsigned int bad_ops[] = {
		0, CONFIGFD_SET_FD, CONFIGFD_CMD_RECONFIGURE + 1, CONFIGFD_SET_INT,
		CONFIGFD_GET_FD, 0xffffffffu,
	};
	struct rng *r = &w->rng;
	enum cfd_type t = pick_type(r);
	unsigned int flags = O_CLOEXEC, op = pick_op(r, t);
	struct str_arg name;
	int fd;

	pick_name(w, &name, t);
	if (rng_chance(r, 4))
		flags = PICK(r, bad_flags);
	if (rng_chance(r, 3))
		op = PICK(r, bad_ops);
	fd = do_open(w, &name, flags, op);
	if (fd >= 0)
		pool_add(w, fd, FK_CONFIGFD, type_named(&name), op);
}

static void op_read(struct worker *w)
{
	struct fdinfo fi;
	int fd;

	pick_fd(w, rng_chance(&w->rng, 90) ? FKM(FK_CONFIGFD) : FK_ANY, &fd, &fi);
	/* Never the standard fds: stdin may be a terminal (make shell). */
	if (fd > STDERR_FILENO || fd < 0)
		do_read(w, fd, &fi);
}

/* A new fd of kind number @which (0 to NEW_FD_KINDS - 1) for the pool. */
#define NEW_FD_KINDS	10

static void new_fd(struct worker *w, unsigned int which)
{
	static const char *const dirs[] = { "dir0", "dir0/sub", "t0", "t5", "ovl" };
	static const char *const on_ext4[] = { "ext4/d0", "ext4/d1", "ext4/f0" };
	struct rng *r = &w->rng;
	struct slot s;
	int fds[2], fd;

	switch (which) {
	case 0:
		open_into_pool(w, PICK(r, dirs), O_PATH, FK_PATH);
		break;
	case 1:
		open_into_pool(w, rng_chance(r, 50) ? "mnt0" : "mnt1", O_PATH, FK_MNTROOT);
		break;
	case 2:
		open_into_pool(w, "dir2", O_RDONLY | O_DIRECTORY, FK_DIR);
		break;
	case 3:
		open_into_pool(w, "file0", O_RDONLY, FK_FILE);
		break;
	case 4:
		if (note(w, SC_NEWFD, pipe2(fds, O_NONBLOCK | O_CLOEXEC)) == 0) {
			pool_add(w, fds[0], FK_PIPE, T_NR, 0);
			pool_add(w, fds[1], FK_PIPE, T_NR, 0);
		}
		break;
	case 5:
		if (note(w, SC_NEWFD, socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK |
						 SOCK_CLOEXEC, 0, fds)) == 0) {
			pool_add(w, fds[0], FK_SOCKET, T_NR, 0);
			pool_add(w, fds[1], FK_SOCKET, T_NR, 0);
		}
		break;
	case 6:
		fd = note(w, SC_NEWFD, eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC));
		if (fd >= 0)
			pool_add(w, fd, FK_EVENTFD, T_NR, 0);
		break;
	case 7:
		if (scratch.ext4[0])
			open_into_pool(w, PICK(r, on_ext4), O_PATH, FK_EXT4);
		else
			open_into_pool(w, "link", O_PATH | O_NOFOLLOW, FK_PATH);
		break;
	case 8:
		/* Another fd of the same configfd: one open file, two numbers. */
		if (!pool_pick(w, FKM(FK_CONFIGFD), &s))
			break;
		fd = note(w, SC_NEWFD, fcntl(s.fd, F_DUPFD_CLOEXEC, 3));
		if (fd >= 0)
			pool_add(w, fd, FK_CONFIGFD, s.type, s.op);
		break;
	default:
		op_raw_open(w);
		break;
	}
}

static void op_new_fd(struct worker *w)
{
	new_fd(w, rng_below(&w->rng, NEW_FD_KINDS));
}

static void op_close(struct worker *w)
{
	pool_close_random(w, FK_ANY);
}

static void op_attach(struct worker *w)
{
	struct slot s;

	if (pool_pick(w, rng_chance(&w->rng, 85) ? FKM(FK_RESULT) : FK_ANY, &s))
		attach(w, s.fd);
}

/*
 * Unmount the top mount of a target (or, at times, all it holds, which
 * keeps the table small).  Only targets: nothing of the scratch tree's
 * own is ever unmounted.
 */
static void op_detach(struct worker *w)
{
	const char *target = scratch.target[rng_below(&w->rng, N_TARGETS)];
	bool all = rng_chance(&w->rng, 20);

	while (note(w, SC_UMOUNT, umount2(target, MNT_DETACH)) == 0 && all)
		;
}

/* Read the mount table while others change it: each line must still make sense. */
static void op_mountinfo(struct worker *w)
{
	char *text = slurp("/proc/self/mountinfo");
	char why[512];

	note(w, SC_MOUNTINFO, text ? 0 : -1);
	if (text && !mountinfo_check(text, false, NULL, why, sizeof(why)))
		violation("/proc/self/mountinfo: %s", why);
	free(text);
}

/* ------------------------------------------------------------------ */
/* Recipes: valid-looking sequences that reach deep states              */

/*
 * A recipe's own configfd: no other thread has its number, so the oracle
 * knows exactly what it is.
 */
struct rctx {
	struct worker *w;
	int fd;
	struct fdinfo fi;
	bool mutated;		/* the last call was made hostile */
};

static bool r_open(struct rctx *c, struct worker *w, enum cfd_type t,
		   unsigned int op)
{
	struct str_arg name;

	str_set(&name, types[t].name);
	c->w = w;
	c->fd = do_open(w, &name, O_CLOEXEC, op);
	c->fi = (struct fdinfo){ .known = true, .open = true,
				 .kind = FK_CONFIGFD, .type = t, .op = op };
	c->mutated = false;
	return c->fd >= 0;
}

/*
 * Sometimes one argument of a recipe's call turns hostile, so deep states
 * meet bad input too.  Returns whether it did.
 */
static bool mutate(struct worker *w, struct act *a)
{
	struct rng *r = &w->rng;

	if (!rng_chance(r, 4))
		return false;
	switch (rng_below(r, 5)) {
	case 0:
		pick_key(w, a, PICK(r, all_keys));
		break;
	case 1:
		a->cmd = pick_cmd(r);
		break;
	case 2:
		a->aux = hostile_int(r);
		memset(&a->auxfi, 0, sizeof(a->auxfi));
		break;
	case 3:
		pick_value(w, a, "x");
		break;
	default:
		pick_fd(w, FK_ANY, &a->fd, &a->fi);
		break;
	}
	return true;
}

/* One call of a recipe: @cmd with @key, a value, and @aux. */
static int r_call(struct rctx *c, unsigned int cmd, const char *key,
		  const char *sval, int aux, int *newfd)
{
	struct worker *w = c->w;
	struct act a;

	memset(&a, 0, sizeof(a));
	a.fd = c->fd;
	a.fi = c->fi;
	a.cmd = cmd;
	a.aux = aux;
	str_set(&a.key, key);
	switch (cmd) {
	case CONFIGFD_SET_STRING:
		a.vk = VK_STR;
		str_set(&a.val, expand(w, sval));
		break;
	case CONFIGFD_SET_PATH:
	case CONFIGFD_SET_PATH_EMPTY:
		a.vk = VK_PATH;
		str_set(&a.val, sval);
		break;
	case CONFIGFD_SET_BINARY:
		a.vk = VK_BLOB;
		a.ptr = w->ar.buf;
		a.room = BUF_SZ;
		break;
	case CONFIGFD_GET_FD:
		a.vk = VK_INTP;
		a.ptr = w->ar.buf;
		a.room = BUF_SZ;
		break;
	default:
		break;
	}
	c->mutated = mutate(w, &a);
	return do_action(w, &a, newfd);
}

/* The recipe's last call did what it meant to, and succeeded. */
static bool r_done(const struct rctx *c, int ret)
{
	return ret == 0 && !c->mutated;
}

static int r_flag(struct rctx *c, const char *key)
{
	return r_call(c, CONFIGFD_SET_FLAG, key, NULL, 0, NULL);
}

static int r_string(struct rctx *c, const char *key, const char *val)
{
	return r_call(c, CONFIGFD_SET_STRING, key, val, 0, NULL);
}

static int r_fd(struct rctx *c, const char *key, int fd)
{
	return r_call(c, CONFIGFD_SET_FD, key, NULL, fd, NULL);
}

static int r_int(struct rctx *c, const char *key, int val)
{
	return r_call(c, CONFIGFD_SET_INT, key, NULL, val, NULL);
}

/* The command the fd was opened for. */
static int r_run(struct rctx *c)
{
	return r_call(c, c->fi.op, NULL, NULL, 0, NULL);
}

/* GET_FD: the result's new fd (already in the pool), or -1. */
static int r_get(struct rctx *c, const char *key)
{
	int fd = -1;

	r_call(c, CONFIGFD_GET_FD, key, NULL,
	       rng_chance(&c->w->rng, 80) ? O_CLOEXEC : 0, &fd);
	return fd;
}

/* Read the log to the end (or a while), as a runtime does after a failure. */
static void r_drain(struct rctx *c)
{
	int i;

	for (i = 0; i < 9; i++)
		if (do_read(c->w, c->fd, &c->fi) == ENODATA)
			break;
}

/* Keep the configfd for random calls of others, or close it. */
static void r_end(struct rctx *c)
{
	if (rng_chance(&c->w->rng, 30))
		r_drain(c);
	if (rng_chance(&c->w->rng, 50))
		pool_add(c->w, c->fd, FK_CONFIGFD, c->fi.type, c->fi.op);
	else
		note(c->w, SC_CLOSE, close(c->fd));
}

/* The source of a new bind: in a user namespace mostly ext4, which can be shifted. */
static bool pick_source(struct worker *w, struct slot *s)
{
	if (scratch.ext4[0] && rng_chance(&w->rng, 60) &&
	    pool_pick(w, FKM(FK_EXT4), s))
		return true;
	return pool_pick(w, FK_SOURCES, s);
}

/* Some mount attribute flags, allow-shift and shift: what was set. */
struct bind_flags_set {
	bool attrs, marked, shift;
};

static struct bind_flags_set r_bind_flags(struct rctx *c)
{
	struct rng *r = &c->w->rng;
	struct bind_flags_set f = { false, false, false };
	unsigned int i, n = rng_below(r, 4);

	for (i = 0; i < n; i++)
		f.attrs |= r_done(c, r_flag(c, PICK(r, bind_attr_flags)));
	if (rng_chance(r, 15))
		f.marked = r_done(c, r_flag(c, "allow-shift"));
	if (rng_chance(r, scratch.ext4[0] ? 60 : 10))
		f.shift = r_done(c, r_flag(c, "shift"));
	return f;
}

/* open "bind" CMD_CREATE, pathfd, [detached], flags, CMD_CREATE, GET_FD, [attach]. */
static void recipe_bind_create(struct worker *w)
{
	struct bind_flags_set f;
	bool detached = false;
	struct rctx c;
	struct slot src;
	int res;

	if (!r_open(&c, w, T_BIND, CONFIGFD_CMD_CREATE))
		return;
	if (pick_source(w, &src))
		r_fd(&c, "pathfd", src.fd);
	if (rng_chance(&w->rng, 85))
		detached = r_done(&c, r_flag(&c, "detached"));
	f = r_bind_flags(&c);
	if (r_done(&c, r_run(&c))) {
		w->st.deep[!detached ? D_BIND_OPATH :
			   f.shift ? D_SHIFT_CREATE : D_BIND_DETACHED]++;
		w->st.deep[D_ALLOW_SHIFT] += detached && f.marked;
	}
	res = r_get(&c, "bindfd");
	if (res >= 0 && rng_chance(&w->rng, 60))
		attach(w, res);
	r_end(&c);
}

/* open "bind" CMD_RECONFIGURE, pathfd of a mount, flags, CMD_RECONFIGURE. */
static void recipe_bind_reconf(struct worker *w)
{
	struct bind_flags_set f;
	struct rctx c;
	struct slot s;

	if (!r_open(&c, w, T_BIND, CONFIGFD_CMD_RECONFIGURE))
		return;
	if (pool_pick(w, FKM(FK_MNTROOT) | FKM(FK_RESULT), &s))
		r_fd(&c, "pathfd", s.fd);
	f = r_bind_flags(&c);
	if (r_done(&c, r_run(&c)) && (f.attrs || f.marked || f.shift)) {
		w->st.deep[D_BIND_RECONF]++;
		w->st.deep[D_SHIFT_INPLACE] += f.shift;
		w->st.deep[D_ALLOW_SHIFT] += f.marked;
	}
	r_end(&c);
}

/*
 * What shiftbind-hook does for a container: a detached bind of the
 * image, attached, then shifted in place (in a user namespace).
 */
static void recipe_hook_flow(struct worker *w)
{
	struct rctx c;
	struct slot src;
	int res, root;
	bool shift;

	if (!pick_source(w, &src) || !r_open(&c, w, T_BIND, CONFIGFD_CMD_CREATE))
		return;
	r_fd(&c, "pathfd", src.fd);
	r_flag(&c, "detached");
	if (r_done(&c, r_run(&c)))
		w->st.deep[D_BIND_DETACHED]++;
	res = r_get(&c, "bindfd");
	r_end(&c);
	root = res >= 0 ? attach(w, res) : -1;
	if (root < 0 || !r_open(&c, w, T_BIND, CONFIGFD_CMD_RECONFIGURE))
		return;
	r_fd(&c, "pathfd", root);
	shift = r_done(&c, r_flag(&c, "shift"));
	if (rng_chance(&w->rng, 30))
		r_flag(&c, "ro");
	if (r_done(&c, r_run(&c)) && shift)
		w->st.deep[D_SHIFT_INPLACE]++;
	r_end(&c);
	if (rng_chance(&w->rng, 30))
		op_detach(w);
}

/* The options an overlay needs to be writable, in order. */
static const struct kv overlay_rw[] = {
	{ "lowerdir", "@/ovl/lower" }, { "upperdir", "@/ovl/upper" },
	{ "workdir", "@/ovl/work" },
};

/* open a filesystem, options, [mount_attrs], CMD_CREATE, GET_FD, [attach]. */
static void recipe_fs_create(struct worker *w)
{
	static const enum cfd_type fs[] = {
		T_TMPFS, T_TMPFS, T_TMPFS, T_RAMFS, T_PROC, T_DEVPTS,
		T_OVERLAY, T_EXT4,
	};
	struct rng *r = &w->rng;
	enum cfd_type t = PICK(r, fs);
	const struct type_desc *d = &types[t];
	unsigned int i, n = rng_below(r, 4);
	struct rctx c;
	int res;

	if (!r_open(&c, w, t, CONFIGFD_CMD_CREATE))
		return;
	for (i = 0; t == T_OVERLAY && i < ARRAY_SIZE(overlay_rw); i++)
		if (rng_chance(r, 85))
			r_string(&c, overlay_rw[i].key, overlay_rw[i].val);
	for (i = 0; i < n; i++) {
		const struct kv *kv = &d->opts[rng_below(r, d->nopts)];

		r_string(&c, kv->key, kv->val);
	}
	if (rng_chance(r, 40))
		r_flag(&c, d->flags[rng_below(r, d->nflags)]);
	if (rng_chance(r, 50))
		r_int(&c, "mount_attrs", pick_mount_attrs(r));
	if (r_done(&c, r_run(&c)))
		w->st.deep[D_FS_CREATE]++;
	res = r_get(&c, "mountfd");
	if (res >= 0 && rng_chance(r, 50))
		attach(w, res);
	r_end(&c);
}

/* open "mount", pathfd of a mount root, flags or options, CMD_RECONFIGURE (twice). */
static void recipe_mount_reconf(struct worker *w)
{
	struct rng *r = &w->rng;
	const struct type_desc *d = &types[T_MOUNT];
	unsigned int i, n = 1 + rng_below(r, 2);
	struct rctx c;
	struct slot s;

	if (!r_open(&c, w, T_MOUNT, CONFIGFD_CMD_RECONFIGURE))
		return;
	if (pool_pick(w, FKM(FK_RESULT) | FKM(FK_MNTROOT), &s))
		r_fd(&c, "pathfd", s.fd);
	for (i = 0; i < n; i++) {
		const struct kv *kv = &d->opts[rng_below(r, d->nopts)];

		if (rng_chance(r, 60))
			r_flag(&c, d->flags[rng_below(r, d->nflags)]);
		else
			r_string(&c, kv->key, kv->val);
	}
	if (r_done(&c, r_run(&c)))
		w->st.deep[D_MOUNT_RECONF]++;
	if (rng_chance(r, 30)) {
		r_flag(&c, "rw");
		r_run(&c);
	}
	r_end(&c);
}

/*
 * The test type takes every kind of parameter and hands back the file it
 * was given, including configfds: the core's copy-in and GET_FD at depth.
 */
static void recipe_test_type(struct worker *w)
{
	struct rng *r = &w->rng;
	unsigned int i, n = 1 + rng_below(r, 6);
	struct fdinfo fi;
	struct rctx c;

	if (!r_open(&c, w, T_TEST, pick_op(r, T_TEST)))
		return;
	for (i = 0; i < n; i++) {
		switch (rng_below(r, 6)) {
		case 0:
			r_flag(&c, PICK(r, test_flags));
			break;
		case 1:
			r_string(&c, "echo", rng_chance(r, 80) ? "hello" : "");
			break;
		case 2:
			r_call(&c, CONFIGFD_SET_BINARY, "blob", NULL,
			       1 + rng_below(r, BUF_SZ), NULL);
			break;
		case 3:
			r_call(&c, rng_chance(r, 50) ? CONFIGFD_SET_PATH :
			       CONFIGFD_SET_PATH_EMPTY, "path",
			       PICK(r, rel_paths), AT_FDCWD, NULL);
			break;
		case 4:
			r_int(&c, "int", hostile_int(r));
			break;
		default:
			r_fd(&c, "fd", pick_aux_fd(w, FK_ANY, &fi));
			break;
		}
	}
	r_run(&c);
	r_get(&c, "fd");
	r_end(&c);
}

/* Read a pooled configfd's log to its end. */
static void recipe_log_drain(struct worker *w)
{
	struct slot s;
	struct rctx c;

	if (!pool_pick(w, FKM(FK_CONFIGFD), &s))
		return;
	c.w = w;
	c.fd = s.fd;
	c.fi = fdinfo_of(&s);
	r_drain(&c);
}

static const struct op {
	void (*fn)(struct worker *w);
	const char *name;
	unsigned int weight;
} ops[N_OPS] = {
	/*
	 * A raw call costs about 1 ms under TCG with KASAN; a recipe that
	 * creates a mount or a filesystem 10 to 30 ms.  These weights keep
	 * the recipes at about half of the time, which still reaches every
	 * deep state hundreds of times in a run of the suite.
	 */
	{ op_raw_action, "raw_action", 44 },
	{ op_raw_open, "raw_open", 7 },
	{ op_read, "read", 12 },
	{ recipe_bind_create, "bind_create", 6 },
	{ recipe_bind_reconf, "bind_reconf", 5 },
	{ recipe_hook_flow, "hook_flow", 2 },
	{ recipe_fs_create, "fs_create", 3 },
	{ recipe_mount_reconf, "mount_reconf", 2 },
	{ recipe_test_type, "test_type", 3 },
	{ recipe_log_drain, "log_drain", 2 },
	{ op_new_fd, "new_fd", 6 },
	{ op_close, "close", 4 },
	{ op_attach, "attach", 1 },
	{ op_detach, "detach", 4 },
	{ op_mountinfo, "mountinfo", 1 },
};

/* One operation, picked by weight; its time is added to its account. */
static void run_op(struct worker *w)
{
	unsigned int total = 0, roll;
	double t0;
	size_t i;

	for (i = 0; i < N_OPS; i++)
		total += ops[i].weight;
	roll = rng_below(&w->rng, total);
	for (i = 0; roll >= ops[i].weight; i++)
		roll -= ops[i].weight;
	t0 = now();
	ops[i].fn(w);
	w->st.op_secs[i] += now() - t0;
}

/* Where the time went: the share of each operation. */
static void ops_profile(const struct stats *st)
{
	double sum = 0;
	char line[1024];
	size_t i, len;

	for (i = 0; i < N_OPS; i++)
		sum += st->op_secs[i];
	len = snprintf(line, sizeof(line), "time by operation:");
	for (i = 0; i < N_OPS && len < sizeof(line) && sum > 0; i++)
		len += snprintf(line + len, sizeof(line) - len, " %s %.0f%%",
				ops[i].name, 100 * st->op_secs[i] / sum);
	say("%s", line);
}

/* ------------------------------------------------------------------ */
/* The random mode                                                      */

/* What the fuzzing child tells its parent at the end. */
struct report {
	uint64_t calls;
	double secs;
	unsigned long violations;
	uint64_t deep[D_NR];
};

static int report_fd = -1;

static void send_report(uint64_t calls, double secs, const uint64_t *deep)
{
	struct report rep = { .calls = calls, .secs = secs,
			      .violations = atomic_load(&n_violations) };

	if (deep)
		memcpy(rep.deep, deep, sizeof(rep.deep));
	if (write(report_fd, &rep, sizeof(rep)) != (ssize_t)sizeof(rep))
		say("cannot report to the parent: %s", strerror(errno));
}

static double deadline;		/* 0: none */

static void *worker_main(void *arg)
{
	struct worker *w = arg;

	while (stats_calls(&w->st) < w->budget && !(deadline && now() > deadline))
		run_op(w);
	return NULL;
}

static void worker_init(struct worker *w, unsigned int id)
{
	w->id = id;
	rng_init(&w->rng, opt.seed, id);
	arena_init(&w->ar);
	w->budget = opt.calls / opt.threads + (id < opt.calls % opt.threads);
}

/* One fd of each kind, and configfds of the main types, to start from. */
static void pool_seed(struct worker *w)
{
	static const enum cfd_type seeds[] = { T_BIND, T_BIND, T_TMPFS, T_MOUNT, T_TEST };
	struct str_arg name;
	unsigned int i;
	int fd;

	for (i = 0; i + 1 < NEW_FD_KINDS; i++)
		new_fd(w, i);
	open_into_pool(w, "mnt0", O_PATH, FK_MNTROOT);
	open_into_pool(w, "mnt1", O_PATH, FK_MNTROOT);
	if (scratch.ext4[0])
		open_into_pool(w, "ext4/d0", O_PATH, FK_EXT4);
	for (i = 0; i < ARRAY_SIZE(seeds); i++) {
		unsigned int op = types[seeds[i]].ops & OP_CREATE ?
				  CONFIGFD_CMD_CREATE : CONFIGFD_CMD_RECONFIGURE;

		str_set(&name, types[seeds[i]].name);
		fd = do_open(w, &name, O_CLOEXEC, op);
		if (fd >= 0)
			pool_add(w, fd, FK_CONFIGFD, seeds[i], op);
	}
}

static void run_workers(struct worker *ws)
{
	unsigned int i;

	/* One thread: no pthread at all, the plainest replay. */
	if (opt.threads == 1) {
		worker_main(&ws[0]);
		return;
	}
	for (i = 0; i < opt.threads; i++)
		if (pthread_create(&ws[i].thread, NULL, worker_main, &ws[i]))
			die_setup("pthread_create failed");
	for (i = 0; i < opt.threads; i++)
		pthread_join(ws[i].thread, NULL);
}

/*
 * The fds and mounts before and after: the run must leave exactly what
 * it found once its pool is closed and what it attached is unmounted.
 */
struct balance {
	struct fdset fds;
	struct mntset mnts;
};

static struct balance *balance_take(void)
{
	struct balance *b = calloc(1, sizeof(*b));

	if (!b)
		die_setup("out of memory");
	fdset_read(&b->fds);
	mntset_read_or_die(&b->mnts);
	return b;
}

static void balance_free(struct balance *b)
{
	mntset_free(&b->mnts);
	free(b);
}

static void balance_check(const struct balance *before, const char *what)
{
	struct balance *after = balance_take();

	if (!fd_balance(&before->fds, &after->fds, what))
		say("%s: fd balance ok (%u fds open before and after)", what,
		    before->fds.n);
	if (!mount_balance(&before->mnts, &after->mnts, what))
		say("%s: mount balance ok (%u mounts before and after)", what,
		    before->mnts.n);
	balance_free(after);
}

static int run_random(void)
{
	struct worker *ws = calloc(opt.threads, sizeof(*ws));
	struct balance *before;
	struct stats total;
	unsigned int i;
	double t0, secs;

	if (!ws)
		die_setup("out of memory");
	bigblob_init();
	for (i = 0; i < opt.threads; i++)
		worker_init(&ws[i], i);
	before = balance_take();
	base_mounts = &before->mnts;
	t0 = now();
	deadline = opt.duration ? t0 + opt.duration : 0;
	pool_seed(&ws[0]);
	run_workers(ws);
	secs = now() - t0;

	memset(&total, 0, sizeof(total));
	for (i = 0; i < opt.threads; i++)
		stats_add(&total, &ws[i].st);
	stats_print(&total, secs);
	ops_profile(&total);
	/* The self-test of the balance check: an fd nobody closes. */
	if (opt.leak_fd && fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3) < 0)
		say("--leak-fd: dup failed: %s", strerror(errno));
	pool_drain(&ws[0]);
	unmount_new();
	balance_check(before, "after the run");
	send_report(stats_calls(&total), secs, total.deep);
	return atomic_load(&n_violations) ? EXIT_FOUND : 0;
}

/* ------------------------------------------------------------------ */
/* The bind type as shiftbind(8) and the hook use it                    */

/*
 * Open "bind" for @op, set pathfd and each flag of the comma-separated
 * @flags, run @op and, for CMD_CREATE, fetch the result into *@result.
 * Returns 0 or an errno; on failure @log holds the configfd's log.
 */
static int bind_call(int pathfd, unsigned int op, const char *flags,
		     int *result, char *log, size_t logsize)
{
	char buf[128], *flag, *save = NULL;
	int cfd, err = 0;

	log[0] = '\0';
	cfd = sys_configfd_open("bind", O_CLOEXEC, op);
	if (cfd < 0)
		return errno;
	if (sys_configfd_action(cfd, CONFIGFD_SET_FD, "pathfd", NULL, pathfd))
		err = errno;
	snprintf(buf, sizeof(buf), "%s", flags);
	for (flag = strtok_r(buf, ",", &save); flag && !err;
	     flag = strtok_r(NULL, ",", &save))
		if (sys_configfd_action(cfd, CONFIGFD_SET_FLAG, flag, NULL, 0))
			err = errno;
	if (!err && sys_configfd_action(cfd, op, NULL, NULL, 0))
		err = errno;
	if (!err && result &&
	    sys_configfd_action(cfd, CONFIGFD_GET_FD, "bindfd", result, O_CLOEXEC))
		err = errno;
	if (err)
		configfd_read_log(cfd, log, logsize);
	close(cfd);
	return err;
}

/* ------------------------------------------------------------------ */
/* The scratch tree (real root, in the private mount namespace)         */

static void enter_private_ns(void)
{
	if (unshare(CLONE_NEWNS))
		die_setup("unshare(CLONE_NEWNS): %s", strerror(errno));
	/* Nothing mounted from now on propagates out of this namespace. */
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL))
		die_setup("making / private: %s", strerror(errno));
}

static void make_dir(const char *path, mode_t mode)
{
	if (mkdir(path, mode) || chmod(path, mode))
		die_setup("mkdir %s: %s", path, strerror(errno));
}

static void make_file(const char *path, mode_t mode)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode);

	if (fd < 0 || write(fd, "data\n", 5) != 5 || fchmod(fd, mode))
		die_setup("creating %s: %s", path, strerror(errno));
	close(fd);
}

static void mark_allow_shift(const char *path)
{
	int pfd = open(path, O_PATH | O_CLOEXEC), err;
	char log[512];

	if (pfd < 0)
		die_setup("%s: %s", path, strerror(errno));
	err = bind_call(pfd, CONFIGFD_CMD_RECONFIGURE, "allow-shift", NULL, log,
			sizeof(log));
	close(pfd);
	if (err)
		die_setup("marking %s allow-shift: %s (log: %s)", path,
			  strerror(err), log);
}

/* A v2 security.capability (valid for real root) granting cap_net_raw. */
static const uint32_t fcap_v2[5] = { 0x02000000u | 1, 1u << 13, 0, 0, 0 };

/* Real root's programs that the attacker's overlay copies up. */
static void lower_create(void)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/" RACE_LOWER, scratch.ext4);
	make_dir(path, 0755);
	snprintf(path, sizeof(path), "%s/" RACE_LOWER "/" RACE_SUID_PROG, scratch.ext4);
	make_file(path, 04755);
	snprintf(path, sizeof(path), "%s/" RACE_LOWER "/" RACE_FCAP_PROG, scratch.ext4);
	make_file(path, 0755);
	if (setxattr(path, "security.capability", fcap_v2, sizeof(fcap_v2), 0))
		die_setup("setting a file capability on %s: %s", path, strerror(errno));
}

/*
 * A directory of the guest's ext4 root, bound on root/ext4 (and marked):
 * the only idmappable filesystem of the tree.  Only in a user namespace,
 * where the "mount" type cannot reconfigure the guest's root filesystem.
 */
static void ext4_create(void)
{
	static const char *const dirs[] = { "d0", "d1" };
	char path[PATH_MAX];
	struct statfs sfs;
	unsigned int i;

	snprintf(scratch.ext4, sizeof(scratch.ext4), "/var/tmp/cfdfuzz.XXXXXX");
	if (!mkdtemp(scratch.ext4))
		die_setup("mkdtemp /var/tmp: %s", strerror(errno));
	if (statfs(scratch.ext4, &sfs) || sfs.f_type != EXT4_SUPER_MAGIC)
		die_setup("%s is not on ext4, which shifts need", scratch.ext4);
	if (chmod(scratch.ext4, 0755))
		die_setup("chmod %s: %s", scratch.ext4, strerror(errno));
	for (i = 0; i < ARRAY_SIZE(dirs); i++) {
		snprintf(path, sizeof(path), "%s/%s", scratch.ext4, dirs[i]);
		make_dir(path, 0755);
	}
	/* Writable by anyone, so by root of the user namespace before a shift too. */
	snprintf(path, sizeof(path), "%s/w", scratch.ext4);
	make_dir(path, 0777);
	snprintf(path, sizeof(path), "%s/f0", scratch.ext4);
	make_file(path, 0644);
	/* Real root's device nodes: a shift must never let them open. */
	snprintf(path, sizeof(path), "%s/" RACE_CHR, scratch.ext4);
	if (mknod(path, S_IFCHR | 0600, makedev(1, 3)))
		die_setup("mknod %s: %s", path, strerror(errno));
	snprintf(path, sizeof(path), "%s/" RACE_BLK, scratch.ext4);
	if (mknod(path, S_IFBLK | 0600, makedev(7, 0)))
		die_setup("mknod %s: %s", path, strerror(errno));
	/* Real root's setuid programs: a write through a shift drops the bit. */
	for (i = 0; i < RACE_SUID_FILES; i++) {
		snprintf(path, sizeof(path), "%s/w/" RACE_SUID "%02u", scratch.ext4, i);
		make_file(path, 04755);
	}
	lower_create();
	snprintf(path, sizeof(path), "%s/ext4", scratch.root);
	if (mount(scratch.ext4, path, NULL, MS_BIND, NULL))
		die_setup("binding %s: %s", scratch.ext4, strerror(errno));
	if (opt.mark)
		mark_allow_shift(path);
}

/*
 * /tmp/cfdfuzz.XXXXXX, a tmpfs of its own (marked allow-shift):
 *   dir0/ dir0/sub/ dir1/ dir2/ file0 file1 link -> dir0, loop -> loop
 *   mnt0/     a tmpfs of its own (unmarked)
 *   mnt1/     a bind of dir1 (marked, as a clone of the root)
 *   ext4/     the ext4 directory, in user namespace modes
 *   ovl/{lower,upper,work}/   for overlay instances
 *   ovlmnt/   where shift-race's attacker mounts its overlay
 *   t0/ .. t7/                where results are attached
 */
static void scratch_create(bool with_ext4)
{
	static const char *const dirs[] = {
		"dir0", "dir0/sub", "dir1", "dir2", "mnt0", "mnt1", "ext4",
		"ovl", "ovl/lower", "ovl/upper", "ovl/work", RACE_OVL,
	};
	static const char *const files[] = { "file0", "file1", "dir0/f", "ovl/lower/f" };
	char path[PATH_MAX], src[PATH_MAX];
	unsigned int i;

	snprintf(scratch.root, sizeof(scratch.root), "/tmp/cfdfuzz.XXXXXX");
	if (!mkdtemp(scratch.root))
		die_setup("mkdtemp /tmp: %s", strerror(errno));
	if (mount("cfdfuzz", scratch.root, "tmpfs", MS_NOSUID | MS_NODEV,
		  "size=16m,mode=0755"))
		die_setup("mounting a tmpfs on %s: %s", scratch.root, strerror(errno));
	if (opt.mark)
		mark_allow_shift(scratch.root);
	for (i = 0; i < ARRAY_SIZE(dirs); i++) {
		snprintf(path, sizeof(path), "%s/%s", scratch.root, dirs[i]);
		make_dir(path, 0755);
	}
	for (i = 0; i < ARRAY_SIZE(files); i++) {
		snprintf(path, sizeof(path), "%s/%s", scratch.root, files[i]);
		make_file(path, 0644);
	}
	for (i = 0; i < N_TARGETS; i++) {
		snprintf(scratch.target[i], sizeof(scratch.target[i]), "%s/t%u",
			 scratch.root, i);
		make_dir(scratch.target[i], 0755);
	}
	snprintf(path, sizeof(path), "%s/link", scratch.root);
	snprintf(src, sizeof(src), "%s/loop", scratch.root);
	if (symlink("dir0", path) || symlink("loop", src))
		die_setup("symlink: %s", strerror(errno));
	snprintf(path, sizeof(path), "%s/mnt0", scratch.root);
	if (mount("cfdfuzz-mnt0", path, "tmpfs", MS_NOSUID | MS_NODEV, "size=1m"))
		die_setup("mounting %s: %s", path, strerror(errno));
	snprintf(src, sizeof(src), "%s/dir1", scratch.root);
	snprintf(path, sizeof(path), "%s/mnt1", scratch.root);
	if (mount(src, path, NULL, MS_BIND, NULL))
		die_setup("binding %s: %s", src, strerror(errno));
	if (with_ext4)
		ext4_create();
}

static int rm_entry(const char *path, const struct stat *st, int type,
		    struct FTW *ftw)
{
	(void)st;
	(void)type;
	(void)ftw;
	if (remove(path))
		say("cannot remove %s: %s", path, strerror(errno));
	return 0;
}

static void scratch_destroy(void)
{
	if (umount2(scratch.root, MNT_DETACH))
		say("cannot unmount %s: %s", scratch.root, strerror(errno));
	if (rmdir(scratch.root))
		say("cannot remove %s: %s", scratch.root, strerror(errno));
	if (scratch.ext4[0] &&
	    nftw(scratch.ext4, rm_entry, 16, FTW_DEPTH | FTW_PHYS | FTW_MOUNT))
		say("cannot remove %s: %s", scratch.ext4, strerror(errno));
}

/* ------------------------------------------------------------------ */
/* The child process                                                    */

/* Map root of @pid's new user namespace to USERNS_BASE, as runtimes do. */
static void write_maps(pid_t pid)
{
	static const char *const files[] = { "uid_map", "gid_map" };
	char path[64], map[64];
	int len, fd;
	size_t i;

	len = snprintf(map, sizeof(map), "0 %u %u\n", USERNS_BASE, USERNS_LEN);
	for (i = 0; i < ARRAY_SIZE(files); i++) {
		snprintf(path, sizeof(path), "/proc/%d/%s", (int)pid, files[i]);
		fd = open(path, O_WRONLY | O_CLOEXEC);
		if (fd < 0 || write(fd, map, len) != len)
			die_setup("writing %s: %s", path, strerror(errno));
		close(fd);
	}
}

/*
 * The child's side of run_child(): with --userns, a new user namespace
 * with a mount namespace it owns (mapped by the parent), as root there.
 */
static void child_enter(int ready, int go)
{
	char c = opt.userns ? 'u' : 'n';
	int err = 0;

	if (opt.userns && unshare(CLONE_NEWUSER | CLONE_NEWNS)) {
		err = errno;
		c = 'x';
	}
	if (write(ready, &c, 1) != 1 || read(go, &c, 1) != 1)
		_exit(EXIT_SETUP);
	if (err)
		die_setup("unshare(CLONE_NEWUSER | CLONE_NEWNS): %s", strerror(err));
	if (!opt.userns)
		return;
	if (setgroups(0, NULL) || setresgid(0, 0, 0) || setresuid(0, 0, 0))
		die_setup("becoming root in the user namespace: %s", strerror(errno));
	/*
	 * Changing ids made the process undumpable, which gives its /proc
	 * files to real root: fail-nth would no longer be writable.
	 */
	if (prctl(PR_SET_DUMPABLE, 1, 0, 0, 0))
		die_setup("PR_SET_DUMPABLE: %s", strerror(errno));
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL))
		die_setup("making / private: %s", strerror(errno));
}

/* A child at work in the scratch tree, while its parent may act too. */
struct child {
	pid_t pid;
	int res;	/* its report's pipe: readable once it is done */
};

/* Start @body in a child in the scratch tree (child_reap() waits for it). */
static void child_spawn(int (*body)(void), struct child *ch)
{
	int ready[2], go[2], res[2], status;
	pid_t pid;
	char c;

	if (pipe2(ready, O_CLOEXEC) || pipe2(go, O_CLOEXEC) || pipe2(res, O_CLOEXEC))
		die_setup("pipe2: %s", strerror(errno));
	fflush(stdout);
	pid = fork();
	if (pid < 0)
		die_setup("fork: %s", strerror(errno));
	if (pid == 0) {
		close(ready[0]);
		close(go[1]);
		close(res[0]);
		child_enter(ready[1], go[0]);
		close(ready[1]);
		close(go[0]);
		report_fd = res[1];
		if (chdir(scratch.root))
			die_setup("chdir %s: %s", scratch.root, strerror(errno));
		status = body();
		fflush(stdout);
		_exit(status);
	}
	close(ready[1]);
	close(go[0]);
	close(res[1]);
	if (read(ready[0], &c, 1) == 1 && c == 'u')
		write_maps(pid);
	if (write(go[1], "g", 1) != 1)
		say("cannot release the child: %s", strerror(errno));
	close(go[1]);
	close(ready[0]);
	ch->pid = pid;
	ch->res = res[0];
}

/* Wait for the child: its exit status, its report in @rep. */
static int child_reap(struct child *ch, struct report *rep)
{
	ssize_t n;
	int status;

	n = read(ch->res, rep, sizeof(*rep));
	close(ch->res);
	if (n != (ssize_t)sizeof(*rep))
		memset(rep, 0, sizeof(*rep));
	if (waitpid(ch->pid, &status, 0) < 0)
		die_setup("waitpid: %s", strerror(errno));
	if (WIFSIGNALED(status)) {
		violation("the fuzzing process died of signal %d (%s)",
			  WTERMSIG(status), strsignal(WTERMSIG(status)));
		return EXIT_FOUND;
	}
	return WEXITSTATUS(status);
}

/* Run @body in a child in the scratch tree; its exit status, its report in @rep. */
static int run_child(int (*body)(void), struct report *rep)
{
	struct child ch;

	child_spawn(body, &ch);
	return child_reap(&ch, rep);
}

/* ------------------------------------------------------------------ */
/* The failslab mode                                                    */

#define FAILSLAB_DIR	"/sys/kernel/debug/failslab"

/* What the walk needs of failslab; the old values are put back after. */
static const char *const failslab_knobs[][2] = {
	/* Sleeping allocations too: failslab skips them by default. */
	{ "ignore-gfp-wait", "N" },
	/* No random failures, for us or anyone else: only fail-nth. */
	{ "probability", "0" },
	/* A stack dump per injected failure would flood the console. */
	{ "verbose", "0" },
};

static char failslab_saved[ARRAY_SIZE(failslab_knobs)][32];

static bool knob_access(const char *name, char *buf, size_t size, bool set)
{
	char path[128];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), FAILSLAB_DIR "/%s", name);
	fd = open(path, (set ? O_WRONLY : O_RDONLY) | O_CLOEXEC);
	if (fd < 0)
		return false;
	n = set ? write(fd, buf, strlen(buf)) : read(fd, buf, size - 1);
	close(fd);
	if (n < 0)
		return false;
	if (!set)
		buf[strcspn(buf, "\n")] = '\0';
	return true;
}

/* Before the child starts: skip (exit 4) on a kernel without failslab. */
static void failslab_setup(void)
{
	char val[32];
	size_t i;

	if (access(FAILSLAB_DIR, F_OK) || access("/proc/self/fail-nth", F_OK)) {
		say("SKIP: no failslab fault injection in this kernel (%s, /proc/self/fail-nth); run it on the debug kernel",
		    FAILSLAB_DIR);
		exit(EXIT_NOFAULT);
	}
	for (i = 0; i < ARRAY_SIZE(failslab_knobs); i++) {
		snprintf(val, sizeof(val), "%s", failslab_knobs[i][1]);
		if (!knob_access(failslab_knobs[i][0], failslab_saved[i],
				 sizeof(failslab_saved[i]), false) ||
		    !knob_access(failslab_knobs[i][0], val, sizeof(val), true))
			die_setup("%s/%s: %s", FAILSLAB_DIR, failslab_knobs[i][0],
				  strerror(errno));
	}
}

static void failslab_restore(void)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(failslab_knobs); i++)
		if (!knob_access(failslab_knobs[i][0], failslab_saved[i],
				 sizeof(failslab_saved[i]), true))
			say("cannot restore %s/%s", FAILSLAB_DIR, failslab_knobs[i][0]);
}

/* Registers of the sequence: fds it opens and fetches. */
enum reg {
	R_NONE,
	R_SRC,		/* the bind source, opened once: dir0 or ext4/d0 */
	R_PIPE,		/* a pipe, opened once, for configfd-test */
	R_B1, R_BFD, R_TGT, R_B2, R_B3, R_B3FD,
	R_FS, R_MFD, R_MC, R_TEST, R_TESTFD,
	R_NR,
};

enum step_kind {
	ST_OPEN,	/* configfd_open(key, O_CLOEXEC, cmd) -> out */
	ST_SET,		/* configfd_action(reg, cmd, key, val, aux or auxreg) */
	ST_RUN,		/* configfd_action(reg, cmd, NULL, NULL, 0) */
	ST_GETFD,	/* configfd_action(reg, GET_FD, key, &fd, O_CLOEXEC) -> out */
	ST_READLOG,	/* read(reg): a message, or ENODATA */
	ST_ATTACH,	/* move_mount(reg) onto target 0 */
	ST_OPENTGT,	/* open(target 0, O_PATH) -> out (after reg was attached) */
	ST_DETACH,	/* umount2(target 0) (after reg was opened) */
};

#define SF_ROOT		0x1	/* real root only */
#define SF_USERNS	0x2	/* user namespace only */
#define SF_SPENT	0x4	/* a failure spends the context: retrying gives EBUSY */
#define SF_NOINJECT	0x8	/* no configfd call: no fault is injected */
/*
 * The filesystem's own code may report a failed allocation as ENOSPC:
 * tmpfs does for its root inode in 6.12 (__shmem_get_inode()).
 */
#define SF_FS_ENOSPC	0x10

struct step {
	enum step_kind kind;
	enum reg reg, out, auxreg;
	unsigned int cmd;
	const char *key;
	const char *val;
	int aux;
	unsigned int flags;
};

/* The rows of the sequence. */
#define S_OPEN(t, op, r, f) \
	{ .kind = ST_OPEN, .key = (t), .cmd = (op), .out = (r), .flags = (f) }
#define S_FLAG(r, k, f) \
	{ .kind = ST_SET, .reg = (r), .cmd = CONFIGFD_SET_FLAG, .key = (k), .flags = (f) }
#define S_STR(r, k, v) S_STR_AS(r, k, v, 0)
#define S_STR_AS(r, k, v, f) \
	{ .kind = ST_SET, .reg = (r), .cmd = CONFIGFD_SET_STRING, .key = (k), .val = (v), \
	  .flags = (f) }
#define S_FD(r, k, a, f) \
	{ .kind = ST_SET, .reg = (r), .cmd = CONFIGFD_SET_FD, .key = (k), \
	  .auxreg = (a), .flags = (f) }
#define S_INT(r, k, v) \
	{ .kind = ST_SET, .reg = (r), .cmd = CONFIGFD_SET_INT, .key = (k), .aux = (v) }
#define S_RUN(r, op, f) \
	{ .kind = ST_RUN, .reg = (r), .cmd = (op), .flags = (f) }
#define S_GET(r, k, o, f) \
	{ .kind = ST_GETFD, .reg = (r), .key = (k), .out = (o), .flags = (f) }

/*
 * A valid sequence through every type, as runtimes and shiftbind(8) use
 * them.  Without fault injection every step succeeds.
 */
static const struct step sequence[] = {
	/*
	 * A detached bind of the source: marked by real root for itself
	 * (a mark is set on one mount), recursive in a user namespace
	 * (whose copy of the source has locked mounts below it).
	 */
	S_OPEN("bind", CONFIGFD_CMD_CREATE, R_B1, 0),
	S_FD(R_B1, "pathfd", R_SRC, 0),
	S_FLAG(R_B1, "detached", 0),
	S_FLAG(R_B1, "recursive", SF_USERNS),
	S_FLAG(R_B1, "nosuid", 0),
	S_FLAG(R_B1, "allow-shift", SF_ROOT),
	S_STR_AS(R_B1, "owner", "0", SF_ROOT),
	S_RUN(R_B1, CONFIGFD_CMD_CREATE, 0),
	S_GET(R_B1, "bindfd", R_BFD, 0),
	{ .kind = ST_READLOG, .reg = R_B1 },
	/* Attached, then changed in place (and shifted, in a user namespace). */
	{ .kind = ST_ATTACH, .reg = R_BFD, .flags = SF_NOINJECT },
	{ .kind = ST_OPENTGT, .reg = R_BFD, .out = R_TGT, .flags = SF_NOINJECT },
	S_OPEN("bind", CONFIGFD_CMD_RECONFIGURE, R_B2, 0),
	S_FD(R_B2, "pathfd", R_TGT, 0),
	S_FLAG(R_B2, "ro", 0),
	S_FLAG(R_B2, "shift", SF_USERNS),
	S_RUN(R_B2, CONFIGFD_CMD_RECONFIGURE, 0),
	/* A shifted detached bind. */
	S_OPEN("bind", CONFIGFD_CMD_CREATE, R_B3, SF_USERNS),
	S_FD(R_B3, "pathfd", R_SRC, SF_USERNS),
	S_FLAG(R_B3, "detached", SF_USERNS),
	S_FLAG(R_B3, "shift", SF_USERNS),
	S_RUN(R_B3, CONFIGFD_CMD_CREATE, SF_USERNS),
	S_GET(R_B3, "bindfd", R_B3FD, SF_USERNS),
	/* A tmpfs instance, then its superblock made read-only. */
	S_OPEN("tmpfs", CONFIGFD_CMD_CREATE, R_FS, 0),
	S_STR(R_FS, "size", "1m"),
	S_STR(R_FS, "mode", "0700"),
	S_INT(R_FS, "mount_attrs", MOUNT_ATTR_NODEV | MOUNT_ATTR_NOEXEC),
	S_RUN(R_FS, CONFIGFD_CMD_CREATE, SF_SPENT | SF_FS_ENOSPC),
	S_GET(R_FS, "mountfd", R_MFD, 0),
	S_OPEN("mount", CONFIGFD_CMD_RECONFIGURE, R_MC, 0),
	S_FD(R_MC, "pathfd", R_MFD, 0),
	S_FLAG(R_MC, "ro", 0),
	S_RUN(R_MC, CONFIGFD_CMD_RECONFIGURE, SF_SPENT),
	/* Every kind of parameter, and a file handed back. */
	S_OPEN("configfd-test", CONFIGFD_CMD_CREATE, R_TEST, 0),
	S_STR(R_TEST, "echo", "hello"),
	{ .kind = ST_SET, .reg = R_TEST, .cmd = CONFIGFD_SET_PATH, .key = "path",
	  .val = "dir0", .aux = AT_FDCWD },
	{ .kind = ST_SET, .reg = R_TEST, .cmd = CONFIGFD_SET_BINARY, .key = "blob",
	  .val = "0123456789abcdef", .aux = 16 },
	S_INT(R_TEST, "int", 42),
	S_FD(R_TEST, "fd", R_PIPE, 0),
	S_RUN(R_TEST, CONFIGFD_CMD_CREATE, 0),
	S_GET(R_TEST, "fd", R_TESTFD, 0),
	{ .kind = ST_READLOG, .reg = R_TEST },
	{ .kind = ST_DETACH, .reg = R_TGT, .flags = SF_NOINJECT },
};

#define N_STEPS		ARRAY_SIZE(sequence)
/* A step that still fails at its 1000th allocation never ends. */
#define NTH_MAX		1000

struct seqstate {
	int reg[R_NR];
	bool dead[R_NR];	/* its step failed or was skipped */
	int nth;		/* /proc/thread-self/fail-nth */
	int getfd;		/* where GET_FD writes */
	char buf[4096];		/* where logs are read to */
	uint64_t calls;
	struct balance *before;
	unsigned int points[N_STEPS], failed[N_STEPS];
};

static bool step_applies(const struct step *st)
{
	if (st->flags & SF_ROOT)
		return !opt.userns;
	if (st->flags & SF_USERNS)
		return opt.userns;
	return true;
}

static void step_describe(const struct step *st, char *out, size_t size)
{
	switch (st->kind) {
	case ST_OPEN:
		snprintf(out, size, "configfd_open(\"%s\", %s)", st->key,
			 configfd_cmd_name(st->cmd));
		break;
	case ST_SET:
	case ST_RUN:
	case ST_GETFD:
		snprintf(out, size, "configfd_action(%s%s%s%s)",
			 configfd_cmd_name(st->kind == ST_GETFD ? CONFIGFD_GET_FD : st->cmd),
			 st->key ? ", \"" : "", st->key ? st->key : "",
			 st->key ? "\"" : "");
		break;
	case ST_READLOG:
		snprintf(out, size, "read(log)");
		break;
	case ST_ATTACH:
		snprintf(out, size, "move_mount()");
		break;
	case ST_OPENTGT:
		snprintf(out, size, "open(target, O_PATH)");
		break;
	case ST_DETACH:
		snprintf(out, size, "umount2(target)");
		break;
	}
}

/* Make the @n-th allocation of this task's next call fail. */
static void nth_arm(int nth, unsigned int n)
{
	char num[16];
	int len = snprintf(num, sizeof(num), "%u", n);

	if (pwrite(nth, num, len, 0) != len)
		die_setup("fail-nth: %s", strerror(errno));
}

/* Whether the armed failure was injected; disarms it either way. */
static bool nth_injected(int nth)
{
	char num[16] = "";
	ssize_t n = pread(nth, num, sizeof(num) - 1, 0);

	nth_arm(nth, 0);
	return n > 0 && strtoul(num, NULL, 10) == 0;
}

/*
 * Run one step, with its @n-th allocation failing if @n is not 0.
 * Returns 0 or an errno; *@injected says whether the failure happened.
 */
static int run_step(struct seqstate *ss, const struct step *st, unsigned int n,
		    bool *injected)
{
	int fd = ss->reg[st->reg], aux = st->aux, ret = -1, err;
	const char *val = st->val;

	if (st->auxreg)
		aux = ss->reg[st->auxreg];
	if (n)
		nth_arm(ss->nth, n);
	switch (st->kind) {
	case ST_OPEN:
		ret = sys_configfd_open(st->key, O_CLOEXEC, st->cmd);
		break;
	case ST_SET:
		ret = sys_configfd_action(fd, st->cmd, st->key, (void *)val, aux);
		break;
	case ST_RUN:
		ret = sys_configfd_action(fd, st->cmd, NULL, NULL, 0);
		break;
	case ST_GETFD:
		ret = sys_configfd_action(fd, CONFIGFD_GET_FD, st->key, &ss->getfd,
					  O_CLOEXEC);
		break;
	case ST_READLOG:
		ret = read(fd, ss->buf, sizeof(ss->buf));
		break;
	case ST_ATTACH:
		ret = move_mount(fd, "", AT_FDCWD, scratch.target[0],
				 MOVE_MOUNT_F_EMPTY_PATH);
		break;
	case ST_OPENTGT:
		ret = open(scratch.target[0], O_PATH | O_CLOEXEC);
		break;
	case ST_DETACH:
		ret = umount2(scratch.target[0], MNT_DETACH);
		break;
	}
	err = ret < 0 ? errno : 0;
	*injected = n && nth_injected(ss->nth);
	ss->calls++;
	if (st->kind == ST_READLOG && err == ENODATA)
		err = 0;	/* an empty log is fine */
	if (!err && st->out)
		ss->reg[st->out] = st->kind == ST_GETFD ? ss->getfd : ret;
	return err;
}

/* A step whose fds are missing is skipped, and what it would have made too. */
static bool step_blocked(struct seqstate *ss, const struct step *st)
{
	bool blocked = (st->reg && (ss->dead[st->reg] || ss->reg[st->reg] < 0)) ||
		       (st->auxreg && (ss->dead[st->auxreg] || ss->reg[st->auxreg] < 0));

	if (blocked) {
		ss->dead[st->reg] = true;
		ss->dead[st->out] = true;
	}
	return blocked;
}

static void step_violation(struct seqstate *ss, unsigned int i, int err,
			   const char *what, unsigned int k, unsigned int n)
{
	char desc[128], log[512] = "";
	const struct step *st = &sequence[i];

	step_describe(st, desc, sizeof(desc));
	if (st->reg && ss->reg[st->reg] >= 0 && st->kind != ST_ATTACH &&
	    st->kind != ST_OPENTGT && st->kind != ST_DETACH)
		configfd_read_log(ss->reg[st->reg], log, sizeof(log));
	violation("step %u %s %s: %s (log: %s); run: failing allocation %u of step %u",
		  i, desc, what, errname(err), log[0] ? log : "empty", n, k);
}

/*
 * After the injected failure of step @i: the step is retried without a
 * fault.  It must then succeed, or, for a spent context, give EBUSY.
 */
static void step_recover(struct seqstate *ss, unsigned int i, unsigned int n)
{
	const struct step *st = &sequence[i];
	bool inj;
	int err = run_step(ss, st, 0, &inj);

	if (st->flags & SF_SPENT) {
		if (err != EBUSY)
			step_violation(ss, i, err, "retried after its failure, expected EBUSY",
				       i, n);
		ss->dead[st->reg] = true;
	} else if (err) {
		step_violation(ss, i, err, "failed when retried after its failure", i, n);
		ss->dead[st->reg] = ss->dead[st->out] = true;
	}
}

/* Close what the run opened and unmount what it attached; nothing else may differ. */
static void run_cleanup(struct seqstate *ss, int k, unsigned int n)
{
	struct balance *after;
	char what[96];
	int r;

	for (r = R_PIPE + 1; r < R_NR; r++) {
		if (ss->reg[r] >= 0)
			close(ss->reg[r]);
		ss->reg[r] = -1;
		ss->dead[r] = false;
	}
	unmount_target(scratch.target[0]);
	after = balance_take();
	snprintf(what, sizeof(what), "after the run failing allocation %u of step %d",
		 n, k);
	if (fd_balance(&ss->before->fds, &after->fds, what) +
	    mount_balance(&ss->before->mnts, &after->mnts, what)) {
		/* Reported once; the next runs are compared with what is left. */
		balance_free(ss->before);
		ss->before = after;
	} else {
		balance_free(after);
	}
}

/*
 * One run of the sequence with the @n-th allocation of step @k failing
 * (@k -1: none).  Returns whether the failure was injected.
 */
static bool run_sequence(struct seqstate *ss, int k, unsigned int n)
{
	bool injected = false, inj;
	unsigned int i;
	int err;

	for (i = 0; i < N_STEPS; i++) {
		const struct step *st = &sequence[i];

		if (!step_applies(st) || step_blocked(ss, st))
			continue;
		err = run_step(ss, st, (int)i == k ? n : 0, &inj);
		if ((int)i == k)
			injected = inj;
		if (!err)
			continue;
		if ((int)i != k || !inj) {
			step_violation(ss, i, err, "failed without an injected fault",
				       k, n);
			ss->dead[st->reg] = ss->dead[st->out] = true;
			continue;
		}
		ss->failed[i]++;
		if (err != ENOMEM && !(err == ENOSPC && (st->flags & SF_FS_ENOSPC)))
			step_violation(ss, i, err,
				       "failed under fault injection, expected ENOMEM",
				       k, n);
		step_recover(ss, i, n);
	}
	run_cleanup(ss, k, n);
	return injected;
}

/* Open the fds every run shares: the bind source and a pipe. */
static void seqstate_init(struct seqstate *ss)
{
	int fds[2], r;

	memset(ss, 0, sizeof(*ss));
	for (r = 0; r < R_NR; r++)
		ss->reg[r] = -1;
	ss->nth = open("/proc/thread-self/fail-nth", O_RDWR | O_CLOEXEC);
	if (ss->nth < 0)
		die_setup("/proc/thread-self/fail-nth: %s", strerror(errno));
	ss->reg[R_SRC] = open(opt.userns ? "ext4/d0" : "dir0", O_PATH | O_CLOEXEC);
	if (ss->reg[R_SRC] < 0 || pipe2(fds, O_NONBLOCK | O_CLOEXEC))
		die_setup("opening the source: %s", strerror(errno));
	ss->reg[R_PIPE] = fds[0];
	close(fds[1]);
	/*
	 * Fault in every page now: a page fault inside a call under
	 * fault injection could fail (and give EFAULT) instead of the call.
	 */
	if (mlockall(MCL_CURRENT | MCL_FUTURE))
		say("mlockall: %s (continuing)", strerror(errno));
}

static void failslab_summary(const struct seqstate *ss, unsigned int runs,
			     double secs)
{
	unsigned int i, points = 0, failed = 0;
	char desc[128];

	for (i = 0; i < N_STEPS; i++) {
		if (!ss->points[i])
			continue;
		step_describe(&sequence[i], desc, sizeof(desc));
		say("step %2u %-45s %3u allocations: %3u failed the call, %3u absorbed",
		    i, desc, ss->points[i], ss->failed[i],
		    ss->points[i] - ss->failed[i]);
		points += ss->points[i];
		failed += ss->failed[i];
	}
	say("failslab: %u runs, %" PRIu64 " calls in %.1f s; %u allocations failed, %u calls failed with them",
	    runs, ss->calls, secs, points, failed);
}

/*
 * For each configfd call of the sequence, fail its 1st, 2nd, ...
 * allocation, one per run, until the call no longer allocates: then
 * the sequence succeeded without an injected failure.
 */
static int run_failslab(void)
{
	struct seqstate *ss = malloc(sizeof(*ss));
	unsigned int k, n, runs = 1;
	double t0 = now();

	if (!ss)
		die_setup("out of memory");
	seqstate_init(ss);
	ss->before = balance_take();
	run_sequence(ss, -1, 0);
	if (atomic_load(&n_violations)) {
		say("the sequence fails without fault injection: no walk");
		send_report(ss->calls, now() - t0, NULL);
		return EXIT_FOUND;
	}
	for (k = 0; k < N_STEPS; k++) {
		if (!step_applies(&sequence[k]) || sequence[k].flags & SF_NOINJECT)
			continue;
		for (n = 1; n <= NTH_MAX; n++, runs++) {
			if (!run_sequence(ss, k, n))
				break;
			ss->points[k]++;
		}
		if (n > NTH_MAX)
			violation("step %u still fails at its allocation %u", k, NTH_MAX);
	}
	failslab_summary(ss, runs, now() - t0);
	send_report(ss->calls, now() - t0, NULL);
	return atomic_load(&n_violations) ? EXIT_FOUND : 0;
}

/* ------------------------------------------------------------------ */
/* The shift-race mode                                                  */

#define RACE_WRITERS	2
#define RACE_READERS	2
#define RACE_THREADS	(1 + RACE_WRITERS + 1 + 1 + RACE_READERS)
#define RACE_FILES	12	/* per writer and round */
#define RACE_ATTACKS	24	/* per round, by the attacker */

/* Round variants: what else happens while the shift is attempted. */
#define RV_UMOUNT	0x1	/* the mount is unmounted */
#define RV_CLOSE	0x2	/* the shifter's configfd is closed */

struct race {
	unsigned int round, variant;
	const char *target;
	int dirfd;		/* ext4's w/ through the mount under test */
	int mnt_id;
	atomic_int cfd;		/* the shifter's configfd; -1 once closed */
	atomic_bool shifted;	/* its CMD_RECONFIGURE "shift" succeeded */
	atomic_int writing;	/* writers still writing */
	atomic_bool stop;	/* readers stop */
	atomic_uint ebusy, reads, files;
	atomic_uint attacks, refused;	/* the attacker's tries, and EPERM/EACCES */
	atomic_uint host_attacks, host_refused;	/* the same, by the host attacker */
	atomic_uint copy_ups, copy_ups_refused;	/* overlay copy-ups; EPERM through a shift */
	int shift_err;
	pthread_barrier_t go;
};

struct racer {
	struct race *rc;
	unsigned int idx;
	struct rng rng;
	pthread_t thread;
};

/* CMD_RECONFIGURE "shift", retried while writers hold the mount (EBUSY). */
static void *race_shifter(void *arg)
{
	struct racer *t = arg;
	struct race *rc = t->rc;
	unsigned int idle = 0;
	int fd, err;

	pthread_barrier_wait(&rc->go);
	usleep(rng_below(&t->rng, 20000));
	for (;;) {
		fd = atomic_load(&rc->cfd);
		if (fd < 0) {
			err = EBADF;
			break;
		}
		if (sys_configfd_action(fd, CONFIGFD_CMD_RECONFIGURE, NULL, NULL, 0) == 0) {
			atomic_store(&rc->shifted, true);
			err = 0;
			break;
		}
		err = errno;
		/* Busy with no writer left for long: held writers leaked. */
		if (err != EBUSY || (atomic_load(&rc->writing) == 0 && ++idle > 200))
			break;
		atomic_fetch_add(&rc->ebusy, 1);
		usleep(500);
	}
	rc->shift_err = err;
	return NULL;
}

/*
 * Files created through the mount, each held open for writing across a
 * pause; named "-post" when the shift had already succeeded.
 */
static void *race_writer(void *arg)
{
	struct racer *t = arg;
	struct race *rc = t->rc;
	char name[64], text[80];
	size_t len, half;
	unsigned int i;
	int fd;

	pthread_barrier_wait(&rc->go);
	for (i = 0; i < RACE_FILES; i++) {
		bool post = atomic_load(&rc->shifted);

		snprintf(name, sizeof(name), "r%02u-w%u-%02u-%s", rc->round,
			 t->idx, i, post ? "post" : "any");
		len = snprintf(text, sizeof(text), "%s\n", name);
		half = len / 2;
		fd = openat(rc->dirfd, name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC,
			    0644);
		if (fd < 0) {
			violation("round %u: creating %s through the mount: %s",
				  rc->round, name, strerror(errno));
			continue;
		}
		if (write(fd, text, half) != (ssize_t)half)
			violation("round %u: writing %s: %s", rc->round, name,
				  strerror(errno));
		usleep(rng_below(&t->rng, 2000));
		if (write(fd, text + half, len - half) != (ssize_t)(len - half))
			violation("round %u: writing %s: %s", rc->round, name,
				  strerror(errno));
		close(fd);
		atomic_fetch_add(&rc->files, 1);
		usleep(rng_below(&t->rng, 3000));
	}
	atomic_fetch_sub(&rc->writing, 1);
	return NULL;
}

/*
 * What the attackers try through the mount, shifted or not yet: none of
 * it may ever work for an id the user namespace does not own.  Device
 * nodes must not open; setuid/setgid bits (by chmod, creation or a POSIX
 * ACL) and file capabilities may only land on files of its own ids; real
 * root's setuid program written through a shared mapping must have lost
 * its bit; an overlay copy-up into the mount must not carry privilege
 * over (verify_privileges() and verify_owners() check the disk
 * afterwards).  Root of the user namespace makes each attack itself, or
 * hands it to the host attacker: a process of the initial namespace with
 * the namespace root's host ids (USERNS_BASE), which reaches the mount by
 * /proc/PID/root or by the directory fd it is passed.
 */
enum attack {
	ATK_OPEN_NODE, ATK_CHMOD_SUID, ATK_CHMOD_SGID, ATK_CAPS,
	ATK_CREATE_SUID, ATK_TMPFILE_SUID, ATK_ACL_SGID, ATK_MMAP_SUID,
	ATK_COPY_UP,
	ATK_NR
};

/* One attack, in a form another process can make. */
struct attack_req {
	enum attack atk;
	unsigned int round;
	uint32_t coins;		/* the attack's own random choices */
	bool via_proc;		/* host: by /proc/PID/root, not the passed fd */
	pid_t pid;		/* whose root the host attacker walks */
	char name[64];		/* of the file to make, in ext4's w/ */
	char dir[96];		/* the mount's target, in that process's namespace */
};

struct attack_res {
	int ret, err;
};

#define COIN(q, n)	(((q)->coins >> (n)) & 1)

/*
 * Real root's setuid program, changed through a shared writable mapping:
 * through a shift the open drops the bit first; unshifted, the open is
 * refused (the program is not the namespace's).
 */
static int attack_mmap_suid(int dirfd, unsigned int round)
{
	char name[32], *p;
	int fd, ret = 0;

	snprintf(name, sizeof(name), RACE_SUID "%02u", round % RACE_SUID_FILES);
	fd = openat(dirfd, name, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return -1;
	p = mmap(NULL, 1, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED) {
		ret = -1;
	} else {
		p[0] = 'X';
		if (msync(p, 1, MS_SYNC))
			ret = -1;
		munmap(p, 1);
	}
	close(fd);
	return ret;
}

/*
 * chmod 02745 (which grants nothing), then a minimal access ACL whose
 * group entry has execute: the mode it leaves is a setgid executable.
 */
static int attack_acl_sgid(int dirfd, const char *name)
{
	struct { uint16_t tag, perm; uint32_t id; } acl[3] = {
		{ 0x01, 7, ~0u },	/* ACL_USER_OBJ rwx */
		{ 0x04, 5, ~0u },	/* ACL_GROUP_OBJ r-x */
		{ 0x20, 5, ~0u },	/* ACL_OTHER r-x */
	};
	char value[4 + sizeof(acl)], path[PATH_MAX];
	uint32_t version = 2;

	if (fchmodat(dirfd, name, 02745, 0))
		return -1;
	memcpy(value, &version, sizeof(version));
	memcpy(value + sizeof(version), acl, sizeof(acl));
	snprintf(path, sizeof(path), "/proc/self/fd/%d/%s", dirfd, name);
	return setxattr(path, "system.posix_acl_access", value, sizeof(value), 0);
}

/* A v2 or v3 security.capability granting cap_net_raw, effective. */
static int attack_setcaps(int dirfd, const char *name, bool v3)
{
	uint32_t caps[6] = { (v3 ? 0x03000000u : 0x02000000u) | 1, 1u << 13,
			     0, 0, 0, 0 /* v3 rootid: the caller's root */ };
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "/proc/self/fd/%d/%s", dirfd, name);
	return setxattr(path, "security.capability", caps,
			v3 ? sizeof(caps) : sizeof(caps) - sizeof(caps[5]), 0);
}

/* A plain file of the attacker's through the mount: 0, or -1 with errno. */
static int attack_file(int dirfd, const char *name)
{
	int fd = openat(dirfd, name, O_WRONLY | O_CREAT | O_CLOEXEC, 0755);

	if (fd < 0)
		return -1;
	close(fd);
	return 0;
}

/*
 * A rootless overlay on RACE_OVL whose lower directory is the mount's
 * RACE_LOWER (real root's setuid program and file-capability program)
 * and whose upper and work directories the attacker makes in w/: opening
 * a program for write copies it up with the mounter's credentials
 * (vfs_tmpfile, notify_change, vfs_setxattr on the mount), which must not
 * carry its privilege into the upper directory for a lent id.
 */
static int attack_copy_up(int dirfd, const char *name, bool fcap)
{
	char opts[512], upper[80], work[80];
	int fd, err;

	snprintf(upper, sizeof(upper), "%s/u", name);
	snprintf(work, sizeof(work), "%s/k", name);
	if (mkdirat(dirfd, name, 0755) || mkdirat(dirfd, upper, 0755) ||
	    mkdirat(dirfd, work, 0755))
		return -1;
	snprintf(opts, sizeof(opts),
		 "lowerdir=/proc/self/fd/%d/../" RACE_LOWER
		 ",upperdir=/proc/self/fd/%d/%s,workdir=/proc/self/fd/%d/%s,userxattr",
		 dirfd, dirfd, upper, dirfd, work);
	if (mount("overlay", RACE_OVL, "overlay", 0, opts))
		return -1;
	fd = open(fcap ? RACE_OVL "/" RACE_FCAP_PROG : RACE_OVL "/" RACE_SUID_PROG,
		  O_WRONLY | O_CLOEXEC);
	err = errno;
	if (fd >= 0)
		close(fd);
	umount2(RACE_OVL, MNT_DETACH);
	errno = err;
	return fd < 0 ? -1 : 0;
}

/* The attack @q on the directory @dirfd (ext4's w/ through the mount). */
static int attack_do(int dirfd, const struct attack_req *q)
{
	int fd = -1;

	switch (q->atk) {
	case ATK_OPEN_NODE:
		fd = openat(dirfd, COIN(q, 0) ? "../" RACE_CHR : "../" RACE_BLK,
			    (COIN(q, 1) ? O_RDWR : O_RDONLY) | O_NONBLOCK | O_CLOEXEC);
		break;
	case ATK_CHMOD_SUID:
	case ATK_CHMOD_SGID:
		if (attack_file(dirfd, q->name))
			return -1;
		return fchmodat(dirfd, q->name,
				q->atk == ATK_CHMOD_SUID ? 04755 : 02755, 0);
	case ATK_CAPS:
		if (attack_file(dirfd, q->name))
			return -1;
		return attack_setcaps(dirfd, q->name, COIN(q, 0));
	case ATK_ACL_SGID:
		if (attack_file(dirfd, q->name))
			return -1;
		return attack_acl_sgid(dirfd, q->name);
	case ATK_MMAP_SUID:
		return attack_mmap_suid(dirfd, q->round);
	case ATK_COPY_UP:
		return attack_copy_up(dirfd, q->name, COIN(q, 0));
	case ATK_CREATE_SUID:
		fd = openat(dirfd, q->name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC,
			    04755);
		break;
	case ATK_TMPFILE_SUID:
		fd = openat(dirfd, ".", O_TMPFILE | O_WRONLY | O_CLOEXEC, 04755);
		break;
	case ATK_NR:
		errno = EINVAL;
		return -1;
	}
	if (fd < 0)
		return -1;
	close(fd);
	return 0;
}

/* The namespace's end of the host attacker's socket; -1 when there is none. */
static int host_attacker_sock = -1;

/* The host attacker's loop: serve attack requests until the socket closes. */
static void host_attacker_serve(int sock)
{
	char cbuf[CMSG_SPACE(sizeof(int))], path[PATH_MAX];
	struct attack_req q;
	struct attack_res res;
	struct iovec iov = { &q, sizeof(q) };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };
	struct cmsghdr *cm;
	int fd;

	for (;;) {
		msg.msg_control = cbuf;
		msg.msg_controllen = sizeof(cbuf);
		if (recvmsg(sock, &msg, MSG_CMSG_CLOEXEC) != (ssize_t)sizeof(q))
			return;
		cm = CMSG_FIRSTHDR(&msg);
		fd = -1;
		if (cm && cm->cmsg_level == SOL_SOCKET && cm->cmsg_type == SCM_RIGHTS)
			memcpy(&fd, CMSG_DATA(cm), sizeof(fd));
		if (q.via_proc) {
			snprintf(path, sizeof(path), "/proc/%d/root%s/w",
				 (int)q.pid, q.dir);
			fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		}
		res.ret = fd < 0 ? -1 : attack_do(fd, &q);
		res.err = res.ret ? errno : 0;
		if (fd >= 0)
			close(fd);
		if (send(sock, &res, sizeof(res), MSG_NOSIGNAL) != sizeof(res))
			return;
	}
}

/*
 * The host attacker: a child of real root that becomes the namespace
 * root's host ids (uid and gid USERNS_BASE, no groups, no capability) in
 * the initial user namespace, and makes the attacks it is sent.
 */
static pid_t host_attacker_start(void)
{
	int sv[2];
	pid_t pid;

	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv))
		die_setup("socketpair: %s", strerror(errno));
	pid = fork();
	if (pid < 0)
		die_setup("fork: %s", strerror(errno));
	if (pid == 0) {
		close(sv[0]);
		if (chdir("/") || setgroups(0, NULL) ||
		    setresgid(USERNS_BASE, USERNS_BASE, USERNS_BASE) ||
		    setresuid(USERNS_BASE, USERNS_BASE, USERNS_BASE) ||
		    prctl(PR_SET_DUMPABLE, 1, 0, 0, 0))
			die_setup("the host attacker cannot become uid %u: %s",
				  USERNS_BASE, strerror(errno));
		host_attacker_serve(sv[1]);
		_exit(0);
	}
	close(sv[1]);
	host_attacker_sock = sv[0];
	return pid;
}

static void host_attacker_stop(pid_t pid)
{
	close(host_attacker_sock);
	host_attacker_sock = -1;
	if (waitpid(pid, NULL, 0) < 0)
		die_setup("waitpid (the host attacker): %s", strerror(errno));
}

/*
 * The attack @q made by the host attacker, by /proc/PID/root or with
 * @dirfd passed to it: 0, or -1 with the attacker's errno.
 */
static int host_attack(const struct attack_req *q, int dirfd)
{
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} c;
	struct iovec iov = { (void *)q, sizeof(*q) };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };
	struct attack_res res;
	struct cmsghdr *cm;

	if (!q->via_proc) {
		memset(&c, 0, sizeof(c));
		msg.msg_control = c.buf;
		msg.msg_controllen = sizeof(c.buf);
		cm = CMSG_FIRSTHDR(&msg);
		cm->cmsg_level = SOL_SOCKET;
		cm->cmsg_type = SCM_RIGHTS;
		cm->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(cm), &dirfd, sizeof(dirfd));
	}
	if (sendmsg(host_attacker_sock, &msg, MSG_NOSIGNAL) != (ssize_t)sizeof(*q) ||
	    recv(host_attacker_sock, &res, sizeof(res), 0) != sizeof(res))
		die_setup("the host attacker is gone: %s", strerror(errno));
	errno = res.err;
	return res.ret;
}

/* One attack of the round, by root of the user namespace or the host attacker. */
static void attack_once(struct race *rc, struct rng *r, unsigned int n)
{
	struct attack_req q = {
		.atk = rng_below(r, ATK_NR),
		.round = rc->round,
		.coins = (uint32_t)rng_next(r),
		.pid = getpid(),
	};
	/* The host attacker cannot mount: copy-ups are the namespace's. */
	bool host = q.atk != ATK_COPY_UP && rng_chance(r, 40);
	bool shifted = atomic_load(&rc->shifted);
	int ret;

	q.via_proc = rng_chance(r, 50);
	snprintf(q.name, sizeof(q.name), "r%02u-a-%s%02u", rc->round,
		 host ? "h" : "", n);
	snprintf(q.dir, sizeof(q.dir), "%s", rc->target);
	ret = host ? host_attack(&q, rc->dirfd) : attack_do(rc->dirfd, &q);
	if (q.atk == ATK_OPEN_NODE && ret == 0)
		violation("round %u: a device node of real root's opened through the mount by %s (shifted: %d)",
			  rc->round, host ? "the host attacker" : "the namespace's root",
			  shifted);
	atomic_fetch_add(host ? &rc->host_attacks : &rc->attacks, 1);
	if (ret && (errno == EPERM || errno == EACCES))
		atomic_fetch_add(host ? &rc->host_refused : &rc->refused, 1);
	if (q.atk == ATK_COPY_UP) {
		atomic_fetch_add(&rc->copy_ups, 1);
		if (ret && errno == EPERM && shifted)
			atomic_fetch_add(&rc->copy_ups_refused, 1);
	}
}

static void *race_attacker(void *arg)
{
	struct racer *t = arg;
	struct race *rc = t->rc;
	unsigned int n;

	pthread_barrier_wait(&rc->go);
	for (n = 0; n < RACE_ATTACKS; n++) {
		attack_once(rc, &t->rng, n);
		usleep(rng_below(&t->rng, 15000));
	}
	return NULL;
}

/* Unmount the mount and close the shifter's configfd, at random times. */
static void *race_disruptor(void *arg)
{
	struct racer *t = arg;
	struct race *rc = t->rc;
	int fd;

	pthread_barrier_wait(&rc->go);
	/* Before the shift, or after it (writers make it wait 0.1 to 0.3 s). */
	usleep(rng_below(&t->rng, 400000));
	if (rc->variant & RV_UMOUNT && umount2(rc->target, MNT_DETACH))
		violation("round %u: umount2 %s: %s", rc->round, rc->target,
			  strerror(errno));
	usleep(rng_below(&t->rng, 5000));
	if (rc->variant & RV_CLOSE) {
		fd = atomic_exchange(&rc->cfd, -1);
		if (fd >= 0)
			close(fd);
	}
	return NULL;
}

/* One read of mountinfo: it parses, and the mount under test keeps a shift it had. */
static void race_read_once(struct race *rc, struct mntset *ms, bool *seen_shift)
{
	char why[512], *text = slurp("/proc/self/mountinfo");
	const struct mnt_entry *e;
	bool ok, shift;

	if (!text) {
		violation("round %u: reading mountinfo: %s", rc->round,
			  strerror(errno));
		return;
	}
	ok = mountinfo_check(text, false, ms, why, sizeof(why));
	free(text);
	if (!ok) {
		violation("round %u: /proc/self/mountinfo: %s", rc->round, why);
		return;
	}
	e = mntset_find(ms, rc->mnt_id);
	if (!e)
		return;
	shift = strstr(e->opts, ",shift") != NULL;
	if (*seen_shift && !shift)
		violation("round %u: mount %d lost its shift (%s)", rc->round,
			  rc->mnt_id, e->opts);
	*seen_shift |= shift;
}

/* mountinfo, read over and over while the others work. */
static void *race_reader(void *arg)
{
	struct racer *t = arg;
	struct race *rc = t->rc;
	struct mntset ms = { 0, 0, NULL };
	bool seen_shift = false;

	pthread_barrier_wait(&rc->go);
	while (!atomic_load(&rc->stop)) {
		race_read_once(rc, &ms, &seen_shift);
		atomic_fetch_add(&rc->reads, 1);
		usleep(rng_below(&t->rng, 2000));
	}
	mntset_free(&ms);
	return NULL;
}

/*
 * A fresh bind of the ext4 directory (a clone of the marked mount)
 * attached on a target, and a configfd ready to shift it in place.
 */
static bool race_setup(struct race *rc, unsigned int round)
{
	char log[512], path[PATH_MAX];
	int src, bindfd = -1, pathfd, cfd, err;

	memset(rc, 0, sizeof(*rc));
	rc->round = round;
	rc->variant = round % 4;
	rc->target = scratch.target[round % N_TARGETS];
	src = open("ext4", O_PATH | O_CLOEXEC);
	err = src < 0 ? errno : bind_call(src, CONFIGFD_CMD_CREATE, "detached",
					  &bindfd, log, sizeof(log));
	if (src >= 0)
		close(src);
	if (err || move_mount(bindfd, "", AT_FDCWD, rc->target,
			      MOVE_MOUNT_F_EMPTY_PATH)) {
		violation("round %u: binding the ext4 directory on %s: %s (log: %s)",
			  round, rc->target, strerror(err ? err : errno), log);
		if (bindfd >= 0)
			close(bindfd);
		return false;
	}
	close(bindfd);
	snprintf(path, sizeof(path), "%s/w", rc->target);
	rc->dirfd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	pathfd = open(rc->target, O_PATH | O_CLOEXEC);
	rc->mnt_id = (int)fd_mount_id(pathfd);
	cfd = sys_configfd_open("bind", O_CLOEXEC, CONFIGFD_CMD_RECONFIGURE);
	/* The context keeps its own reference: pathfd is closed at once. */
	if (rc->dirfd < 0 || pathfd < 0 || cfd < 0 ||
	    sys_configfd_action(cfd, CONFIGFD_SET_FD, "pathfd", NULL, pathfd) ||
	    sys_configfd_action(cfd, CONFIGFD_SET_FLAG, "shift", NULL, 0))
		die_setup("round %u: preparing the shift of %s: %s", round,
			  rc->target, strerror(errno));
	close(pathfd);
	atomic_init(&rc->cfd, cfd);
	atomic_init(&rc->writing, RACE_WRITERS);
	pthread_barrier_init(&rc->go, NULL, RACE_THREADS);
	return true;
}

/* After the round, with nothing running: what mountinfo must say now. */
static void race_verify(struct race *rc)
{
	struct mntset ms = { 0, 0, NULL };
	const struct mnt_entry *e;
	char why[512];

	if (!mntset_read(&ms, why, sizeof(why))) {
		violation("round %u: mount table after the round: %s", rc->round, why);
		mntset_free(&ms);
		return;
	}
	e = mntset_find(&ms, rc->mnt_id);
	if (!rc->variant && !atomic_load(&rc->shifted))
		violation("round %u: the shift of %s failed: %s (nothing but writers raced it)",
			  rc->round, rc->target, errname(rc->shift_err));
	if (rc->variant & RV_UMOUNT && e)
		violation("round %u: %s is still mounted after umount2", rc->round,
			  rc->target);
	if (!(rc->variant & RV_UMOUNT) && !e)
		violation("round %u: the mount on %s vanished", rc->round, rc->target);
	if (e && atomic_load(&rc->shifted) &&
	    (!strstr(e->opts, ",idmapped") || !strstr(e->opts, ",shift")))
		violation("round %u: %s was shifted but mountinfo shows '%s'",
			  rc->round, rc->target, e->opts);
	mntset_free(&ms);
}

static void race_cleanup(struct race *rc)
{
	int fd = atomic_exchange(&rc->cfd, -1);

	if (fd >= 0)
		close(fd);
	close(rc->dirfd);
	umount2(rc->target, MNT_DETACH);	/* EINVAL if already gone */
	pthread_barrier_destroy(&rc->go);
}

struct race_totals {
	unsigned int rounds, shifted, files, ebusy, reads, attacks, refused;
	unsigned int host_attacks, host_refused, copy_ups, copy_ups_refused;
};

static void race_round(unsigned int round, struct race_totals *tot)
{
	static void *(*const fns[RACE_THREADS])(void *) = {
		race_shifter, race_writer, race_writer, race_disruptor,
		race_attacker, race_reader, race_reader,
	};
	struct racer t[RACE_THREADS];
	struct race rc;
	unsigned int i;

	if (!race_setup(&rc, round))
		return;
	for (i = 0; i < RACE_THREADS; i++) {
		t[i].rc = &rc;
		t[i].idx = i;
		rng_init(&t[i].rng, opt.seed + round, i);
		if (pthread_create(&t[i].thread, NULL, fns[i], &t[i]))
			die_setup("pthread_create failed");
	}
	/* Readers run until everyone else is done. */
	for (i = 0; i < RACE_THREADS - RACE_READERS; i++)
		pthread_join(t[i].thread, NULL);
	atomic_store(&rc.stop, true);
	for (; i < RACE_THREADS; i++)
		pthread_join(t[i].thread, NULL);
	race_verify(&rc);
	race_cleanup(&rc);
	tot->rounds++;
	tot->shifted += atomic_load(&rc.shifted);
	tot->files += atomic_load(&rc.files);
	tot->ebusy += atomic_load(&rc.ebusy);
	tot->reads += atomic_load(&rc.reads);
	tot->attacks += atomic_load(&rc.attacks);
	tot->refused += atomic_load(&rc.refused);
	tot->host_attacks += atomic_load(&rc.host_attacks);
	tot->host_refused += atomic_load(&rc.host_refused);
	tot->copy_ups += atomic_load(&rc.copy_ups);
	tot->copy_ups_refused += atomic_load(&rc.copy_ups_refused);
}

static int run_shift_race(void)
{
	struct race_totals tot = { 0 };
	struct balance *before = balance_take();
	double t0 = now();
	unsigned int r;

	for (r = 0; r < opt.rounds; r++)
		race_round(r, &tot);
	say("shift-race: %u rounds in %.1f s, %u shifted; %u files written, %u EBUSY retries of the shift, %u mountinfo reads",
	    tot.rounds, now() - t0, tot.shifted, tot.files, tot.ebusy, tot.reads);
	say("privilege attacks: %u tries through the mounts, %u refused (EPERM/EACCES)",
	    tot.attacks, tot.refused);
	say("host-process attacks: %u tries through /proc/PID/root or a passed fd, %u refused (EPERM/EACCES)",
	    tot.host_attacks, tot.host_refused);
	say("overlay copy-ups: %u tries, %u refused through a shift (EPERM)",
	    tot.copy_ups, tot.copy_ups_refused);
	if (!tot.refused || !tot.host_refused)
		violation("no privilege attack was refused: were any made?");
	if (!tot.shifted)
		violation("no round shifted its mount");
	balance_check(before, "after the rounds");
	/* open, two writes and close per file; one call per read and shift attempt */
	send_report(4ULL * tot.files + tot.reads + tot.ebusy + tot.rounds +
		    2ULL * (tot.attacks + tot.host_attacks), now() - t0, NULL);
	return atomic_load(&n_violations) ? EXIT_FOUND : 0;
}

/* What landed on disk, seen by real root: the owners a shift promises. */
static bool has_suffix(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && strcmp(s + n - m, suffix) == 0;
}

/* Whether the first byte of @name is the attacker's 'X'. */
static bool file_was_written(int dir, const char *name)
{
	int fd = openat(dir, name, O_RDONLY | O_CLOEXEC);
	char c = 0;

	if (fd >= 0) {
		if (read(fd, &c, 1) != 1)
			c = 0;
		close(fd);
	}
	return c == 'X';
}

static bool file_holds_its_name(int dir, const char *name)
{
	char buf[80], want[80];
	int fd = openat(dir, name, O_RDONLY | O_CLOEXEC);
	ssize_t n = fd < 0 ? -1 : read(fd, buf, sizeof(buf));

	if (fd >= 0)
		close(fd);
	snprintf(want, sizeof(want), "%s\n", name);
	return n == (ssize_t)strlen(want) && memcmp(buf, want, n) == 0;
}

/* An id the user namespace of the fuzzer's child owns. */
static bool own_id(unsigned int id)
{
	return id >= USERNS_BASE && id - USERNS_BASE < USERNS_LEN;
}

/*
 * No privilege for an id the user namespace does not own, whatever was
 * tried through the mounts: no setuid bit unless the owner is its own,
 * no setgid (with group execute) unless the group is, no file capability
 * valid for a root id not its own (v2: real root's).
 */
static void verify_privileges(int dir, const char *name, const struct stat *st)
{
	uint32_t caps[6];
	ssize_t n;
	char path[PATH_MAX];

	if ((st->st_mode & S_ISUID) && !own_id(st->st_uid))
		violation("%s is setuid on disk, owned by %u", name, st->st_uid);
	if ((st->st_mode & (S_ISGID | S_IXGRP)) == (S_ISGID | S_IXGRP) &&
	    !own_id(st->st_gid))
		violation("%s is setgid on disk, group %u", name, st->st_gid);
	snprintf(path, sizeof(path), "/proc/self/fd/%d/%s", dir, name);
	n = lgetxattr(path, "security.capability", caps, sizeof(caps));
	if (n == 20)
		violation("%s has a v2 file capability (valid for real root)", name);
	else if (n == 24 && !own_id(caps[5]))
		violation("%s has a file capability for root id %u", name, caps[5]);
}

/* What an attacker's directory (an overlay's upper and work) holds. */
static void verify_tree_privileges(int parent, const char *name,
				   unsigned int depth)
{
	int fd = openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	struct dirent *de;
	struct stat st;
	DIR *d = fd < 0 ? NULL : fdopendir(fd);

	if (!d) {
		violation("reading the attacker's directory %s: %s", name,
			  strerror(errno));
		if (fd >= 0)
			close(fd);
		return;
	}
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW))
			continue;
		verify_privileges(dirfd(d), de->d_name, &st);
		if (S_ISDIR(st.st_mode) && depth < 4)
			verify_tree_privileges(dirfd(d), de->d_name, depth + 1);
	}
	closedir(d);
}

/* The overlay's lower programs are real root's, and stay as they were. */
static void verify_lower(void)
{
	char path[PATH_MAX];
	uint32_t caps[6];
	struct stat st;

	snprintf(path, sizeof(path), "%s/" RACE_LOWER "/" RACE_SUID_PROG, scratch.ext4);
	if (stat(path, &st) || (st.st_mode & 07777) != 04755 || st.st_uid ||
	    st.st_gid || st.st_size != 5)
		violation("%s changed: mode %04o, %u:%u, %lld bytes (was 4755 0:0 5)",
			  path, st.st_mode & 07777, st.st_uid, st.st_gid,
			  (long long)st.st_size);
	snprintf(path, sizeof(path), "%s/" RACE_LOWER "/" RACE_FCAP_PROG, scratch.ext4);
	if (getxattr(path, "security.capability", caps, sizeof(caps)) != sizeof(fcap_v2) ||
	    memcmp(caps, fcap_v2, sizeof(fcap_v2)))
		violation("%s lost or changed its file capability", path);
}

static void verify_owners(void)
{
	unsigned int post = 0, race_root = 0, race_user = 0, attacked = 0;
	unsigned int suid_written = 0;
	char dir[PATH_MAX];
	struct dirent *de;
	struct stat st;
	DIR *d;

	snprintf(dir, sizeof(dir), "%s/w", scratch.ext4);
	d = opendir(dir);
	if (!d) {
		violation("%s: %s", dir, strerror(errno));
		return;
	}
	while ((de = readdir(d))) {
		bool is_post = has_suffix(de->d_name, "-post");

		if (de->d_name[0] == '.')
			continue;
		if (fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW)) {
			violation("%s/%s: %s", dir, de->d_name, strerror(errno));
			continue;
		}
		/* Real root's own until written, then no longer setuid. */
		if (strncmp(de->d_name, RACE_SUID, strlen(RACE_SUID)) == 0) {
			if (!file_was_written(dirfd(d), de->d_name))
				continue;
			suid_written++;
			if (st.st_mode & (S_ISUID | S_ISGID))
				violation("%s/%s was written through a mapping and is still mode %04o",
					  dir, de->d_name, st.st_mode & 07777);
			continue;
		}
		verify_privileges(dirfd(d), de->d_name, &st);
		if (strstr(de->d_name, "-a-")) {
			attacked++;
			if (S_ISDIR(st.st_mode))
				verify_tree_privileges(dirfd(d), de->d_name, 0);
			continue;
		}
		if (st.st_uid == 0 && st.st_gid == 0) {
			post += is_post;
			race_root += !is_post;
		} else if (!is_post && st.st_uid == USERNS_BASE &&
			   st.st_gid == USERNS_BASE) {
			race_user++;
		} else {
			violation("%s/%s is %u:%u on disk; written %s, it must be %s",
				  dir, de->d_name, st.st_uid, st.st_gid,
				  is_post ? "after the shift" : "around the shift",
				  is_post ? "0:0" : "0:0 or 100000:100000");
		}
		if (!file_holds_its_name(dirfd(d), de->d_name))
			violation("%s/%s does not hold what was written", dir,
				  de->d_name);
	}
	closedir(d);
	verify_lower();
	say("files on disk: %u written after the shift (0:0), %u racing it (%u as 0:0, %u as %u:%u), %u by the attacker, none privileged for a lent id; %u of real root's setuid programs written through a mapping, none still setuid",
	    post, race_root + race_user, race_root, race_user, USERNS_BASE,
	    USERNS_BASE, attacked, suid_written);
	if (!post)
		violation("no file was written through a shifted mount");
}

/* ------------------------------------------------------------------ */
/* The revoke-race mode                                                 */

/*
 * Real root revokes a live shift (disallow-shift with revoke) at a random
 * moment, while attacker threads of the user namespace change files they
 * opened through it before (docs/design/idmap-rule.md, b.2 to b.4).  Each
 * call is recorded with the phase it ran in: before the revocation, in
 * flight across it, or started after it had completed (the attacker saw
 * the parent's flag, stored once the revoking call returned, before it
 * began).  No call of the last kind may succeed, except reads and fstat,
 * which keep working by design (b.6), and stores through a shared mapping
 * that was writable before the revocation, the one documented exception
 * (b.5): those are recorded but not counted.
 *
 * Each round runs in a child of its own, a new user namespace: revocation
 * withdraws the mark, and a namespace made before the store was marked
 * again would see the withdrawn one.  The parent (real root) marks the
 * store, makes the round's files, revokes, and judges the records and
 * what is on disk.  The store is the marked ext4 directory, and in every
 * other round, where the guest has mkfs.xfs, a marked xfs filesystem with
 * reflinks: on ext4 FICLONERANGE fails with EOPNOTSUPP before the gate.
 */
#define RV_ATTACKERS	3	/* threads per round */
#define RV_BEFORE_MAX	48	/* iterations before the revocation, at most */
#define RV_AFTER	3	/* iterations started after it, per thread */
#define RV_ITERS	(RV_BEFORE_MAX + RV_AFTER)
#define RV_WINDOW_US	60000	/* the revocation comes this soon after the files are held */
#define RV_DATA_SIZE	(4 * PAGE_SZ)	/* the held file: clones and copies land below 3 pages */

enum rv_store { RS_EXT4, RS_XFS, RS_NR };

static const char *const rv_store_names[RS_NR] = { "ext4", "xfs" };

/* What the attackers call, once each per iteration, in random order. */
enum rv_kind {
	RK_WRITE, RK_PWRITE, RK_FTRUNCATE, RK_FCHMOD, RK_FCHOWN,
	RK_REMOVEXATTR, RK_SETFLAGS, RK_SETLEASE, RK_CLONE, RK_COPY,
	RK_MMAP, RK_MPROTECT, RK_OPENAT, RK_CREATE,
	RK_READ, RK_FSTAT, RK_MAPSTORE,
	RK_NR
};

enum rv_rule {
	RR_GATED,	/* changes a file, or opens or makes one: refused after */
	RR_WORKS,	/* reads through files opened before: keep working (b.6) */
	RR_EXEMPT,	/* stores through a mapping writable before (b.5) */
};

enum rv_phase { RP_BEFORE, RP_INFLIGHT, RP_AFTER, RP_NR };

static const char *const rv_phase_names[RP_NR] = {
	[RP_BEFORE] = "before", [RP_INFLIGHT] = "across", [RP_AFTER] = "after",
};

/* One call, as an attacker thread recorded it. */
struct rv_record {
	uint8_t kind, phase;
	uint16_t iter;		/* names the file a creation or removal was about */
	int32_t err;		/* 0: it succeeded */
	int64_t start_ns;	/* CLOCK_MONOTONIC, when it began */
};

#define RV_MAX_REC	(RV_ITERS * RK_NR)

/* Between the parent and a round's child: MAP_SHARED, made before the fork. */
struct rv_shared {
	atomic_bool ready;	/* the attackers hold their files (child) */
	atomic_bool revoked;	/* the revoking call returned (parent) */
	atomic_bool abort;	/* no revocation is coming: stop (parent) */
	struct rv_log {
		unsigned int n;
		struct rv_record rec[RV_MAX_REC];
	} log[RV_ATTACKERS];
};

static struct rv_shared *rv_shm;

/* The round, as the parent chose it before forking its child. */
static struct rv_round {
	unsigned int round;
	enum rv_store store;
	bool in_place;		/* attached and shifted in place, or a shifted detached bind */
	char dir[16];		/* the round's directory in the store */
} rv_cur;

/* An attacker thread and what it holds, all opened through the shift. */
struct rv_attacker {
	unsigned int idx, iter;
	struct rng rng;
	int dirfd;		/* the round's directory */
	int rw, ro;		/* its data file, read-write and read-only */
	int src, lease;		/* a clone's source; a file for leases */
	int caps[RV_ITERS];	/* real root's files with a capability */
	char *wmap;		/* a shared writable mapping of rw */
	char *rmap;		/* a shared read-only mapping of rw */
	int flags;		/* its FS_IOC_GETFLAGS */
	struct rv_log *log;
	pthread_barrier_t *held;
	pthread_t thread;
};

static int64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static int rv_ret(long ret)
{
	return ret < 0 ? errno : 0;
}

/* Either of its data file's fds: attribute calls go through both kinds. */
static int rv_either(struct rv_attacker *a)
{
	return rng_chance(&a->rng, 50) ? a->rw : a->ro;
}

static int rk_write(struct rv_attacker *a)
{
	ssize_t n = write(a->rw, "w", 1);

	return n == 1 ? 0 : n < 0 ? errno : EIO;
}

static int rk_pwrite(struct rv_attacker *a)
{
	ssize_t n = pwrite(a->rw, "p", 1, 64 + a->iter);

	return n == 1 ? 0 : n < 0 ? errno : EIO;
}

/* Between 3 and 4 pages: the mappings (page 0), clones and copies stay inside. */
static int rk_ftruncate(struct rv_attacker *a)
{
	return rv_ret(ftruncate(a->rw, RV_DATA_SIZE - (a->iter % 2) * PAGE_SZ / 2));
}

static int rk_fchmod(struct rv_attacker *a)
{
	return rv_ret(fchmod(rv_either(a), a->iter % 2 ? 0664 : 0644));
}

/* To its owner through the shift (on disk 0:0): any id change would do. */
static int rk_fchown(struct rv_attacker *a)
{
	return rv_ret(fchown(rv_either(a), 0, 0));
}

/* A file capability of real root's (a lent owner) taken off, a fresh file each time. */
static int rk_removexattr(struct rv_attacker *a)
{
	return rv_ret(fremovexattr(a->caps[a->iter], "security.capability"));
}

static int rk_setflags(struct rv_attacker *a)
{
	int flags = a->flags ^ FS_NODUMP_FL;

	if (ioctl(rv_either(a), FS_IOC_SETFLAGS, &flags))
		return errno;
	a->flags = flags;
	return 0;
}

/* Through a shift every owner is lent, so this fails before the revocation too. */
static int rk_setlease(struct rv_attacker *a)
{
	if (fcntl(a->lease, F_SETLEASE, F_RDLCK))
		return errno;
	if (fcntl(a->lease, F_SETLEASE, F_UNLCK))
		violation("round %u: releasing a lease: %s", rv_cur.round, strerror(errno));
	return 0;
}

/* Page 1 of the data file, from its source: EOPNOTSUPP on ext4 before any gate. */
static int rk_clone(struct rv_attacker *a)
{
	struct file_clone_range r = {
		.src_fd = a->src, .src_length = PAGE_SZ, .dest_offset = PAGE_SZ,
	};

	return rv_ret(ioctl(a->rw, FICLONERANGE, &r));
}

/* Into page 2: a whole block (a remap on xfs) or part of one (a copy). */
static int rk_copy(struct rv_attacker *a)
{
	loff_t in = 0, out = 2 * PAGE_SZ;
	ssize_t n = copy_file_range(a->src, &in, a->rw, &out,
				   rng_chance(&a->rng, 50) ? PAGE_SZ : 512, 0);

	return n > 0 ? 0 : n < 0 ? errno : EIO;
}

static int rk_mmap(struct rv_attacker *a)
{
	void *p = mmap(NULL, PAGE_SZ, PROT_READ | PROT_WRITE, MAP_SHARED, a->rw, 0);

	if (p == MAP_FAILED)
		return errno;
	munmap(p, PAGE_SZ);
	return 0;
}

/*
 * The thread's own read-only shared mapping made writable, and read-only
 * again at once: a mapping left writable would be the exception (b.5),
 * and the next mprotect() of it would test nothing.
 */
static int rk_mprotect(struct rv_attacker *a)
{
	if (mprotect(a->rmap, PAGE_SZ, PROT_READ | PROT_WRITE))
		return errno;
	if (mprotect(a->rmap, PAGE_SZ, PROT_READ))
		die_setup("round %u: making the read-only mapping read-only again: %s",
			  rv_cur.round, strerror(errno));
	return 0;
}

static int rk_openat(struct rv_attacker *a)
{
	char name[32];
	int fd;

	snprintf(name, sizeof(name), "t%u-src", a->idx);
	fd = openat(a->dirfd, name, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno;
	close(fd);
	return 0;
}

static int rk_create(struct rv_attacker *a)
{
	char name[32];
	int fd;

	snprintf(name, sizeof(name), "t%u-new%02u", a->idx, a->iter);
	fd = openat(a->dirfd, name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (fd < 0)
		return errno;
	close(fd);
	return 0;
}

static int rk_read(struct rv_attacker *a)
{
	char buf[64];
	ssize_t n = pread(a->ro, buf, sizeof(buf), 0);

	return n > 0 ? 0 : n < 0 ? errno : EIO;
}

static int rk_fstat(struct rv_attacker *a)
{
	struct stat st;

	return rv_ret(fstat(a->rw, &st));
}

/*
 * A store through the writable mapping made before the revocation: it
 * lands (b.5, not in the series yet).  Once revocation takes such pages
 * back, a store faults with SIGBUS: recorded as EFAULT, not a death.
 */
static __thread sigjmp_buf rv_bus_jmp;
static __thread volatile sig_atomic_t rv_bus_armed;

static void rv_on_sigbus(int sig)
{
	if (rv_bus_armed)
		siglongjmp(rv_bus_jmp, 1);
	signal(sig, SIG_DFL);
	raise(sig);
}

static int rk_mapstore(struct rv_attacker *a)
{
	if (sigsetjmp(rv_bus_jmp, 1)) {
		rv_bus_armed = 0;
		return EFAULT;
	}
	rv_bus_armed = 1;
	((volatile char *)a->wmap)[a->iter] = 'm';
	rv_bus_armed = 0;
	return 0;
}

static const struct rv_kind_desc {
	const char *name;
	enum rv_rule rule;
	int (*call)(struct rv_attacker *a);
} rv_kinds[RK_NR] = {
	[RK_WRITE]	= { "write", RR_GATED, rk_write },
	[RK_PWRITE]	= { "pwrite", RR_GATED, rk_pwrite },
	[RK_FTRUNCATE]	= { "ftruncate", RR_GATED, rk_ftruncate },
	[RK_FCHMOD]	= { "fchmod", RR_GATED, rk_fchmod },
	[RK_FCHOWN]	= { "fchown", RR_GATED, rk_fchown },
	[RK_REMOVEXATTR] = { "fremovexattr", RR_GATED, rk_removexattr },
	[RK_SETFLAGS]	= { "FS_IOC_SETFLAGS", RR_GATED, rk_setflags },
	[RK_SETLEASE]	= { "F_SETLEASE", RR_GATED, rk_setlease },
	[RK_CLONE]	= { "FICLONERANGE", RR_GATED, rk_clone },
	[RK_COPY]	= { "copy_file_range", RR_GATED, rk_copy },
	[RK_MMAP]	= { "mmap", RR_GATED, rk_mmap },
	[RK_MPROTECT]	= { "mprotect", RR_GATED, rk_mprotect },
	[RK_OPENAT]	= { "openat", RR_GATED, rk_openat },
	[RK_CREATE]	= { "create", RR_GATED, rk_create },
	[RK_READ]	= { "pread", RR_WORKS, rk_read },
	[RK_FSTAT]	= { "fstat", RR_WORKS, rk_fstat },
	[RK_MAPSTORE]	= { "mapping store", RR_EXEMPT, rk_mapstore },
};

/* One call, recorded with its phase: whether the parent's flag was up before and after it. */
static void rv_call(struct rv_attacker *a, enum rv_kind k)
{
	bool before = atomic_load(&rv_shm->revoked);
	int64_t start = mono_ns();
	int err = rv_kinds[k].call(a);
	bool after = atomic_load(&rv_shm->revoked);
	struct rv_record *rec;

	/* Room for every call of RV_ITERS iterations: never full. */
	if (a->log->n >= RV_MAX_REC)
		return;
	rec = &a->log->rec[a->log->n++];
	rec->kind = k;
	rec->phase = before ? RP_AFTER : after ? RP_INFLIGHT : RP_BEFORE;
	rec->iter = a->iter;
	rec->err = err;
	rec->start_ns = start;
}

/* Every kind once, in an order of its own, so that the revocation lands anywhere. */
static void rv_iteration(struct rv_attacker *a)
{
	unsigned int order[RK_NR], i, j, tmp;

	for (i = 0; i < RK_NR; i++)
		order[i] = i;
	for (i = RK_NR - 1; i > 0; i--) {
		j = rng_below(&a->rng, i + 1);
		tmp = order[i];
		order[i] = order[j];
		order[j] = tmp;
	}
	for (i = 0; i < RK_NR; i++)
		rv_call(a, order[i]);
}

static int rv_open(struct rv_attacker *a, const char *what, int flags)
{
	char name[32];
	int fd;

	snprintf(name, sizeof(name), "t%u-%s", a->idx, what);
	fd = openat(a->dirfd, name, flags | O_CLOEXEC);
	if (fd < 0)
		violation("round %u: opening %s through the shift: %s", rv_cur.round,
			  name, strerror(errno));
	return fd;
}

/* What the attacker holds before the revocation; false after a violation. */
static bool rv_hold(struct rv_attacker *a)
{
	char what[16];
	unsigned int i;

	a->rw = rv_open(a, "data", O_RDWR);
	a->ro = rv_open(a, "data", O_RDONLY);
	a->src = rv_open(a, "src", O_RDONLY);
	a->lease = rv_open(a, "lease", O_RDONLY);
	if (a->rw < 0 || a->ro < 0 || a->src < 0 || a->lease < 0)
		return false;
	for (i = 0; i < RV_ITERS; i++) {
		snprintf(what, sizeof(what), "cap%02u", i);
		a->caps[i] = rv_open(a, what, O_RDONLY);
		if (a->caps[i] < 0)
			return false;
	}
	a->wmap = mmap(NULL, PAGE_SZ, PROT_READ | PROT_WRITE, MAP_SHARED, a->rw, 0);
	a->rmap = mmap(NULL, PAGE_SZ, PROT_READ, MAP_SHARED, a->rw, 0);
	if (a->wmap == MAP_FAILED || a->rmap == MAP_FAILED ||
	    ioctl(a->ro, FS_IOC_GETFLAGS, &a->flags)) {
		violation("round %u: mapping or reading the flags of t%u-data through the shift: %s",
			  rv_cur.round, a->idx, strerror(errno));
		return false;
	}
	return true;
}

/*
 * Hold the files, then iterate until RV_AFTER iterations began after the
 * revocation; at most RV_BEFORE_MAX before it, then wait for it.
 */
static void *rv_attacker_main(void *arg)
{
	struct rv_attacker *a = arg;
	unsigned int before = 0, after = 0;
	bool held = rv_hold(a);

	pthread_barrier_wait(a->held);
	while (held && !atomic_load(&rv_shm->abort)) {
		bool revoked = atomic_load(&rv_shm->revoked);

		if (revoked && after >= RV_AFTER)
			break;
		if (!revoked && before >= RV_BEFORE_MAX) {
			usleep(1000);
			continue;
		}
		a->iter = before + after;
		rv_iteration(a);
		*(revoked ? &after : &before) += 1;
		usleep(rng_below(&a->rng, 1000));
	}
	return NULL;
}

static void rv_sigbus_setup(void)
{
	struct sigaction sa = { .sa_handler = rv_on_sigbus };

	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGBUS, &sa, NULL))
		die_setup("sigaction SIGBUS: %s", strerror(errno));
}

/*
 * Attach the detached bind @bindfd on @target and shift it in place, as
 * shiftbind-hook does.  Returns 0 or an errno, the bind's log in @log.
 */
static int rv_attach_shift(int bindfd, const char *target, char *log, size_t size)
{
	int pfd, err;

	if (move_mount(bindfd, "", AT_FDCWD, target, MOVE_MOUNT_F_EMPTY_PATH))
		return errno;
	pfd = open(target, O_PATH | O_CLOEXEC);
	if (pfd < 0)
		return errno;
	err = bind_call(pfd, CONFIGFD_CMD_RECONFIGURE, "shift", NULL, log, size);
	close(pfd);
	return err;
}

/*
 * The round's shift of the store, by root of the user namespace: a bind
 * attached and shifted in place, or a shifted detached bind.  Returns the
 * round's directory through it, or -1 after a violation.
 */
static int rv_shift_store(void)
{
	const char *store = rv_store_names[rv_cur.store];
	const char *target = scratch.target[rv_cur.round % N_TARGETS];
	int src, bindfd = -1, dirfd, err;
	char log[512] = "";
	struct stat st;

	src = open(store, O_PATH | O_CLOEXEC);
	err = src < 0 ? errno :
	      bind_call(src, CONFIGFD_CMD_CREATE,
			rv_cur.in_place ? "detached" : "detached,shift", &bindfd,
			log, sizeof(log));
	if (src >= 0)
		close(src);
	if (!err && rv_cur.in_place)
		err = rv_attach_shift(bindfd, target, log, sizeof(log));
	dirfd = err ? -1 : rv_cur.in_place ? open(target, O_PATH | O_CLOEXEC) : dup(bindfd);
	if (bindfd >= 0)
		close(bindfd);
	if (err || dirfd < 0) {
		violation("round %u: shifting the %s store %s: %s (log: %s)", rv_cur.round,
			  store, rv_cur.in_place ? "in place" : "detached",
			  strerror(err ? err : errno), log);
		return -1;
	}
	src = dirfd;
	dirfd = openat(src, rv_cur.dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	close(src);
	if (dirfd < 0) {
		violation("round %u: opening %s/%s through the shift: %s", rv_cur.round,
			  store, rv_cur.dir, strerror(errno));
		return -1;
	}
	/* Real root's directory: owned by 0 in the namespace only through a shift. */
	if (fstat(dirfd, &st) || st.st_uid != 0) {
		violation("round %u: %s/%s through the shift is owned by %u, not 0: no shift?",
			  rv_cur.round, store, rv_cur.dir, st.st_uid);
		close(dirfd);
		return -1;
	}
	return dirfd;
}

/* A round's child: root of a new user namespace, with RV_ATTACKERS threads. */
static int rv_child(void)
{
	struct rv_attacker a[RV_ATTACKERS];
	pthread_barrier_t held;
	double t0 = now();
	uint64_t calls = 0;
	unsigned int i;
	int dirfd;

	/* The parent's count of earlier rounds is not this child's. */
	atomic_store(&n_violations, 0);
	dirfd = rv_shift_store();
	if (dirfd < 0) {
		send_report(0, now() - t0, NULL);
		return EXIT_FOUND;
	}
	rv_sigbus_setup();
	pthread_barrier_init(&held, NULL, RV_ATTACKERS + 1);
	memset(a, 0, sizeof(a));
	for (i = 0; i < RV_ATTACKERS; i++) {
		a[i].idx = i;
		a[i].dirfd = dirfd;
		a[i].log = &rv_shm->log[i];
		a[i].held = &held;
		rng_init(&a[i].rng, opt.seed + rv_cur.round, i);
		if (pthread_create(&a[i].thread, NULL, rv_attacker_main, &a[i]))
			die_setup("pthread_create failed");
	}
	pthread_barrier_wait(&held);
	atomic_store(&rv_shm->ready, true);
	for (i = 0; i < RV_ATTACKERS; i++) {
		pthread_join(a[i].thread, NULL);
		calls += rv_shm->log[i].n;
	}
	pthread_barrier_destroy(&held);
	close(dirfd);
	send_report(calls, now() - t0, NULL);
	return atomic_load(&n_violations) ? EXIT_FOUND : 0;
}

/* ---- the parent's side: stores, files, the revocation, the verdict ---- */

/* A file of real root's of @size bytes. */
static void make_sized_file(const char *path, size_t size, mode_t mode)
{
	static const char page[PAGE_SZ] = { 'd' };
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode);
	size_t off;

	for (off = 0; fd >= 0 && off < size; off += sizeof(page))
		if (write(fd, page, sizeof(page)) != (ssize_t)sizeof(page))
			break;
	if (fd < 0 || off < size || fchmod(fd, mode))
		die_setup("creating %s: %s", path, strerror(errno));
	close(fd);
}

/*
 * The round's directory of real root's in the store, and each attacker's
 * files: its data file, a clone source, a file for leases and RV_ITERS
 * programs with a v2 file capability (valid for real root).
 */
static void rv_files_create(void)
{
	char dir[PATH_MAX], path[PATH_MAX + 32];
	unsigned int t, i;

	snprintf(dir, sizeof(dir), "%s/%s/%s", scratch.root,
		 rv_store_names[rv_cur.store], rv_cur.dir);
	make_dir(dir, 0755);
	for (t = 0; t < RV_ATTACKERS; t++) {
		snprintf(path, sizeof(path), "%s/t%u-data", dir, t);
		make_sized_file(path, RV_DATA_SIZE, 0644);
		snprintf(path, sizeof(path), "%s/t%u-src", dir, t);
		make_sized_file(path, PAGE_SZ, 0644);
		snprintf(path, sizeof(path), "%s/t%u-lease", dir, t);
		make_file(path, 0644);
		for (i = 0; i < RV_ITERS; i++) {
			snprintf(path, sizeof(path), "%s/t%u-cap%02u", dir, t, i);
			make_file(path, 0755);
			if (setxattr(path, "security.capability", fcap_v2,
				     sizeof(fcap_v2), 0))
				die_setup("setting a file capability on %s: %s", path,
					  strerror(errno));
		}
	}
}

/* mkfs.xfs, or NULL when the guest has none. */
static const char *mkfs_xfs(void)
{
	static const char *const paths[] = { "/usr/sbin/mkfs.xfs", "/sbin/mkfs.xfs" };
	size_t i;

	for (i = 0; i < ARRAY_SIZE(paths); i++)
		if (access(paths[i], X_OK) == 0)
			return paths[i];
	return NULL;
}

/*
 * A new xfs with reflinks, loop-mounted on the scratch tree's xfs/ and
 * marked, as shift_test's xfs store.  Its image, in /var/tmp, is unlinked
 * at once: the loop device holds it.  false without mkfs.xfs.
 */
static bool xfs_store_create(void)
{
	char image[] = "/var/tmp/cfdfuzz-xfs.XXXXXX", path[PATH_MAX], cmd[PATH_MAX * 3];
	const char *mkfs = mkfs_xfs();
	int fd, status;

	if (!mkfs)
		return false;
	snprintf(path, sizeof(path), "%s/xfs", scratch.root);
	make_dir(path, 0755);
	fd = mkstemp(image);
	/* 300 MiB: the smallest xfs mkfs.xfs makes. */
	if (fd < 0 || ftruncate(fd, 320 << 20) || close(fd))
		die_setup("an image for xfs in /var/tmp: %s", strerror(errno));
	snprintf(cmd, sizeof(cmd), "%s -q -m reflink=1 %s && mount -o loop %s %s",
		 mkfs, image, image, path);
	fflush(stdout);
	status = system(cmd);
	unlink(image);
	if (status)
		die_setup("'%s' failed (status %d)", cmd, status);
	mark_allow_shift(path);
	return true;
}

static void xfs_store_destroy(void)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/xfs", scratch.root);
	if (umount2(path, 0) && umount2(path, MNT_DETACH))
		say("cannot unmount %s: %s", path, strerror(errno));
}

/* What the parent learns of a run, round after round. */
struct rv_run {
	bool xfs;			/* an xfs store exists */
	bool marked[RS_NR];		/* not withdrawn by a revocation since */
	unsigned int rounds, revoked, on[RS_NR], in_place;
	double delay_min, delay_max;	/* ms from the files held to the revocation */
	int64_t revoked_ns;		/* this round's: when the revoking call returned */
	struct rv_tally {
		unsigned int calls[RP_NR], ok[RP_NR];
		unsigned int refused;		/* after: refused as the gate refuses */
		unsigned int unsupported;	/* after: EOPNOTSUPP (FICLONERANGE on ext4) */
		unsigned int err[RP_NR][ERRNO_SLOTS];
	} tally[RK_NR];
	unsigned int files, glitched, caps_removed;
	uint64_t calls;
	double secs;
	unsigned long violations;	/* reported by the rounds' children */
};

/* Whether the call @k failing with @err is the refusal revocation makes. */
static bool rv_refused(enum rv_kind k, int err)
{
	/* ext4 answers FICLONERANGE before the gate: that proves nothing. */
	return err && (k != RK_CLONE || err == EACCES);
}

/* Whether the round's file @name exists on disk. */
static bool rv_exists(int dir, const char *name)
{
	struct stat st;

	return fstatat(dir, name, &st, AT_SYMLINK_NOFOLLOW) == 0;
}

/*
 * What a refused call started after the revocation asked for did not
 * happen on disk either: no file it created, no capability it removed.
 */
static void rv_judge_disk(int dir, unsigned int t, const struct rv_record *rec)
{
	char name[32], path[PATH_MAX];

	if (rec->phase != RP_AFTER)
		return;
	if (rec->kind == RK_CREATE) {
		snprintf(name, sizeof(name), "t%u-new%02u", t, rec->iter);
		if (rv_exists(dir, name))
			violation("round %u: %s exists, though its creation started after the revocation and failed (%s)",
				  rv_cur.round, name, errname(rec->err));
	}
	if (rec->kind == RK_REMOVEXATTR) {
		snprintf(name, sizeof(name), "t%u-cap%02u", t, rec->iter);
		snprintf(path, sizeof(path), "/proc/self/fd/%d/%s", dir, name);
		if (getxattr(path, "security.capability", NULL, 0) < 0)
			violation("round %u: %s lost its file capability, though the removal started after the revocation and failed (%s)",
				  rv_cur.round, name, errname(rec->err));
	}
}

/* One record of attacker @t: counted, and held to its kind's rule. */
static void rv_judge(struct rv_run *run, int dir, unsigned int t,
		     const struct rv_record *rec)
{
	const struct rv_kind_desc *k = &rv_kinds[rec->kind];
	struct rv_tally *ty = &run->tally[rec->kind];
	double ms = (rec->start_ns - run->revoked_ns) / 1e6;

	ty->calls[rec->phase]++;
	ty->ok[rec->phase] += !rec->err;
	ty->err[rec->phase][rec->err < ERRNO_SLOTS ? rec->err : ERRNO_SLOTS - 1]++;
	if (rec->phase == RP_AFTER) {
		ty->refused += rv_refused(rec->kind, rec->err);
		ty->unsupported += rec->err == EOPNOTSUPP;
	}
	if (k->rule == RR_GATED && rec->phase == RP_AFTER && !rec->err)
		violation("round %u (%s, %s): %s by attacker %u started %.3f ms after the revocation had completed, and succeeded",
			  rv_cur.round, rv_store_names[rv_cur.store],
			  rv_cur.in_place ? "shifted in place" : "shifted detached",
			  k->name, t, ms);
	if (k->rule == RR_WORKS && rec->err)
		violation("round %u (%s): %s through a file opened before failed %s the revocation (%s): reads keep working by design",
			  rv_cur.round, rv_store_names[rv_cur.store], k->name,
			  rv_phase_names[rec->phase], errname(rec->err));
	rv_judge_disk(dir, t, rec);
}

/* What stat() shows real root for an id no namespace maps, such as (u32)-1. */
#define OVERFLOW_ID	65534

/*
 * Whether @name's owner or group is an id no namespace maps: stat() shows
 * the overflow id for it, so ask what only such a file refuses real root,
 * write access (inode_permission()'s HAS_UNMAPPED_ID()).
 */
static bool rv_unmapped_owner(int dir, const char *name)
{
	return faccessat(dir, name, W_OK, 0) && errno == EACCES;
}

/*
 * A file an operation across the revocation left owned by (u32)-1
 * (b.2): counted, and given back to real root, as the design says real
 * root can (chown_ok()); until then not even real root may unlink it
 * (may_delete(): EOVERFLOW), so the scratch tree could not be removed.
 */
static bool rv_glitched(struct rv_run *run, int dir, const char *name,
			const struct stat *st)
{
	if ((st->st_uid != OVERFLOW_ID && st->st_gid != OVERFLOW_ID) ||
	    !rv_unmapped_owner(dir, name))
		return false;
	run->glitched++;
	if (fchownat(dir, name, 0, 0, AT_SYMLINK_NOFOLLOW))
		violation("round %u: real root cannot chown %s/%s, owned by 4294967295, back to 0:0: %s",
			  rv_cur.round, rv_cur.dir, name, strerror(errno));
	return true;
}

/*
 * On disk, seen by real root: nothing setuid, setgid or with a file
 * capability but real root's own fixtures (unchanged, or removed), and
 * no owner but 0 (the test's files, and what the shift made as 0) or
 * (u32)-1, what an operation across the revocation may leave (b.2).
 */
static void rv_verify_entry(struct rv_run *run, int dir, const char *name,
			    const struct stat *st)
{
	char path[PATH_MAX];
	uint32_t caps[6];
	ssize_t n;

	run->files++;
	if ((st->st_uid || st->st_gid) && !rv_glitched(run, dir, name, st))
		violation("round %u: %s/%s is %u:%u on disk: only 0 (real root's, or made through the shift) or 4294967295 (across the revocation) may own it",
			  rv_cur.round, rv_cur.dir, name, st->st_uid, st->st_gid);
	if (!strstr(name, "-cap")) {
		verify_privileges(dir, name, st);
		return;
	}
	if (st->st_mode & (S_ISUID | S_ISGID))
		violation("round %u: %s/%s is mode %04o on disk", rv_cur.round,
			  rv_cur.dir, name, st->st_mode & 07777);
	snprintf(path, sizeof(path), "/proc/self/fd/%d/%s", dir, name);
	n = getxattr(path, "security.capability", caps, sizeof(caps));
	if (n < 0)
		run->caps_removed++;
	else if (n != sizeof(fcap_v2) || memcmp(caps, fcap_v2, sizeof(fcap_v2)))
		violation("round %u: %s/%s has a file capability real root did not set (%zd bytes)",
			  rv_cur.round, rv_cur.dir, name, n);
}

/* The round's records and directory, once its child is gone. */
static void rv_verdict(struct rv_run *run)
{
	unsigned int t, i, removals = 0, gone = run->caps_removed;
	const struct rv_record *rec;
	char path[PATH_MAX];
	struct dirent *de;
	struct stat st;
	DIR *d;

	snprintf(path, sizeof(path), "%s/%s/%s", scratch.root,
		 rv_store_names[rv_cur.store], rv_cur.dir);
	d = opendir(path);
	if (!d) {
		violation("round %u: %s: %s", rv_cur.round, path, strerror(errno));
		return;
	}
	for (t = 0; t < RV_ATTACKERS; t++)
		for (i = 0; i < rv_shm->log[t].n; i++) {
			rec = &rv_shm->log[t].rec[i];
			rv_judge(run, dirfd(d), t, rec);
			removals += rec->kind == RK_REMOVEXATTR && !rec->err;
		}
	while ((de = readdir(d)))
		if (de->d_name[0] != '.' &&
		    !fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW))
			rv_verify_entry(run, dirfd(d), de->d_name, &st);
	closedir(d);
	gone = run->caps_removed - gone;
	if (gone != removals)
		violation("round %u: %u file capabilities are gone from disk, but %u removals succeeded",
			  rv_cur.round, gone, removals);
}

/* Until the attackers hold their files: false if the child ended first. */
static bool rv_wait_ready(const struct child *ch)
{
	struct pollfd pfd = { .fd = ch->res, .events = POLLIN };
	double give_up = now() + 120;

	while (!atomic_load(&rv_shm->ready)) {
		if (poll(&pfd, 1, 1) != 0 || now() > give_up)
			return false;
	}
	return true;
}

/*
 * A bind configfd of the store with disallow-shift and revoke set, as an
 * administrator takes a shift back: only CMD_RECONFIGURE is left, so the
 * revocation comes right when it is due.  -1 after a violation.
 */
static int rv_revoker_open(const char *path)
{
	int pfd = open(path, O_PATH | O_CLOEXEC), cfd = -1, err;
	char log[512] = "";

	if (pfd >= 0)
		cfd = sys_configfd_open("bind", O_CLOEXEC, CONFIGFD_CMD_RECONFIGURE);
	if (cfd < 0 ||
	    sys_configfd_action(cfd, CONFIGFD_SET_FD, "pathfd", NULL, pfd) ||
	    sys_configfd_action(cfd, CONFIGFD_SET_FLAG, "disallow-shift", NULL, 0) ||
	    sys_configfd_action(cfd, CONFIGFD_SET_FLAG, "revoke", NULL, 0)) {
		err = errno;
		if (cfd >= 0) {
			configfd_read_log(cfd, log, sizeof(log));
			close(cfd);
		}
		violation("round %u: preparing the revocation of %s's shifts: %s (log: %s)",
			  rv_cur.round, path, strerror(err), log);
		cfd = -1;
	}
	if (pfd >= 0)
		close(pfd);
	return cfd;
}

/*
 * Revoke the store's shifts after a random delay.  The flag goes up as
 * soon as the call returns: a call an attacker begins after seeing it
 * began after the revocation had completed.
 */
static void rv_revoke(struct rv_run *run, struct rng *r)
{
	unsigned int delay = rng_chance(r, 10) ? 0 : rng_below(r, RV_WINDOW_US);
	char path[PATH_MAX], log[512] = "";
	int cfd, err;

	snprintf(path, sizeof(path), "%s/%s", scratch.root, rv_store_names[rv_cur.store]);
	cfd = rv_revoker_open(path);
	if (cfd < 0) {
		atomic_store(&rv_shm->abort, true);
		return;
	}
	usleep(delay);
	if (sys_configfd_action(cfd, CONFIGFD_CMD_RECONFIGURE, NULL, NULL, 0) == 0) {
		run->revoked_ns = mono_ns();
		atomic_store(&rv_shm->revoked, true);
	} else {
		err = errno;
		configfd_read_log(cfd, log, sizeof(log));
		violation("round %u: revoking the shifts of %s: %s (log: %s)",
			  rv_cur.round, path, strerror(err), log);
		atomic_store(&rv_shm->abort, true);
	}
	close(cfd);
	if (!atomic_load(&rv_shm->revoked))
		return;
	run->marked[rv_cur.store] = false;
	if (!run->revoked++ || delay / 1e3 < run->delay_min)
		run->delay_min = delay / 1e3;
	if (delay / 1e3 > run->delay_max)
		run->delay_max = delay / 1e3;
}

/* One round: the store marked, its files, the child, the revocation, the verdict. */
static int rv_round(struct rv_run *run, unsigned int round)
{
	struct report rep;
	struct child ch;
	struct rng r;
	int status;

	rv_cur.round = round;
	run->revoked_ns = 0;
	rv_cur.store = run->xfs && round % 2 ? RS_XFS : RS_EXT4;
	rv_cur.in_place = (round / 2) % 2 == 0;
	snprintf(rv_cur.dir, sizeof(rv_cur.dir), "r%02u", round);
	rng_init(&r, opt.seed + round, RV_ATTACKERS);
	if (!run->marked[rv_cur.store]) {
		char path[PATH_MAX];

		snprintf(path, sizeof(path), "%s/%s", scratch.root,
			 rv_store_names[rv_cur.store]);
		mark_allow_shift(path);
		run->marked[rv_cur.store] = true;
	}
	rv_files_create();
	memset(rv_shm, 0, sizeof(*rv_shm));
	child_spawn(rv_child, &ch);
	if (rv_wait_ready(&ch))
		rv_revoke(run, &r);
	else
		atomic_store(&rv_shm->abort, true);
	status = child_reap(&ch, &rep);
	rv_verdict(run);
	run->rounds++;
	run->on[rv_cur.store]++;
	run->in_place += rv_cur.in_place;
	run->calls += rep.calls;
	run->secs += rep.secs;
	run->violations += rep.violations;
	return status;
}

/* "EACCES 30, EPERM 2": the errors of @ty in @phase, most frequent first. */
static void rv_errs(const struct rv_tally *ty, enum rv_phase phase, char *out,
		    size_t size)
{
	bool shown[ERRNO_SLOTS] = { false };
	unsigned int n, e, best, most;
	size_t len = 0;

	snprintf(out, size, "none");
	for (n = 0; n < 4 && len < size; n++) {
		for (best = 0, most = 0, e = 1; e < ERRNO_SLOTS; e++)
			if (!shown[e] && ty->err[phase][e] > most) {
				best = e;
				most = ty->err[phase][e];
			}
		if (!most)
			break;
		shown[best] = true;
		len += snprintf(out + len, size - len, "%s%s %u", len ? ", " : "",
				errname(best), most);
	}
}

/* What a kind's line adds: why its results mean what they mean. */
static const char *rv_note(enum rv_kind k)
{
	switch (k) {
	case RK_SETLEASE:
		return " (refused before too: through the shift every owner is lent)";
	case RK_CLONE:
		return " (EOPNOTSUPP: ext4 has no reflinks, it proves nothing)";
	case RK_READ:
	case RK_FSTAT:
		return " (keeps working by design)";
	case RK_MAPSTORE:
		return " (through mappings writable before: the documented exception, not counted)";
	case RK_WRITE: case RK_PWRITE: case RK_FTRUNCATE: case RK_FCHMOD:
	case RK_FCHOWN: case RK_REMOVEXATTR: case RK_SETFLAGS: case RK_COPY:
	case RK_MMAP: case RK_MPROTECT: case RK_OPENAT: case RK_CREATE:
	case RK_NR:
		break;
	}
	return "";
}

/* One line per kind, with the counts the test asserts. */
static void rv_say_kind(const struct rv_run *run, enum rv_kind k)
{
	const struct rv_tally *ty = &run->tally[k];
	char after[96], before[96];

	rv_errs(ty, RP_AFTER, after, sizeof(after));
	rv_errs(ty, RP_BEFORE, before, sizeof(before));
	say("revoke race kind %s: %u after revocation, %u succeeded, %u refused, %u EOPNOTSUPP; %u before, %u succeeded; %u in flight, %u succeeded; errors after: %s; before: %s%s",
	    rv_kinds[k].name, ty->calls[RP_AFTER], ty->ok[RP_AFTER], ty->refused,
	    ty->unsupported, ty->calls[RP_BEFORE], ty->ok[RP_BEFORE],
	    ty->calls[RP_INFLIGHT], ty->ok[RP_INFLIGHT], after, before, rv_note(k));
}

/*
 * A refusal proves something only if the call was made after the
 * revocation, and could succeed before it: every kind must have been
 * tried after it, and each (but leases, and clones on ext4) must have
 * succeeded at least once while the shift lived: before the revocation,
 * or in flight (begun before the revoking call returned).  On the debug
 * kernel the threads are slow beside the revocation, and a round may see
 * no call of a kind before it at all.
 */
static void rv_check_coverage(const struct rv_run *run)
{
	const struct rv_tally *ty;
	enum rv_kind k;

	for (k = 0; k < RK_NR; k++) {
		ty = &run->tally[k];
		if (rv_kinds[k].rule != RR_GATED)
			continue;
		if (!ty->calls[RP_AFTER])
			violation("no %s was tried after a revocation", rv_kinds[k].name);
		if (k == RK_SETLEASE || (k == RK_CLONE && !run->on[RS_XFS]))
			continue;
		if (ty->calls[RP_BEFORE] + ty->calls[RP_INFLIGHT] &&
		    !ty->ok[RP_BEFORE] && !ty->ok[RP_INFLIGHT])
			violation("%s never succeeded while the shift lived (%u tries before a revocation, %u in flight): its refusals after one prove nothing",
				  rv_kinds[k].name, ty->calls[RP_BEFORE],
				  ty->calls[RP_INFLIGHT]);
	}
	if (run->on[RS_XFS] && !run->tally[RK_CLONE].refused)
		violation("FICLONERANGE was never refused with EACCES after a revocation on xfs");
}

static void rv_summary(const struct rv_run *run, double secs)
{
	unsigned int calls[RP_NR] = { 0 }, ok[RP_NR] = { 0 }, p;
	enum rv_kind k;

	for (k = 0; k < RK_NR; k++)
		for (p = 0; p < RP_NR && rv_kinds[k].rule == RR_GATED; p++) {
			calls[p] += run->tally[k].calls[p];
			ok[p] += run->tally[k].ok[p];
		}
	say("revoke-race: %u rounds in %.1f s (%u on ext4, %u on xfs%s; %u shifted in place, %u detached), %u revoked, %.1f to %.1f ms after the attackers held their files",
	    run->rounds, secs, run->on[RS_EXT4], run->on[RS_XFS],
	    run->xfs ? "" : ": no mkfs.xfs", run->in_place,
	    run->rounds - run->in_place, run->revoked, run->delay_min, run->delay_max);
	say("revoke race: %u calls after revocation, %u succeeded; %u before, %u succeeded; %u in flight, %u succeeded",
	    calls[RP_AFTER], ok[RP_AFTER], calls[RP_BEFORE], ok[RP_BEFORE],
	    calls[RP_INFLIGHT], ok[RP_INFLIGHT]);
	for (k = 0; k < RK_NR; k++)
		rv_say_kind(run, k);
	say("revoke race disk: %u files, none setuid, setgid or with a file capability but real root's own (%u of those removed through the shift); %u owned by 4294967295 (an operation across the revocation), each given back to 0:0 by real root",
	    run->files, run->caps_removed, run->glitched);
	rv_check_coverage(run);
}

/* The parent's side of the mode: every round, then what they add up to. */
static int run_revoke_race(struct report *rep)
{
	struct rv_run *run = calloc(1, sizeof(*run));
	double t0 = now();
	int status = 0, st;
	unsigned int r;

	rv_shm = mmap(NULL, sizeof(*rv_shm), PROT_READ | PROT_WRITE,
		      MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (!run || rv_shm == MAP_FAILED)
		die_setup("out of memory");
	run->marked[RS_EXT4] = true;	/* by ext4_create() */
	run->xfs = run->marked[RS_XFS] = xfs_store_create();
	for (r = 0; r < opt.rounds; r++) {
		st = rv_round(run, r);
		if (st && !status)
			status = st;
	}
	if (run->xfs)
		xfs_store_destroy();
	rv_summary(run, now() - t0);
	memset(rep, 0, sizeof(*rep));
	rep->calls = run->calls;
	rep->secs = run->secs;
	rep->violations = run->violations;
	munmap(rv_shm, sizeof(*rv_shm));
	free(run);
	return status;
}

/* ------------------------------------------------------------------ */
/* Options and main                                                     */

static void usage(FILE *f)
{
	fputs("usage: configfd_fuzz [--mode random|failslab|shift-race|revoke-race]\n"
	      "                     [--seed N]\n"
	      "                     [--calls N] [--threads N] [--duration SECONDS]\n"
	      "                     [--rounds N] [--userns] [--no-mark] [--leak-fd]\n"
	      "Runs only as root on a kernel with the shiftbind series (the guest);\n"
	      "see docs/fuzzing.md.\n", f);
}

static uint64_t parse_num(const char *s, const char *what, uint64_t min,
			  uint64_t max)
{
	unsigned long long v;
	char *end;

	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || !*s || *end || v < min || v > max) {
		fprintf(stderr, "configfd_fuzz: bad %s '%s'\n", what, s);
		usage(stderr);
		exit(EXIT_SETUP);
	}
	return v;
}

static enum mode parse_mode(const char *s)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(mode_names); i++)
		if (strcmp(s, mode_names[i]) == 0)
			return i;
	fprintf(stderr, "configfd_fuzz: unknown mode '%s'\n", s);
	usage(stderr);
	exit(EXIT_SETUP);
}

/* The command line that repeats this run (exactly, with one thread). */
static void make_replay(void)
{
	bool race = opt.mode == MODE_SHIFT_RACE || opt.mode == MODE_REVOKE_RACE;
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	size_t len;

	exe[n > 0 ? n : 0] = '\0';
	len = snprintf(replay, sizeof(replay), "%s --mode %s --seed %" PRIu64,
		       n > 0 ? exe : "configfd_fuzz", mode_names[opt.mode], opt.seed);
	if (opt.mode == MODE_RANDOM)
		len += snprintf(replay + len, sizeof(replay) - len,
				" --calls %" PRIu64 " --threads %u", opt.calls,
				opt.threads);
	if (opt.mode == MODE_RANDOM && opt.duration)
		len += snprintf(replay + len, sizeof(replay) - len, " --duration %u",
				opt.duration);
	if (race)
		len += snprintf(replay + len, sizeof(replay) - len, " --rounds %u",
				opt.rounds);
	snprintf(replay + len, sizeof(replay) - len, "%s%s%s",
		 opt.userns && !race ? " --userns" : "",
		 opt.mark ? "" : " --no-mark", opt.leak_fd ? " --leak-fd" : "");
}

static void parse_options(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "mode", required_argument, NULL, 'm' },
		{ "seed", required_argument, NULL, 's' },
		{ "calls", required_argument, NULL, 'c' },
		{ "threads", required_argument, NULL, 't' },
		{ "duration", required_argument, NULL, 'd' },
		{ "rounds", required_argument, NULL, 'r' },
		{ "userns", no_argument, NULL, 'u' },
		{ "no-mark", no_argument, NULL, 'M' },
		{ "leak-fd", no_argument, NULL, 'L' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	bool seeded = false;
	int c;

	while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		switch (c) {
		case 'm':
			opt.mode = parse_mode(optarg);
			break;
		case 's':
			opt.seed = parse_num(optarg, "seed", 0, UINT64_MAX);
			seeded = true;
			break;
		case 'c':
			opt.calls = parse_num(optarg, "call count", 1, UINT64_MAX);
			break;
		case 't':
			opt.threads = parse_num(optarg, "thread count", 1, 64);
			break;
		case 'd':
			opt.duration = parse_num(optarg, "duration", 0, 86400);
			break;
		case 'r':
			opt.rounds = parse_num(optarg, "round count", 1, 10000);
			break;
		case 'u':
			opt.userns = true;
			break;
		case 'M':
			opt.mark = false;
			break;
		case 'L':
			opt.leak_fd = true;
			break;
		case 'h':
			usage(stdout);
			exit(0);
		default:
			usage(stderr);
			exit(EXIT_SETUP);
		}
	}
	if (optind < argc) {
		usage(stderr);
		exit(EXIT_SETUP);
	}
	if (!seeded && getrandom(&opt.seed, sizeof(opt.seed), 0) != sizeof(opt.seed))
		opt.seed = (uint64_t)time(NULL) ^ (uint64_t)getpid() << 32;
	/* Shifts need a user namespace, and a marked store. */
	if (opt.mode == MODE_SHIFT_RACE || opt.mode == MODE_REVOKE_RACE) {
		opt.userns = true;
		opt.mark = true;
	}
	/* fail-nth is per task: the walk is one task; its shifts need a mark. */
	if (opt.mode == MODE_FAILSLAB) {
		opt.threads = 1;
		opt.mark = true;
	}
	make_replay();
}

/* Only as root, and never on a kernel without configfd (the host). */
static void refuse_unless_configfd(void)
{
	int probe = configfd_probe();

	if (probe == CONFIGFD_SUPPORTED && geteuid() == 0)
		return;
	if (probe == CONFIGFD_SUPPORTED)
		fprintf(stderr, "configfd_fuzz: refusing to run: it must run as root (it makes its own mount namespace)\n");
	else if (probe == CONFIGFD_MISSING)
		fprintf(stderr, "configfd_fuzz: refusing to run: this kernel has no configfd syscalls (500/501 are missing or not the shiftbind series'); run it in the shiftbind guest\n");
	else
		fprintf(stderr, "configfd_fuzz: refusing to run: cannot tell whether this kernel has configfd: %s\n",
			strerror(-probe));
	exit(EXIT_REFUSED);
}

/* stdin, stdout and stderr open, so no pool fd takes their numbers. */
static void std_fds_open(void)
{
	int fd;

	for (fd = 0; fd <= STDERR_FILENO; fd++)
		if (fcntl(fd, F_GETFD) < 0 && open("/dev/null", O_RDWR) != fd)
			exit(EXIT_SETUP);
}

static const char *status_name(int status)
{
	switch (status) {
	case 0:
		return "ok";
	case EXIT_FOUND:
		return "found";
	case EXIT_SETUP:
		return "setup-error";
	case EXIT_NOFAULT:
		return "no-fault-injection";
	default:
		return "unexpected";
	}
}

/* The line tests parse: every number a test may check. */
static void print_result(const struct report *rep, unsigned long violations,
			 int status)
{
	char deep[512];
	size_t len = 0;
	int i;

	deep[0] = '\0';
	for (i = 0; i < D_NR && len < sizeof(deep); i++)
		len += snprintf(deep + len, sizeof(deep) - len, " %s=%" PRIu64,
				deep_names[i], rep->deep[i]);
	say("RESULT mode=%s seed=%" PRIu64 " threads=%u userns=%d mark=%d calls=%" PRIu64
	    " seconds=%.1f violations=%lu status=%s%s",
	    mode_names[opt.mode], opt.seed, opt.threads, opt.userns, opt.mark,
	    rep->calls, rep->secs, violations, status_name(status), deep);
}

/* The parent's own namespace, once the scratch tree is gone, is as it was. */
static void parent_mount_check(const struct mntset *before)
{
	struct mntset after = { 0, 0, NULL };

	mntset_read_or_die(&after);
	mount_balance(before, &after, "the fuzzer's namespace after cleanup");
	mntset_free(&after);
}

int main(int argc, char **argv)
{
	static int (*const bodies[])(void) = {
		[MODE_RANDOM]		= run_random,
		[MODE_FAILSLAB]		= run_failslab,
		[MODE_SHIFT_RACE]	= run_shift_race,
		/* Not a child's: run_revoke_race() starts one per round. */
		[MODE_REVOKE_RACE]	= NULL,
	};
	struct mntset before = { 0, 0, NULL };
	unsigned long violations;
	double t0 = now();
	struct report rep;
	pid_t host_attacker = 0;
	int status;

	setvbuf(stdout, NULL, _IOLBF, 0);
	parse_options(argc, argv);
	refuse_unless_configfd();
	std_fds_open();
	say("seed %" PRIu64 ", mode %s; replay: %s", opt.seed, mode_names[opt.mode],
	    replay);
	kmsg("configfd_fuzz: start seed=%" PRIu64 " mode=%s; replay: %s", opt.seed,
	     mode_names[opt.mode], replay);

	enter_private_ns();
	mntset_read_or_die(&before);
	if (opt.mode == MODE_FAILSLAB)
		failslab_setup();
	scratch_create(opt.userns);
	if (opt.mode == MODE_SHIFT_RACE)
		host_attacker = host_attacker_start();
	if (opt.mode == MODE_REVOKE_RACE)
		status = run_revoke_race(&rep);
	else
		status = run_child(bodies[opt.mode], &rep);
	if (host_attacker > 0)
		host_attacker_stop(host_attacker);
	if (opt.mode == MODE_FAILSLAB)
		failslab_restore();
	if (opt.mode == MODE_SHIFT_RACE)
		verify_owners();
	scratch_destroy();
	parent_mount_check(&before);
	mntset_free(&before);

	violations = rep.violations + atomic_load(&n_violations);
	if (violations && status == 0)
		status = EXIT_FOUND;
	say("%.1f s in all, %.1f s of them fuzzing", now() - t0, rep.secs);
	print_result(&rep, violations, status);
	if (status && status != EXIT_NOFAULT)
		say("reproduce: %s", replay);
	kmsg("configfd_fuzz: done seed=%" PRIu64 " status=%s calls=%" PRIu64,
	     opt.seed, status_name(status), rep.calls);
	return status;
}
