// SPDX-License-Identifier: GPL-2.0
/*
 * sandbox.c: see sandbox.h.
 *
 * The filter is classic BPF written out here rather than compiled by
 * libseccomp at every start: the hook runs once per container, and
 * under an emulator building the filter was a third of its time.  The
 * program is short enough to read whole; each allowed syscall is a
 * compare and a return, as in OpenSSH's sandbox-seccomp-filter.c.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#include "common.h"
#include "configfd.h"
#include "sandbox.h"

/* The ABI the filter admits; any other (i386, x32 on x86_64) is killed. */
#if defined(__x86_64__) && !defined(__ILP32__)
# define SANDBOX_AUDIT_ARCH	AUDIT_ARCH_X86_64
#else
# error "sandbox.c: no seccomp filter for this architecture; add its AUDIT_ARCH_ and check the syscall list"
#endif

/*
 * What the hook does once confined, and what glibc does for it (checked
 * with strace on every path the host tests reach).
 */
static const unsigned int allowed[] = {
	/* state (stdin), config.json, /proc files, mountinfo; log writes */
	__NR_read, __NR_write, __NR_openat, __NR_close, __NR_lseek,
	__NR_fstat, __NR_newfstatat,
	/* extra mounts resolved inside the rootfs; mount ids of targets */
	__NR_openat2, __NR_statx,
	/* malloc and realloc */
	__NR_brk, __NR_mmap, __NR_munmap, __NR_mremap,
	/* syslog(3): a datagram to /dev/log, reconnected after a failure */
	__NR_socket, __NR_connect, __NR_sendto,
	/* syslog's LOG_PID, log time stamps (vDSO, else the syscall), stage check */
	__NR_getpid, __NR_clock_gettime, __NR_geteuid,
	/* glibc's qsort sizes its buffer by the memory size (many annotations) */
	__NR_sysinfo,
	/* the container's process, pinned before its /proc directory is opened */
	__NR_pidfd_open,
	/*
	 * abort() and fortify failures: the message (writev), then SIGABRT
	 * to the thread itself; refused, they end in SIGSEGV with the
	 * message lost.
	 */
	__NR_writev, __NR_rt_sigprocmask, __NR_rt_sigaction, __NR_gettid,
	__NR_tgkill,
	__NR_exit_group,
};

/* Only where configfd_probe() found configfd: elsewhere 451 and 452 are other calls. */
static const unsigned int allowed_with_configfd[] = {
	__NR_configfd_open, __NR_configfd_action,
};

#define DATA_ARCH	offsetof(struct seccomp_data, arch)
#define DATA_NR		offsetof(struct seccomp_data, nr)
/* The two 32-bit halves of a 64-bit argument, which BPF loads one at a time. */
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
# define DATA_ARG_LO(n)	(offsetof(struct seccomp_data, args[n]))
# define DATA_ARG_HI(n)	(offsetof(struct seccomp_data, args[n]) + 4)
#else
# define DATA_ARG_LO(n)	(offsetof(struct seccomp_data, args[n]) + 4)
# define DATA_ARG_HI(n)	(offsetof(struct seccomp_data, args[n]))
#endif

/* Instructions as values (the kernel's macros are bare initialisers). */
#define STMT(code, k)		((struct sock_filter)BPF_STMT((code), (k)))
#define JUMP(code, k, jt, jf)	((struct sock_filter)BPF_JUMP((code), (k), (jt), (jf)))

#define LOAD(off)		STMT(BPF_LD | BPF_W | BPF_ABS, (off))
#define RETURN(action)		STMT(BPF_RET | BPF_K, (action))
/* Conditional skips over the next @n instructions, on the value in A. */
#define SKIP_IF_EQUAL(k, n)	JUMP(BPF_JMP | BPF_JEQ | BPF_K, (k), (n), 0)
#define SKIP_UNLESS_EQUAL(k, n)	JUMP(BPF_JMP | BPF_JEQ | BPF_K, (k), 0, (n))
#define SKIP_IF_BELOW(k, n)	JUMP(BPF_JMP | BPF_JGE | BPF_K, (k), 0, (n))

