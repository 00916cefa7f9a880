// SPDX-License-Identifier: GPL-2.0
/* sandbox.c: see sandbox.h. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/openat2.h>
#include <linux/seccomp.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "common.h"
#include "configfd.h"
#include "sandbox.h"

/* parser_filter[] and hook_filter[], from tools/seccomp-gen.c. */
#include "seccomp-filters.h"

#if !defined(__x86_64__) || defined(__ILP32__)
# error "sandbox.c: the filters are generated for x86_64; check seccomp-gen's syscall lists on this architecture first"
#endif

/*
 * Off only in the test builds `make valgrind` and `make asan`: valgrind
 * and the sanitizers make syscalls of their own (sigaltstack, their
 * reports' files) that the filters rightly refuse, and those builds
 * exist to run the hook's whole flow under them.  They are never
 * installed; the released filters are tested by hook-sandbox-test.
 */
static bool confinement_built_in(void)
{
#ifdef SHIFTBIND_UNCONFINED
	return false;
#else
	return true;
#endif
}

static const struct {
	const char *name;
	const struct sock_filter *insn;
	unsigned short len;
} filters[] = {
	[SANDBOX_PARSER] = { "parser", parser_filter, ARRAY_SIZE(parser_filter) },
	[SANDBOX_HOOK] = { "hook", hook_filter, ARRAY_SIZE(hook_filter) },
};

int sandbox_install(enum sandbox_kind kind, struct error *e)
{
	struct sock_fprog prog = {
		.len = filters[kind].len,
		/* The kernel copies the program and never writes it. */
		.filter = (struct sock_filter *)filters[kind].insn,
	};

	if (!confinement_built_in())
		return 0;
	/* Required of an unprivileged caller, and right for root too. */
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return error_errno(e, errno, "seccomp: prctl(PR_SET_NO_NEW_PRIVS)");
	if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog, 0, 0) < 0)
		return error_errno(e, errno,
				   "seccomp: loading the %s filter (%u instructions)",
				   filters[kind].name, (unsigned int)prog.len);
	return 0;
}

/* --- self-test: calls that must be refused -------------------------- */

#define NO_SUCH_PATH "/nonexistent-shiftbind-seccomp-test/f"

static long try_open_read(void)
{
	return openat(AT_FDCWD, "/proc/self/status", O_RDONLY | O_CLOEXEC);
}

static long try_open_write(void)
{
	return openat(AT_FDCWD, NO_SUCH_PATH, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
}

static long try_open_rdwr(void)
{
	return openat(AT_FDCWD, "/dev/null", O_RDWR | O_CLOEXEC);
}

static long try_openat2_create(void)
{
	struct open_how how = { .flags = O_WRONLY | O_CREAT | O_CLOEXEC, .mode = 0600 };

	return syscall(SYS_openat2, AT_FDCWD, NO_SUCH_PATH, &how, sizeof(how));
}

static long try_mkdirat(void)
{
	return mkdirat(AT_FDCWD, NO_SUCH_PATH, 0700);
}

static long try_socket(void)
{
	return socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
}

static long try_connect(void)
{
	return connect(-1, NULL, 0);
}

/* A configfd of its own: what marking a store would start with. */
static long try_configfd_open(void)
{
	return syscall(__NR_configfd_open, "bind", O_CLOEXEC, CONFIGFD_CMD_RECONFIGURE);
}

/* Clearing read-only, on no fd: EBADF unfiltered. */
static long try_mount_setattr(void)
{
	struct mount_attr_v0 { uint64_t set, clr, propagation, userns_fd; } attr = { 0, 1, 0, 0 };

	return syscall(__NR_mount_setattr, -1, "", AT_EMPTY_PATH, &attr, sizeof(attr));
}

static long try_open_tree(void)
{
	return syscall(__NR_open_tree, -1, "", AT_EMPTY_PATH | 1 /* OPEN_TREE_CLONE */);
}

struct probe {
	const char *what;
	long (*call)(void);
	bool refused;		/* expected: EPERM from the filter */
};

static const struct probe parser_probes[] = {
	{ "open for reading", try_open_read, true },
	{ "open for writing", try_open_write, true },
	{ "socket", try_socket, true },
	{ "connect", try_connect, true },
	{ "mkdirat", try_mkdirat, true },
};

static const struct probe hook_probes[] = {
	{ "open for writing", try_open_write, true },
	{ "open read-write", try_open_rdwr, true },
	{ "openat2", try_openat2_create, true },
	{ "socket", try_socket, true },
	{ "connect", try_connect, true },
	{ "mkdirat", try_mkdirat, true },
	{ "configfd_open", try_configfd_open, true },
	{ "mount_setattr", try_mount_setattr, true },
	{ "open_tree", try_open_tree, true },
	{ "open for reading", try_open_read, false },
};

static int run_probe(const struct probe *p, const char *kind, struct error *e)
{
	long ret = p->call();
	int err = errno;

	if (ret >= 0)
		close((int)ret);
	if (p->refused && ret >= 0)
		return error_msg(e, EEXIST, "seccomp self-test (%s): %s succeeded",
				 kind, p->what);
	if (p->refused && err != EPERM)
		return error_errno(e, err,
				   "seccomp self-test (%s): %s not refused by the filter",
				   kind, p->what);
	if (!p->refused && ret < 0)
		return error_errno(e, err, "seccomp self-test (%s): %s failed",
				   kind, p->what);
	return 0;
}

/* Appends the names of the probes whose refused is want, comma-separated. */
static void append_names(const struct probe *p, size_t n, bool want, char *out,
			 size_t size)
{
	const char *sep = "";
	size_t i, len;

	for (i = 0; i < n; i++) {
		if (p[i].refused != want)
			continue;
		len = strlen(out);
		snprintf(out + len, size - len, "%s%s", sep, p[i].what);
		sep = ", ";
	}
}

int sandbox_self_test(enum sandbox_kind kind, char *report, size_t size,
		      struct error *e)
{
	bool parser = kind == SANDBOX_PARSER;
	const struct probe *probes = parser ? parser_probes : hook_probes;
	size_t i, n = parser ? ARRAY_SIZE(parser_probes) : ARRAY_SIZE(hook_probes);
	const char *name = filters[kind].name;
	size_t len;
	int ret;

	for (i = 0; i < n; i++) {
		ret = run_probe(&probes[i], name, e);
		if (ret < 0)
			return ret;
	}
	snprintf(report, size, "seccomp self-test (%s filter): refused with EPERM: ",
		 name);
	append_names(probes, n, true, report, size);
	if (!parser) {
		len = strlen(report);
		snprintf(report + len, size - len, "; allowed: ");
		append_names(probes, n, false, report, size);
	}
	return 0;
}
