// SPDX-License-Identifier: GPL-2.0
/*
 * hook-sandbox-test: the hook's seccomp filter (oci-hook/src/sandbox.c)
 * as the release build links it.  Each case loads the filter in a child
 * of its own, makes one syscall and reports its errno through a pipe;
 * the parent prints TAP.  Not under ASan: the sanitizer's own syscalls
 * (sigaltstack...) are, rightly, refused by the filter.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <sys/sysinfo.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common.h"
#include "configfd.h"
#include "sandbox.h"
#include "../tap.h"

enum filter_outcome {
	REACHES_KERNEL,	/* let through: any result but EPERM */
	REFUSED,	/* EPERM from the filter */
	KILLED,		/* SIGSYS: an ABI other than the hook's own */
	FAULTED,	/* SIGSEGV: the kernel has no such entry point at all */
	NO_ANSWER,	/* the child died otherwise, or could not load the filter */
};

static const char *const outcome_names[] = {
	[REACHES_KERNEL] = "reaches the kernel",
	[REFUSED] = "refused with EPERM",
	[KILLED] = "killed by SIGSYS",
	[FAULTED] = "faulted (SIGSEGV), as without a filter: the kernel has no i386 ABI",
	[NO_ANSWER] = "no answer from the child",
};

static long try_mkdirat(void)
{
	return syscall(__NR_mkdirat, AT_FDCWD,
		       "/nonexistent-shiftbind-seccomp-test/dir", 0700);
}

static long try_getpid(void)
{
	return syscall(__NR_getpid);
}

static long try_setns_mnt(void)
{
	return syscall(__NR_setns, -1, (unsigned long)CLONE_NEWNS);
}

static long try_setns_net(void)
{
	return syscall(__NR_setns, -1, (unsigned long)CLONE_NEWNET);
}

/* The kernel reads an int; the filter compares all 64 bits all the same. */
static long try_setns_mnt_upper_bits(void)
{
	return syscall(__NR_setns, -1, (1UL << 32) | CLONE_NEWNS);
}

static long try_sysinfo(void)
{
	struct sysinfo info;

	return syscall(__NR_sysinfo, &info);
}

/* Signal 0 to this thread: what abort() does, but harmless. */
static long try_tgkill_self(void)
{
	return syscall(__NR_tgkill, getpid(), gettid(), 0);
}

static long try_pidfd_signal(int sig)
{
	long pidfd = syscall(__NR_pidfd_open, getpid(), 0);

	if (pidfd < 0)
		return pidfd;
	return syscall(__NR_pidfd_send_signal, (int)pidfd, sig, NULL, 0);
}

/* The hook's liveness check of the container's process. */
static long try_pidfd_signal_0(void)
{
	return try_pidfd_signal(0);
}

/* A real signal through a pidfd: not what the hook does. */
static long try_pidfd_signal_cont(void)
{
	return try_pidfd_signal(SIGCONT);
}

static long try_configfd_open(void)
{
	return syscall(__NR_configfd_open, "bind", 0UL, 0UL);
}

/* getpid through the i386 entry point: AUDIT_ARCH_I386. */
static long try_i386_getpid(void)
{
	long ret = 20;	/* getpid in the i386 table */

	__asm__ volatile("int $0x80" : "+a"(ret) : : "memory");
	return ret;
}

/* getpid through the x32 ABI: AUDIT_ARCH_X86_64 with the x32 bit set. */
static long try_x32_getpid(void)
{
	return syscall(__X32_SYSCALL_BIT | __NR_getpid);
}

/*
 * A kernel built without IA32_EMULATION (or booted with it off) has no
 * int $0x80 entry: the instruction faults before seccomp sees anything.
 * On such a kernel the i386 case can only show that the call still does
 * not get through; where the ABI exists it must be killed by the filter.
 * EXPECT_KILLED_IF_I386 picks between the two by asking the kernel,
 * without a filter, first.
 */
#define EXPECT_KILLED_IF_I386	(-1)

