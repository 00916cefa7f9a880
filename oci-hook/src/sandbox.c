// SPDX-License-Identifier: GPL-2.0
/* sandbox.c: see sandbox.h. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <fcntl.h>
#include <sched.h>
#include <seccomp.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#include "common.h"
#include "sandbox.h"

/* The shiftbind series' numbers (see lib/configfd.c). */
#define NR_CONFIGFD_OPEN	451
#define NR_CONFIGFD_ACTION	452

/*
 * What the hook does once confined, and what glibc does for it (checked
 * with strace on every path the host tests reach).  Names unknown on an
 * architecture are skipped.
 */
static const char *const allowed[] = {
	/* state (stdin), config.json, /proc files, mountinfo; log writes */
	"read", "write", "openat", "close", "lseek", "fstat", "newfstatat",
	/* extra mounts resolved inside the rootfs; mount ids of targets */
	"openat2", "statx",
	/* malloc and realloc */
	"brk", "mmap", "munmap", "mremap",
	/* syslog(3): a datagram to /dev/log, reconnected after a failure */
	"socket", "connect", "sendto",
	/* syslog's LOG_PID, log time stamps (vDSO, else the syscall), stage check */
	"getpid", "clock_gettime", "geteuid",
	"exit_group",
};

static int allow_name(scmp_filter_ctx ctx, const char *name, struct error *e)
{
	int nr = seccomp_syscall_resolve_name(name);
	int ret;

	if (nr == __NR_SCMP_ERROR)
		return 0;
	ret = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, nr, 0);
	if (ret < 0)
		return error_errno(e, -ret, "seccomp: allow %s", name);
	return 0;
}

/* setns only into a mount namespace: the one kind the hook joins. */
static int allow_setns(scmp_filter_ctx ctx, struct error *e)
{
	/* Spelled out: SCMP_A1() leaves datum_b to clang's field warning. */
	const struct scmp_arg_cmp nstype_is_mnt = {
		.arg = 1, .op = SCMP_CMP_EQ, .datum_a = CLONE_NEWNS, .datum_b = 0,
	};
	int ret = seccomp_rule_add_array(ctx, SCMP_ACT_ALLOW, SCMP_SYS(setns), 1,
					 &nstype_is_mnt);

	if (ret < 0)
		return error_errno(e, -ret, "seccomp: allow setns");
	return 0;
}

/* By number: libseccomp does not know them, or knows them by other names. */
static int allow_configfd(scmp_filter_ctx ctx, struct error *e)
{
	static const int numbers[] = { NR_CONFIGFD_OPEN, NR_CONFIGFD_ACTION };
	size_t i;

	for (i = 0; i < ARRAY_SIZE(numbers); i++) {
		int ret = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, numbers[i], 0);

		if (ret < 0)
			return error_errno(e, -ret, "seccomp: allow syscall %d",
					   numbers[i]);
	}
	return 0;
}

static void seccomp_releasep(scmp_filter_ctx *ctx)
{
	if (*ctx)
		seccomp_release(*ctx);
}

/*
 * Off only in the test build `make valgrind`: valgrind cannot run a
 * process under a seccomp filter (it makes syscalls of its own), and
 * that build exists to run the hook's whole flow under valgrind.  It is
 * never installed.
 */
static bool confinement_built_in(void)
{
#ifdef SHIFTBIND_UNCONFINED
	return false;
#else
	return true;
#endif
}

int sandbox_install(bool with_configfd, struct error *e)
{
	__attribute__((cleanup(seccomp_releasep))) scmp_filter_ctx ctx = NULL;
	size_t i;
	int ret;

	if (!confinement_built_in())
		return 0;
	/* Other architectures' syscalls (x32, i386 on x86_64) are killed. */
	ctx = seccomp_init(SCMP_ACT_ERRNO(EPERM));
	if (!ctx)
		return error_msg(e, ENOMEM, "seccomp_init failed");
	for (i = 0; i < ARRAY_SIZE(allowed); i++) {
		ret = allow_name(ctx, allowed[i], e);
		if (ret < 0)
			return ret;
	}
	ret = allow_setns(ctx, e);
	if (ret == 0 && with_configfd)
		ret = allow_configfd(ctx, e);
	if (ret < 0)
		return ret;
	ret = seccomp_load(ctx);
	if (ret < 0)
		return error_errno(e, -ret, "seccomp_load");
	return 0;
}

int sandbox_self_test(struct error *e)
{
	/* The parent does not exist: even without a filter nothing is created. */
	if (mkdirat(AT_FDCWD, "/nonexistent-shiftbind-seccomp-test/dir", 0700) == 0)
		return error_msg(e, EEXIST, "seccomp self-test: mkdirat succeeded");
	if (errno != EPERM)
		return error_errno(e, errno,
				   "seccomp self-test: mkdirat was not refused by the filter");
	return 0;
}
