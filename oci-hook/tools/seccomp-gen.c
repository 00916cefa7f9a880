// SPDX-License-Identifier: GPL-2.0
/*
 * seccomp-gen: build the hook's two seccomp filters with libseccomp and
 * print them as C arrays (oci-hook/Makefile writes them to
 * seccomp-filters.h, which sandbox.c includes).
 *
 * Argument rules are libseccomp's, not hand-written BPF, and nothing is
 * compiled when the hook starts: under an emulator building a filter at
 * run time was a third of the hook's time, and the hook runs once per
 * container.  The filters are for the architecture this runs on, which
 * must be the one the hook is built for (the Makefile runs both with
 * the same compiler); any other ABI (i386, x32) is killed.
 *
 *   parser  the child that parses the container's JSON: reads its
 *           request pipe, writes its reply pipe and stderr, allocates
 *           memory, exits.  Nothing that names a file, a socket or
 *           another process.
 *   hook    the privileged parent once it has joined the container's
 *           mount namespace, opened the mounts to shift and prepared
 *           their shifts: reads /proc and mountinfo (openat without any
 *           write, create or truncate flag), logs to its open files and
 *           its connected syslog socket (send, no address), and runs
 *           CMD_RECONFIGURE on the prepared configfds' fd numbers
 *           (sandbox.h).  No configfd_open or other configfd command,
 *           no mount API call, no new socket, no connect, no openat2
 *           (seccomp cannot see open_how's flags), no setns.
 *
 * Everything else fails with EPERM, so that a refused call is a clear
 * error rather than a dead hook; tgkill, which only abort() makes, kills
 * the process once abort() has written its message.
 *
 * A filter must refuse nothing the process itself needs, libc's own
 * calls included: EPERM on a call libc makes for itself is not a clear
 * error, libc swallows it (issue 47: glibc 2.36's first malloc asks
 * getrandom for its tcache key and, refused, falls back to
 * clock_gettime(CLOCK_MONOTONIC), a syscall when the clock source has
 * no vDSO, as on 6.1 under TCG; both were refused in the parser child).
 * tests/hook/filter_refuses_nothing_the_hook_needs.sh runs a real
 * container start under strace -f and fails on any EPERM or SIGSYS of
 * the hook's processes after their filters.  The policy:
 *
 *   call                        parser  hook    who needs it
 *   read, close, fstat          allow   allow   pipes, files opened before
 *   brk, mmap (no PROT_EXEC),   allow   allow   malloc, realloc, free
 *     munmap, mremap
 *   getrandom                   allow   allow   malloc's tcache key (first
 *                                               malloc, glibc >= 2.34)
 *   clock_gettime, gettimeofday allow   allow   the vDSO's fallbacks: malloc's
 *     time                                      key without getrandom; log
 *                                               time stamps (log.c)
 *   sysinfo                     allow   allow   qsort's buffer size
 *   rt_sigprocmask,             allow   allow   abort(), fortify failures
 *     rt_sigaction, getpid, gettid
 *   getuid, getgid              allow   allow   the self-test's report
 *   exit, exit_group            allow   allow
 *   tgkill                      KILL    KILL    only abort() (after its message)
 *   write                       fds 1,2 allow   reply pipe, stderr; hook: logs
 *   writev                      fd 2    allow   abort's message; hook: logs
 *   lseek, newfstatat, statx,   EPERM   allow   mountinfo, /proc, the stage check
 *     geteuid
 *   openat                      EPERM   no write/create/truncate flag
 *   sendto                      EPERM   no address (the connected syslog socket)
 *   configfd_action             EPERM   CMD_RECONFIGURE on the reserved fds
 *   everything else             EPERM   EPERM   (socket, connect, openat2,
 *                                               setns, mkdirat, the mount
 *                                               API, configfd_open, ptrace...)
 *   other ABIs (i386, x32)      KILL    KILL
 *
 * Not needed, so refused: rseq (registered at start, before the filter;
 * nothing unregisters it in a single-threaded process), madvise and
 * mprotect (only malloc's non-main arenas use them: no threads here).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "configfd.h"
#include "privsep.h"
#include "sandbox.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* Calls both filters allow with any arguments. */
static const int common_calls[] = {
	SCMP_SYS(read), SCMP_SYS(close), SCMP_SYS(fstat),
	/* malloc and realloc; mmap only without PROT_EXEC, below */
	SCMP_SYS(brk), SCMP_SYS(munmap), SCMP_SYS(mremap),
	/* glibc's qsort sizes its buffer by the memory size */
	SCMP_SYS(sysinfo),
	/*
	 * malloc's tcache key on the first malloc (glibc >= 2.34), which
	 * the parser child makes after its filter; refused, glibc falls
	 * back silently to a key from the clock.
	 */
	SCMP_SYS(getrandom),
	/*
	 * What the vDSO falls back to when the clock source has none (6.1
	 * under TCG): malloc's key without getrandom, log time stamps.
	 */
	SCMP_SYS(clock_gettime), SCMP_SYS(gettimeofday), SCMP_SYS(time),
	/* abort() and fortify failures: the message, then the signal */
	SCMP_SYS(rt_sigprocmask), SCMP_SYS(rt_sigaction), SCMP_SYS(getpid),
	SCMP_SYS(gettid),
	/* the self-test's report of who the process is */
	SCMP_SYS(getuid), SCMP_SYS(getgid),
	SCMP_SYS(exit_group), SCMP_SYS(exit),
};