static const struct filter_case {
	const char *what;
	bool with_configfd;
	long (*call)(void);
	int expect;		/* enum filter_outcome, or EXPECT_KILLED_IF_I386 */
} cases[] = {
	{ "mkdirat, not on the list", false, try_mkdirat, REFUSED },
	{ "getpid, on the list", false, try_getpid, REACHES_KERNEL },
	{ "sysinfo (glibc's qsort)", false, try_sysinfo, REACHES_KERNEL },
	{ "tgkill of the thread itself (abort)", false, try_tgkill_self, REACHES_KERNEL },
	{ "pidfd_open, then pidfd_send_signal(0)", false, try_pidfd_signal_0,
	  REACHES_KERNEL },
	{ "pidfd_send_signal(SIGCONT)", false, try_pidfd_signal_cont, REFUSED },
	{ "setns(CLONE_NEWNS)", false, try_setns_mnt, REACHES_KERNEL },
	{ "setns(CLONE_NEWNET)", false, try_setns_net, REFUSED },
	{ "setns(CLONE_NEWNS) with upper bits set", false,
	  try_setns_mnt_upper_bits, REFUSED },
	{ "configfd_open, filter without configfd", false, try_configfd_open,
	  REFUSED },
	{ "configfd_open, filter with configfd", true, try_configfd_open,
	  REACHES_KERNEL },
	{ "getpid by the i386 ABI", false, try_i386_getpid, EXPECT_KILLED_IF_I386 },
	{ "getpid by the x32 ABI", false, try_x32_getpid, KILLED },
};

static void die(const char *what)
{
	perror(what);
	exit(2);
}

/* The child's side: load the filter, make the call, send its errno. */
static void __attribute__((noreturn)) child(const struct filter_case *c,
					     bool filtered, int out)
{
	struct error e = { 0, "" };
	int err;

	if (filtered && sandbox_install(c->with_configfd, &e) < 0) {
		fprintf(stderr, "%s\n", e.msg);
		_exit(1);
	}
	err = c->call() < 0 ? errno : 0;
	if (write(out, &err, sizeof(err)) != sizeof(err))
		_exit(1);
	_exit(0);
}

static enum filter_outcome run_case(const struct filter_case *c,
				    bool filtered, int *err)
{
	int pipefd[2], status;
	ssize_t n;
	pid_t pid;

	if (pipe2(pipefd, O_CLOEXEC) < 0)
		die("pipe2");
	fflush(stdout);
	pid = fork();
	if (pid < 0)
		die("fork");
	if (pid == 0)
		child(c, filtered, pipefd[1]);
	close(pipefd[1]);
	n = read(pipefd[0], err, sizeof(*err));
	close(pipefd[0]);
	if (waitpid(pid, &status, 0) != pid)
		die("waitpid");
	if (WIFSIGNALED(status) && WTERMSIG(status) == SIGSYS)
		return KILLED;
	if (WIFSIGNALED(status) && WTERMSIG(status) == SIGSEGV)
		return FAULTED;
	if (n != sizeof(*err) || !WIFEXITED(status) || WEXITSTATUS(status))
		return NO_ANSWER;
	return *err == EPERM ? REFUSED : REACHES_KERNEL;
}

/* The outcome a case must have on this kernel. */
static enum filter_outcome expected_outcome(const struct filter_case *c)
{
	int err = 0;

	if (c->expect != EXPECT_KILLED_IF_I386)
		return c->expect;
	/* Unfiltered, a working i386 entry answers; a missing one faults. */
	if (run_case(c, false, &err) == FAULTED) {
		printf("# %s: the kernel has no i386 ABI (faults without a filter)\n",
		       c->what);
		return FAULTED;
	}
	return KILLED;
}

/* abort() under the filter: SIGABRT, not a SIGSEGV that loses the message. */
static void check_abort(void)
{
	struct error e = { 0, "" };
	int status;
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid < 0)
		die("fork");
	if (pid == 0) {
		if (sandbox_install(false, &e) < 0)
			_exit(1);
		abort();
	}
	if (waitpid(pid, &status, 0) != pid)
		die("waitpid");
	ok(WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT,
	   "abort() under the filter ends in SIGABRT (status %#x)", status);
}

int main(void)
{
	size_t i;

	setvbuf(stdout, NULL, _IOLBF, 0);
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		const struct filter_case *c = &cases[i];
		enum filter_outcome expect = expected_outcome(c);
		int err = 0;
		enum filter_outcome got = run_case(c, true, &err);

		ok(got == expect, "%s: %s (got: %s, errno %d)", c->what,
		   outcome_names[expect], outcome_names[got], err);
	}
	check_abort();
	return tap_done();
}