#define DENY			RETURN(SECCOMP_RET_ERRNO | (EPERM & SECCOMP_RET_DATA))
#define ALLOW			RETURN(SECCOMP_RET_ALLOW)

/* Room for the head, both lists, the two argument blocks and the default. */
#define MAX_INSNS	(8 + 2 * (ARRAY_SIZE(allowed) + \
				  ARRAY_SIZE(allowed_with_configfd)) + 2 * 8 + 1)

struct program {
	struct sock_filter insn[MAX_INSNS];
	unsigned short len;
};

static void emit(struct program *p, struct sock_filter insn)
{
	/* MAX_INSNS counts every instruction below: overflow is a bug here. */
	if (p->len >= MAX_INSNS)
		__builtin_trap();
	p->insn[p->len++] = insn;
}

/* A foreign ABI is killed outright; the syscall number is left in A. */
static void emit_head(struct program *p)
{
	emit(p, LOAD(DATA_ARCH));
	emit(p, SKIP_IF_EQUAL(SANDBOX_AUDIT_ARCH, 1));
	emit(p, RETURN(SECCOMP_RET_KILL_PROCESS));
	emit(p, LOAD(DATA_NR));
#ifdef __X32_SYSCALL_BIT
	/* x32 calls carry AUDIT_ARCH_X86_64 too, with this bit set. */
	emit(p, SKIP_IF_BELOW(__X32_SYSCALL_BIT, 1));
	emit(p, RETURN(SECCOMP_RET_KILL_PROCESS));
#endif
}

static void emit_allow(struct program *p, const unsigned int *nrs, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		emit(p, SKIP_UNLESS_EQUAL(nrs[i], 1));
		emit(p, ALLOW);
	}
}

/*
 * Syscall nr only with argument arg equal to value, all 64 bits of it.
 * The number is loaded again first: each block stands on its own, and
 * every mismatch falls through to the next block or the default.
 */
static void emit_allow_with_arg(struct program *p, unsigned int nr,
				unsigned int arg, uint64_t value)
{
	emit(p, LOAD(DATA_NR));
	emit(p, SKIP_UNLESS_EQUAL(nr, 5));
	emit(p, LOAD(DATA_ARG_LO(arg)));
	emit(p, SKIP_UNLESS_EQUAL((uint32_t)value, 3));
	emit(p, LOAD(DATA_ARG_HI(arg)));
	emit(p, SKIP_UNLESS_EQUAL((uint32_t)(value >> 32), 1));
	emit(p, ALLOW);
}

static void build_program(struct program *p, bool with_configfd)
{
	p->len = 0;
	emit_head(p);
	emit_allow(p, allowed, ARRAY_SIZE(allowed));
	if (with_configfd)
		emit_allow(p, allowed_with_configfd,
			   ARRAY_SIZE(allowed_with_configfd));
	/* setns(fd, CLONE_NEWNS): the one kind of namespace the hook joins. */
	emit_allow_with_arg(p, __NR_setns, 1, CLONE_NEWNS);
	/* pidfd_send_signal(pidfd, 0, ...): is the container's process alive? */
	emit_allow_with_arg(p, __NR_pidfd_send_signal, 1, 0);
	emit(p, DENY);
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
	struct program p;
	struct sock_fprog prog;

	if (!confinement_built_in())
		return 0;
	build_program(&p, with_configfd);
	prog = (struct sock_fprog){ .len = p.len, .filter = p.insn };
	/* Required of an unprivileged caller, and right for root too. */
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return error_errno(e, errno, "seccomp: prctl(PR_SET_NO_NEW_PRIVS)");
	if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog, 0, 0) < 0)
		return error_errno(e, errno,
				   "seccomp: loading the filter (%u instructions)",
				   (unsigned int)p.len);
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
