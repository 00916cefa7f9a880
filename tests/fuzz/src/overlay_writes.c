// SPDX-License-Identifier: GPL-2.0
/*
 * overlay_writes: the programs of fuzz.fsfreeze_overlay_open_for_write, one
 * process each, so that the debug guest (TCG, KASAN, lockdep: every
 * process started costs a second there) spends its time in the kernel
 * paths under test rather than in fork and exec.
 *
 *   overlay_writes write --merged DIR --state FILE --stop FILE --events FD
 *                  [--lower N] [--after-iterations N] [--max-seconds N]
 *                  [--ungated-upper]
 *       Root of the test user's user namespace, on an overlay whose lower
 *       (and upper) directory is a shift: over and over, through DIR,
 *       opens real root's lower files l000.. O_RDWR (the first time: a
 *       copy-up through the shift) and writes, writes through a file
 *       opened before the loop, creates (or truncates) files and chmods
 *       them, chmods real root's lower files c000.. (a copy-up by
 *       setattr; N of each kind, default 256), opens a setuid-root lower
 *       file O_RDWR (its copy-up must be refused, EPERM) and real root's
 *       setuid-root upper file O_RDWR (the open drops the bit, or fails
 *       with EAGAIN while the filesystem is frozen).  Each call is judged
 *       by its phase, read from the shared FILE: "before" if it ended
 *       before real root began to revoke (it must do what it does without
 *       a revocation), "after" if it began once the revocation had
 *       returned (it must fail: EACCES, EPERM, EROFS, or EOVERFLOW for a
 *       change of an inode whose owner the revoked idmap no longer maps),
 *       "in flight" otherwise (either).  Stops AFTER iterations after the
 *       revocation, or when the file STOP exists, and prints one line per
 *       kind of call and a RESULT line.  With --ungated-upper (the upper
 *       directory is not on a shift) only the calls that copy up from
 *       the lower shift are held to the revocation.  "ready" and "done"
 *       go to the fd FD (the test's fifo).
 *
 *   overlay_writes freeze --mount DIR --state FILE --stop FILE --seed N
 *                  [--rearm FILE] [--max-seconds N]
 *       Real root: freezes (FIFREEZE) and thaws (FITHAW) the filesystem
 *       of DIR, each for 5 to 60 ms, until the file STOP exists, counting
 *       the freezes in the shared FILE (odd while a freeze may be in
 *       force); after each thaw, gives FILE of --rearm (real root's own
 *       upper fixture) its setuid bit back.  Always leaves the filesystem
 *       thawed (SIGTERM and SIGINT too).
 *
 *   overlay_writes revoke --state FILE -- CMD...
 *       Real root: marks the shared FILE "revoking", runs CMD (shiftbind
 *       disallow --revoke ...), and once it returned marks it "revoked";
 *       exits with CMD's status.
 *
 * Exit status: 0 nothing wrong, 1 a violation (VIOLATION lines say
 * which), 2 usage or setup error.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <linux/fs.h>

#define PFX "overlay_writes: "

/*
 * Real root's lower files the test makes: l000.. (opened), c000..
 * (chmodded).  Each is copied up once, one of each per iteration once
 * the freezer has begun; the last RESERVE of each are kept for after the
 * revocation, so that copy-ups are tried then too.
 */
#define NLOWER_MAX 1000
#define RESERVE 32
/* Names the writer creates (and truncates again when it comes round). */
#define NNEW 256
#define MAX_REPORTED 20

/* The shared page (the test writes it full of zeros before any of us runs). */
enum { S_FREEZE_SEQ, S_REARM_SEQ, S_REVOKING, S_REVOKED, S_WORDS };

static uint64_t *state;
static unsigned int nlower = 256;	/* --lower N: how many of each */

static uint64_t state_get(int word)
{
	return __atomic_load_n(&state[word], __ATOMIC_SEQ_CST);
}