static const int hook_calls[] = {
	SCMP_SYS(write), SCMP_SYS(writev), SCMP_SYS(lseek),
	SCMP_SYS(newfstatat), SCMP_SYS(statx),
	/* the stage check */
	SCMP_SYS(geteuid),
};

/* Every flag of openat(2) that writes, creates or truncates. */
#define OPEN_WRITE_FLAGS \
	(O_WRONLY | O_RDWR | O_CREAT | O_TRUNC | O_APPEND | (O_TMPFILE & ~O_DIRECTORY))

/*
 * Argument comparisons, spelled out: libseccomp's SCMP_A0() leaves a
 * field to the compiler's zeroing, which clang's warnings refuse.
 */
static struct scmp_arg_cmp arg_equals(unsigned int arg, scmp_datum_t value)
{
	return (struct scmp_arg_cmp){ arg, SCMP_CMP_EQ, value, 0 };
}

/* (argument & mask) == 0 */
static struct scmp_arg_cmp arg_has_none_of(unsigned int arg, scmp_datum_t mask)
{
	return (struct scmp_arg_cmp){ arg, SCMP_CMP_MASKED_EQ, mask, 0 };
}

static void check(int ret, const char *what)
{
	if (ret < 0) {
		fprintf(stderr, "seccomp-gen: %s: %s\n", what, strerror(-ret));
		exit(1);
	}
}

static void allow_all(scmp_filter_ctx ctx, const int *calls, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		check(seccomp_rule_add(ctx, SCMP_ACT_ALLOW, calls[i], 0),
		      "allowing a syscall");
}

/* Rules both filters share. */
static void add_common(scmp_filter_ctx ctx)
{
	allow_all(ctx, common_calls, ARRAY_SIZE(common_calls));
	/* No executable memory: nothing the hook does needs it. */
	check(seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(mmap), 1,
			       arg_has_none_of(2, PROT_EXEC)), "mmap");
	/*
	 * Only abort() signals: it has written its message by then, and
	 * a tgkill that may reach another process is never needed.
	 */
	check(seccomp_rule_add(ctx, SCMP_ACT_KILL_PROCESS, SCMP_SYS(tgkill), 0),
	      "tgkill");
}

static void add_parser(scmp_filter_ctx ctx)
{
	add_common(ctx);
	/* Its reply and stderr (abort's message); nothing else is open. */
	check(seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(write), 1,
			       arg_equals(0, PARSER_REPLY_FD)), "write");
	check(seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(write), 1,
			       arg_equals(0, STDERR_FILENO)), "write");
	check(seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(writev), 1,
			       arg_equals(0, STDERR_FILENO)), "writev");
}

/*
 * The shifts the hook prepared, and nothing else: CMD_RECONFIGURE on the
 * prepared configfds' numbers.  Every other command (a flag, an owner,
 * another pathfd, CMD_CREATE, GET_FD) and configfd_open are refused, so
 * that code running in the confined hook cannot mark, unmark or relax a
 * mount with real root's power.
 */
static void add_prepared_shifts(scmp_filter_ctx ctx)
{
	int i;

	for (i = 0; i < SANDBOX_CONFIGFD_COUNT; i++)
		check(seccomp_rule_add(ctx, SCMP_ACT_ALLOW, __NR_configfd_action, 2,
				       arg_equals(0, (scmp_datum_t)(SANDBOX_CONFIGFD_FIRST + i)),
				       arg_equals(1, CONFIGFD_CMD_RECONFIGURE)),
		      "configfd_action");
}

static void add_hook(scmp_filter_ctx ctx)
{
	add_common(ctx);
	allow_all(ctx, hook_calls, ARRAY_SIZE(hook_calls));
	check(seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(openat), 1,
			       arg_has_none_of(2, OPEN_WRITE_FLAGS)),
	      "openat");
	/* Log lines on the syslog socket connected before: no address. */
	check(seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(sendto), 1,
			       arg_equals(4, 0)), "sendto");
	add_prepared_shifts(ctx);
}

/* The exported program, as `static const struct sock_filter name[]`. */
static void print_filter(const char *name, void (*add)(scmp_filter_ctx))
{
	scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ERRNO(EPERM));
	struct sock_filter insn;
	FILE *tmp = tmpfile();
	size_t count = 0;

	if (!ctx || !tmp) {
		fprintf(stderr, "seccomp-gen: %s: out of memory or no temporary file\n",
			name);
		exit(1);
	}
	check(seccomp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_KILL_PROCESS),
	      "bad-architecture action");
	add(ctx);
	check(seccomp_export_bpf(ctx, fileno(tmp)), "seccomp_export_bpf");
	seccomp_release(ctx);
	rewind(tmp);
	printf("static const struct sock_filter %s[] = {\n", name);
	/* In this machine's byte order, which is the hook's. */
	while (fread(&insn, sizeof(insn), 1, tmp) == 1) {
		printf("\t{ 0x%04x, %u, %u, 0x%08x },\n", insn.code, insn.jt,
		       insn.jf, insn.k);
		count++;
	}
	printf("};\n\n");
	fclose(tmp);
	if (count == 0) {
		fprintf(stderr, "seccomp-gen: %s: empty program\n", name);
		exit(1);
	}
}

int main(void)
{
	printf("/* Generated by oci-hook/tools/seccomp-gen.c with libseccomp %u.%u.%u: do not edit. */\n\n",
	       seccomp_version()->major, seccomp_version()->minor,
	       seccomp_version()->micro);
	print_filter("parser_filter", add_parser);
	print_filter("hook_filter", add_hook);
	if (fflush(stdout) != 0) {
		perror("seccomp-gen: writing the filters");
		return 1;
	}
	return 0;
}