static void state_add(int word)
{
	__atomic_add_fetch(&state[word], 1, __ATOMIC_SEQ_CST);
}

static void state_set(int word, uint64_t value)
{
	__atomic_store_n(&state[word], value, __ATOMIC_SEQ_CST);
}

static int map_state(const char *path, bool writable)
{
	int fd = open(path, (writable ? O_RDWR : O_RDONLY) | O_CLOEXEC);
	void *p;

	if (fd < 0) {
		printf(PFX "setup failed: open %s: %s\n", path, strerror(errno));
		return -1;
	}
	p = mmap(NULL, 4096, PROT_READ | (writable ? PROT_WRITE : 0),
		 MAP_SHARED, fd, 0);
	close(fd);
	if (p == MAP_FAILED) {
		printf(PFX "setup failed: mmap %s: %s\n", path, strerror(errno));
		return -1;
	}
	state = p;
	return 0;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static bool exists(const char *path)
{
	return access(path, F_OK) == 0;
}

static void sleep_ms(unsigned int ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

static const char *errname(int err)
{
	const char *name = strerrorname_np(err);

	return name ? name : "E?";
}

/* The writer. */

enum kind {
	K_COPYUP_OPEN,	/* first open O_RDWR of a lower file: copy-up */
	K_REOPEN_RW,	/* open O_RDWR of one copied up before */
	K_WRITE,	/* write(2) through that open */
	K_HELD_WRITE,	/* pwrite(2) through the file opened before the loop */
	K_CREATE,	/* open O_WRONLY|O_CREAT|O_TRUNC, then a write */
	K_CHMOD_NEW,	/* chmod of what K_CREATE made */
	K_CHMOD_LOWER,	/* chmod of a lower file: copy-up by setattr */
	K_SUID_COPYUP,	/* open O_RDWR of real root's setuid-root lower file */
	K_USUID_OPEN,	/* open O_RDWR of real root's setuid-root upper file */
	NKINDS
};

static const char *const kind_name[NKINDS] = {
	[K_COPYUP_OPEN] = "copy-up-open", [K_REOPEN_RW] = "reopen-rw",
	[K_WRITE] = "write", [K_HELD_WRITE] = "held-write",
	[K_CREATE] = "create", [K_CHMOD_NEW] = "chmod-new",
	[K_CHMOD_LOWER] = "chmod-lower", [K_SUID_COPYUP] = "suid-copy-up",
	[K_USUID_OPEN] = "usuid-open",
};

enum phase { BEFORE, INFLIGHT, AFTER, NPHASES };

static const char *const phase_name[NPHASES] = { "before", "in flight", "after" };

#define NERRNO 256

struct tally {
	unsigned int tried, ok, frozen, err[NERRNO];
};

static struct tally tally[NKINDS][NPHASES];
static unsigned int violations, copy_ups, copy_ups_frozen, usuid_cleared,
	usuid_eagain;
static bool ungated_upper;

static void violation(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void violation(const char *fmt, ...)
{
	va_list ap;

	if (violations++ >= MAX_REPORTED)
		return;
	va_start(ap, fmt);
	fputs(PFX "VIOLATION: ", stdout);
	vprintf(fmt, ap);
	putchar('\n');
	va_end(ap);
}

/* Whether a kind's calls go through the revoked shift in this layout. */
static bool gated(enum kind k)
{
	return !ungated_upper || k == K_COPYUP_OPEN || k == K_CHMOD_LOWER ||
	       k == K_SUID_COPYUP;
}

/* An open call in progress: its phase and freeze counters at the start. */
struct call {
	enum kind kind;
	bool after, frozen;	/* frozen: a freeze was in force during it */
	uint64_t freeze0, rearm0;
};

static void call_begin(struct call *c, enum kind k)
{
	c->kind = k;
	c->after = state_get(S_REVOKED) != 0;
	c->freeze0 = state_get(S_FREEZE_SEQ);
	c->rearm0 = state_get(S_REARM_SEQ);
}

/*
 * Record and judge the call @c that returned @ret (negative: failed with
 * @err); note in it whether it met a freeze.  Returns its phase.
 */
static enum phase call_end(struct call *c, int ret, int err)
{
	enum phase ph = c->after ? AFTER :
			state_get(S_REVOKING) ? INFLIGHT : BEFORE;
	uint64_t freeze1 = state_get(S_FREEZE_SEQ);
	bool frozen = (c->freeze0 & 1) || freeze1 != c->freeze0;
	struct tally *t = &tally[c->kind][ph];
	const char *what = kind_name[c->kind];

	c->frozen = frozen;
	t->tried++;
	t->frozen += frozen;
	if (ret >= 0) {
		t->ok++;
	} else {
		t->err[err < NERRNO ? err : 0]++;
	}

	if (c->kind == K_SUID_COPYUP && !ungated_upper) {
		/*
		 * Refused in every phase, never copied up (fs/shift.c): its
		 * upper copy would be real root's.  (Into an upper directory
		 * not on a shift, the copy is the namespace's own.)
		 */
		if (ret >= 0)
			violation("%s %s the revocation: real root's setuid-root lower file opened for write through the overlay (its copy-up must fail with EPERM)",
				  what, phase_name[ph]);
		else if (ph == BEFORE && err != EPERM)
			violation("%s before the revocation failed with %s, expected EPERM",
				  what, errname(err));
		else if (ph != BEFORE && err != EPERM && err != EACCES &&
			 err != EROFS && err != EOVERFLOW)
			violation("%s %s the revocation failed with %s, expected EACCES or EPERM",
				  what, phase_name[ph], errname(err));
		return ph;
	}
	if (ph == BEFORE) {
		if (ret < 0 && !(c->kind == K_USUID_OPEN && err == EAGAIN && frozen))
			violation("%s failed with %s before the revocation%s",
				  what, errname(err),
				  err == EAGAIN ? " and with no freeze in force" : "");
	} else if (ph == AFTER && gated(c->kind)) {
		if (ret >= 0)
			violation("%s succeeded after the revocation had returned",
				  what);
		/*
		 * EOVERFLOW: a change of an inode whose owner the revoked
		 * idmap no longer maps (notify_change(), fs/shift.c).
		 */
		else if (err != EACCES && err != EPERM && err != EROFS &&
			 err != EOVERFLOW)
			violation("%s after the revocation failed with %s, expected EACCES, EPERM, EROFS or EOVERFLOW",
				  what, errname(err));
	} else if (ret < 0 && err != EACCES && err != EPERM && err != EROFS &&
		   err != EOVERFLOW &&
		   !(c->kind == K_USUID_OPEN && err == EAGAIN && frozen)) {
		violation("%s %s the revocation failed with %s",
			  what, phase_name[ph], errname(err));
	}
	if (c->kind == K_USUID_OPEN && ret < 0 && err == EAGAIN)
		usuid_eagain++;
	return ph;
}

static int write_line(int fd, unsigned int i, bool positioned)
{
	char buf[64];
	int len = snprintf(buf, sizeof(buf), "written through the overlay %u\n", i);
	ssize_t n = positioned ? pwrite(fd, buf, len, (off_t)(i % 64) * len) :
				 write(fd, buf, len);

	if (n == len)
		return 0;
	if (n >= 0)
		errno = EIO; /* a short write, counted as a failure */
	return -1;
}

/* The setuid/setgid bits of an open file, through the overlay. */
static unsigned int setid_bits(int fd)
{
	struct stat st;

	if (fstat(fd, &st))
		return 0;
	return st.st_mode & (S_ISUID | S_ISGID);
}

/* Where the writer is in real root's lower files. */
struct cursor {
	unsigned int next_l, next_c;	/* the next to copy up */
};

/*
 * Whether the lower file @next may be copied up now: once the freezer has
 * begun, and the last RESERVE only once the revocation has returned.
 */
static bool may_copy_up(unsigned int next)
{
	if (next >= nlower || !state_get(S_FREEZE_SEQ))
		return false;
	return next < nlower - RESERVE || state_get(S_REVOKED);
}

static void writer_iteration(int dirfd, int held, unsigned int i,
			     struct cursor *cur)
{
	char name[32];
	struct call c;
	int fd, ret, err;

	/* Open the next lower file O_RDWR (a copy-up), and write. */
	if (may_copy_up(cur->next_l)) {
		snprintf(name, sizeof(name), "l%03u", cur->next_l++);
		call_begin(&c, K_COPYUP_OPEN);
		fd = openat(dirfd, name, O_RDWR | O_CLOEXEC);
		call_end(&c, fd, errno);
		if (fd >= 0) {
			copy_ups++;
			copy_ups_frozen += c.frozen;
			call_begin(&c, K_WRITE);
			ret = write_line(fd, i, false);
			call_end(&c, ret, errno);
			close(fd);
		}
	}
	/* Open O_RDWR again one copied up before, and write. */
	if (cur->next_l) {
		snprintf(name, sizeof(name), "l%03u", i % cur->next_l);
		call_begin(&c, K_REOPEN_RW);
		fd = openat(dirfd, name, O_RDWR | O_CLOEXEC);
		call_end(&c, fd, errno);
		if (fd >= 0) {
			call_begin(&c, K_WRITE);
			ret = write_line(fd, i, false);
			call_end(&c, ret, errno);
			close(fd);
		}
	}

	/* Through the file opened before the loop. */
	call_begin(&c, K_HELD_WRITE);
	ret = write_line(held, i, true);
	call_end(&c, ret, errno);

	/* Create (or truncate) a file of the namespace's root, and write. */
	snprintf(name, sizeof(name), "n%03u", i % NNEW);
	call_begin(&c, K_CREATE);
	fd = openat(dirfd, name, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	ret = fd;
	err = errno;
	if (fd >= 0) {
		ret = write_line(fd, i, false);
		err = errno;
		close(fd);
	}
	call_end(&c, ret, err);

	call_begin(&c, K_CHMOD_NEW);
	ret = fchmodat(dirfd, name, (i & 1) ? 0600 : 0644, 0);
	call_end(&c, ret, errno);

	/* chmod of the next lower file: a copy-up by setattr. */
	if (may_copy_up(cur->next_c)) {
		snprintf(name, sizeof(name), "c%03u", cur->next_c++);
		call_begin(&c, K_CHMOD_LOWER);
		ret = fchmodat(dirfd, name, (i & 1) ? 0600 : 0640, 0);
		call_end(&c, ret, errno);
		if (ret == 0) {
			copy_ups++;
			copy_ups_frozen += c.frozen;
		}
	}

	/* Real root's setuid-root lower file: its copy-up must be refused. */
	call_begin(&c, K_SUID_COPYUP);
	fd = openat(dirfd, "suid", O_RDWR | O_CLOEXEC);
	err = errno;
	if (fd >= 0) {
		if (!ungated_upper && setid_bits(fd))
			violation("real root's setuid-root lower file was copied up with its setuid bit");
		close(fd);
	}
	call_end(&c, fd, err);

	/*
	 * Real root's setuid-root upper file (the freezer gives the bit back
	 * after each thaw): the open for write drops it
	 * (shift_open_for_write()), or fails with EAGAIN while frozen.
	 */
	if (!ungated_upper) {
		call_begin(&c, K_USUID_OPEN);
		fd = openat(dirfd, "usuid", O_RDWR | O_CLOEXEC);
		err = errno;
		if (fd >= 0) {
			unsigned int bits = setid_bits(fd);

			/* Unless real root gave the bit back meanwhile. */
			if (state_get(S_REARM_SEQ) == c.rearm0 && !(c.rearm0 & 1)) {
				if (bits)
					violation("real root's setuid-root upper file was opened for write through the shift and kept mode bits %o",
						  bits);
				else
					usuid_cleared++;
			}
			close(fd);
		}
		call_end(&c, fd, err);
	}
}

static void print_tallies(void)
{
	for (int k = 0; k < NKINDS; k++) {
		char line[1024];
		int n = snprintf(line, sizeof(line), PFX "%s:", kind_name[k]);

		for (int p = 0; p < NPHASES && n < (int)sizeof(line) - 128; p++) {
			const struct tally *t = &tally[k][p];

			n += snprintf(line + n, sizeof(line) - n,
				      "%s %s %u tried, %u ok, %u met a freeze",
				      p ? ";" : "", phase_name[p], t->tried,
				      t->ok, t->frozen);
			for (int e = 0; e < NERRNO && n < (int)sizeof(line) - 32; e++)
				if (t->err[e])
					n += snprintf(line + n, sizeof(line) - n,
						      ", %s %u", e ? errname(e) : "E?",
						      t->err[e]);
		}
		if (!gated(k) && n < (int)sizeof(line) - 64)
			snprintf(line + n, sizeof(line) - n,
				 " (not through a shift: not held to the revocation)");
		puts(line);
	}
}

static void check_coverage(void)
{
	unsigned int frozen = 0;

	for (int k = 0; k < NKINDS; k++) {
		const struct tally *b = &tally[k][BEFORE], *a = &tally[k][AFTER];
		bool refusal = k == K_SUID_COPYUP && !ungated_upper;

		frozen += b->frozen;
		if (k == K_USUID_OPEN && ungated_upper)
			continue;
		if (refusal ? !b->err[EPERM] : !b->ok)
			violation("%s never %s before the revocation: its results after it prove nothing",
				  kind_name[k], refusal ? "refused with EPERM" : "succeeded");
		/* Writes after it go through held-write: no open succeeds. */
		if (!a->tried && k != K_WRITE)
			violation("%s was never tried after the revocation",
				  kind_name[k]);
	}
	if (!state_get(S_FREEZE_SEQ))
		violation("the filesystem was never frozen while the writer ran");
	else if (!frozen)
		violation("no call before the revocation met a freeze");
}

static int cmd_write(int argc, char **argv)
{
	const char *merged = NULL, *statefile = NULL, *stop = NULL;
	unsigned int after_iterations = 10, max_seconds = 180, after = 0, i;
	int events = -1, dirfd, held;
	struct cursor cur = { 0, 0 };
	double deadline;
	unsigned int totals[NPHASES][2] = { { 0 } };

	for (int a = 0; a < argc; a++) {
		const char *opt = argv[a], *val = a + 1 < argc ? argv[a + 1] : NULL;

		if (!strcmp(opt, "--ungated-upper")) {
			ungated_upper = true;
			continue;
		}
		if (!val)
			goto usage;
		a++;
		if (!strcmp(opt, "--merged"))
			merged = val;
		else if (!strcmp(opt, "--state"))
			statefile = val;
		else if (!strcmp(opt, "--stop"))
			stop = val;
		else if (!strcmp(opt, "--events"))
			events = atoi(val);
		else if (!strcmp(opt, "--lower"))
			nlower = strtoul(val, NULL, 10);
		else if (!strcmp(opt, "--after-iterations"))
			after_iterations = strtoul(val, NULL, 10);
		else if (!strcmp(opt, "--max-seconds"))
			max_seconds = strtoul(val, NULL, 10);
		else
			goto usage;
	}
	if (!merged || !statefile || !stop || events < 0 ||
	    nlower <= RESERVE || nlower > NLOWER_MAX)
		goto usage;
	if (map_state(statefile, false))
		return 2;
	dirfd = open(merged, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (dirfd < 0) {
		printf(PFX "setup failed: open %s: %s\n", merged, strerror(errno));
		return 2;
	}
	/* Held open for write across everything: copied up here. */
	held = openat(dirfd, "held", O_RDWR | O_CLOEXEC);
	if (held < 0) {
		printf(PFX "setup failed: open %s/held O_RDWR: %s\n", merged,
		       strerror(errno));
		return 2;
	}
	dprintf(events, "ready\n");
	deadline = now() + max_seconds;

	for (i = 0; ; i++) {
		if (state_get(S_REVOKED) && ++after > after_iterations)
			break;
		if (exists(stop)) {
			printf(PFX "stopped by %s\n", stop);
			break;
		}
		if (now() > deadline) {
			violation("no revocation within %u s (iteration %u)",
				  max_seconds, i);
			break;
		}
		writer_iteration(dirfd, held, i, &cur);
	}
	close(held);
	close(dirfd);

	print_tallies();
	if (!exists(stop))
		check_coverage();
	for (int k = 0; k < NKINDS; k++)
		for (int p = 0; p < NPHASES; p++) {
			if (!gated(k) && p == AFTER)
				continue;
			totals[p][0] += tally[k][p].tried;
			totals[p][1] += tally[k][p].ok;
		}
	printf(PFX "RESULT iterations=%u before=%u before_ok=%u in_flight=%u in_flight_ok=%u after=%u after_ok=%u copy_ups=%u copy_ups_frozen=%u suid_refused=%u usuid_cleared=%u usuid_eagain=%u freezes=%llu violations=%u status=%s\n",
	       i, totals[BEFORE][0], totals[BEFORE][1], totals[INFLIGHT][0],
	       totals[INFLIGHT][1], totals[AFTER][0], totals[AFTER][1],
	       copy_ups, copy_ups_frozen,
	       tally[K_SUID_COPYUP][BEFORE].err[EPERM], usuid_cleared,
	       usuid_eagain,
	       (unsigned long long)state_get(S_FREEZE_SEQ) / 2, violations,
	       violations ? "violation" : "ok");
	fflush(stdout);
	dprintf(events, "done\n");
	return violations ? 1 : 0;
usage:
	fprintf(stderr, "usage: overlay_writes write --merged DIR --state FILE --stop FILE --events FD [--lower N] [--after-iterations N] [--max-seconds N] [--ungated-upper]\n");
	return 2;
}

/* The freezer. */

static int freeze_fd = -1;
static volatile sig_atomic_t frozen_now;

static void thaw(void)
{
	if (freeze_fd >= 0 && ioctl(freeze_fd, FITHAW, 0) == 0)
		frozen_now = 0;
}

static void on_signal(int sig)
{
	/* Never leave the filesystem frozen. */
	if (freeze_fd >= 0)
		ioctl(freeze_fd, FITHAW, 0);
	signal(sig, SIG_DFL);
	raise(sig);
}

static unsigned int rng(uint64_t *s)
{
	/* xorshift64* */
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return (unsigned int)((*s * 2685821657736338717ULL) >> 32);
}

static int cmd_freeze(int argc, char **argv)
{
	const char *mount = NULL, *statefile = NULL, *stop = NULL, *rearm = NULL;
	unsigned int max_seconds = 180, freezes = 0, rearms = 0, failures = 0;
	uint64_t seed = 0;
	double deadline, frozen_time = 0, t0, start;
	struct sigaction sa = { .sa_handler = on_signal };

	for (int a = 0; a + 1 < argc; a += 2) {
		const char *opt = argv[a], *val = argv[a + 1];

		if (!strcmp(opt, "--mount"))
			mount = val;
		else if (!strcmp(opt, "--state"))
			statefile = val;
		else if (!strcmp(opt, "--stop"))
			stop = val;
		else if (!strcmp(opt, "--rearm"))
			rearm = val;
		else if (!strcmp(opt, "--seed"))
			seed = strtoull(val, NULL, 10);
		else if (!strcmp(opt, "--max-seconds"))
			max_seconds = strtoul(val, NULL, 10);
		else
			goto usage;
	}
	if (argc % 2 || !mount || !statefile || !stop)
		goto usage;
	if (map_state(statefile, true))
		return 2;
	freeze_fd = open(mount, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (freeze_fd < 0) {
		printf(PFX "setup failed: open %s: %s\n", mount, strerror(errno));
		return 2;
	}
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	seed = seed * 0x9e3779b97f4a7c15ULL + 1;
	start = now();
	deadline = start + max_seconds;

	while (!exists(stop) && now() < deadline) {
		/* Odd from before FIFREEZE until FITHAW has returned. */
		state_add(S_FREEZE_SEQ);
		t0 = now();
		if (ioctl(freeze_fd, FIFREEZE, 0)) {
			printf(PFX "freezer: FIFREEZE of %s: %s\n", mount, strerror(errno));
			state_add(S_FREEZE_SEQ);
			if (++failures > 3)
				break;
			continue;
		}
		frozen_now = 1;
		freezes++;
		sleep_ms(5 + rng(&seed) % 56);
		if (ioctl(freeze_fd, FITHAW, 0)) {
			printf(PFX "freezer: FITHAW of %s: %s\n", mount, strerror(errno));
			failures = 100;
			break;
		}
		frozen_now = 0;
		frozen_time += now() - t0;
		state_add(S_FREEZE_SEQ);
		if (rearm) {
			/* Odd while real root gives the bit back. */
			state_add(S_REARM_SEQ);
			if (chmod(rearm, 04755) == 0)
				rearms++;
			else
				printf(PFX "freezer: chmod 04755 %s: %s\n", rearm, strerror(errno));
			state_add(S_REARM_SEQ);
		}
		sleep_ms(5 + rng(&seed) % 56);
	}
	if (frozen_now)
		thaw();
	if (state_get(S_FREEZE_SEQ) & 1)
		state_add(S_FREEZE_SEQ);
	printf(PFX "freezer: %u freezes of %s, %.1f s frozen of %.1f s; %u times real root's setuid bit given back%s\n",
	       freezes, mount, frozen_time, now() - start, rearms,
	       failures ? "; FAILED" : "");
	return failures || !freezes ? 1 : 0;
usage:
	fprintf(stderr, "usage: overlay_writes freeze --mount DIR --state FILE --stop FILE --seed N [--rearm FILE] [--max-seconds N]\n");
	return 2;
}

/* The revocation's bracket. */

static int cmd_revoke(int argc, char **argv)
{
	int status;
	pid_t pid;

	if (argc < 4 || strcmp(argv[0], "--state") || strcmp(argv[2], "--")) {
		fprintf(stderr, "usage: overlay_writes revoke --state FILE -- CMD...\n");
		return 2;
	}
	if (map_state(argv[1], true))
		return 2;
	fflush(stdout);
	state_set(S_REVOKING, 1);
	pid = fork();
	if (pid < 0) {
		printf(PFX "setup failed: fork: %s\n", strerror(errno));
		return 2;
	}
	if (pid == 0) {
		execvp(argv[3], argv + 3);
		printf(PFX "exec %s: %s\n", argv[3], strerror(errno));
		_exit(127);
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return 2;
	state_set(S_REVOKED, 1);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc >= 2 && !strcmp(argv[1], "write"))
		return cmd_write(argc - 2, argv + 2);
	if (argc >= 2 && !strcmp(argv[1], "freeze"))
		return cmd_freeze(argc - 2, argv + 2);
	if (argc >= 2 && !strcmp(argv[1], "revoke"))
		return cmd_revoke(argc - 2, argv + 2);
	fprintf(stderr, "usage: overlay_writes write|freeze|revoke ... (see the source's comment)\n");
	return 2;
}
