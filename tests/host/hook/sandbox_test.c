// SPDX-License-Identifier: GPL-2.0
/*
 * hook-sandbox-test: the hook's seccomp filter (oci-hook/src/hook/sandbox.c)
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
#include <time.h>
#include <linux/openat2.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/random.h>
#include <sys/time.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <sys/sysinfo.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common.h"
#include "configfd.h"
#include "privsep.h"
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

#define NO_SUCH_PATH "/nonexistent-shiftbind-seccomp-test/f"

static long try_mkdirat(void)
{
	return syscall(__NR_mkdirat, AT_FDCWD, NO_SUCH_PATH, 0700);
}

static long try_getpid(void)
{
	return syscall(__NR_getpid);
}

static long try_read(void)
{
	char c;

	return read(-1, &c, 1);
}

/* Zero bytes: reaches the kernel without writing anything. */
static long try_write_reply(void)
{
	return write(PARSER_REPLY_FD, "", 0);
}

static long try_write_other_fd(void)
{
	return write(5, "", 0);
}

static long try_open(int flags)
{
	return syscall(__NR_openat, AT_FDCWD,
		       flags & (O_CREAT | O_TMPFILE) ? "/tmp" : "/proc/self/status",
		       flags | O_CLOEXEC, 0600);
}

static long try_open_rdonly(void) { return try_open(O_RDONLY); }
static long try_open_path(void) { return try_open(O_PATH); }
static long try_open_wronly(void) { return try_open(O_WRONLY); }
static long try_open_rdwr(void) { return try_open(O_RDWR); }
static long try_open_creat(void) { return try_open(O_RDONLY | O_CREAT); }
static long try_open_trunc(void) { return try_open(O_RDONLY | O_TRUNC); }
static long try_open_append(void) { return try_open(O_RDONLY | O_APPEND); }
static long try_open_tmpfile(void) { return try_open(O_TMPFILE | O_RDWR); }

/* The flags the filter cannot see, behind a pointer. */
static long try_openat2(void)
{
	struct open_how how = { .flags = O_RDONLY | O_CLOEXEC };

	return syscall(__NR_openat2, AT_FDCWD, "/proc/self/status", &how, sizeof(how));
}

static long try_socket_unix(void)
{
	return syscall(__NR_socket, AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
}

static long try_socket_inet(void)
{
	return syscall(__NR_socket, AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
}

static long try_connect(void)
{
	return syscall(__NR_connect, -1, NULL, 0);
}

/* A log line on the syslog socket connected before the filter. */
static long try_sendto(void)
{
	return syscall(__NR_sendto, -1, "", 0, 0, NULL, 0);
}

/* A datagram to an address of the caller's choosing. */
static long try_sendto_address(void)
{
	static const struct sockaddr_un addr = { AF_UNIX, "/dev/log" };

	return syscall(__NR_sendto, -1, "", 0, 0, &addr, sizeof(addr));
}

static long try_setns_mnt(void)
{
	return syscall(__NR_setns, -1, (unsigned long)CLONE_NEWNS);
}

static long try_ptrace(void)
{
	return syscall(__NR_ptrace, PTRACE_ATTACH, 1, NULL, NULL);
}

static long try_mmap(int prot)
{
	void *p = mmap(NULL, 4096, prot, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? -1 : 0;
}

static long try_mmap_rw(void) { return try_mmap(PROT_READ | PROT_WRITE); }
static long try_mmap_exec(void) { return try_mmap(PROT_READ | PROT_EXEC); }

static long try_sysinfo(void)
{
	struct sysinfo info;

	return syscall(__NR_sysinfo, &info);
}

/* libc's own calls (issue 47): malloc's tcache key, the vDSO's fallbacks. */
static long try_getrandom(void)
{
	unsigned char key[8];

	return syscall(__NR_getrandom, key, sizeof(key), GRND_NONBLOCK);
}

static long try_clock_gettime_monotonic(void)
{
	struct timespec ts;

	return syscall(__NR_clock_gettime, CLOCK_MONOTONIC, &ts);
}

static long try_gettimeofday(void)
{
	struct timeval tv;

	return syscall(__NR_gettimeofday, &tv, NULL);
}

static long try_time(void)
{
	return syscall(__NR_time, NULL);
}

/* Signal 0 to this thread: the call abort() makes, harmless here. */
static long try_tgkill_self(void)
{
	return syscall(__NR_tgkill, getpid(), gettid(), 0);
}

static long try_configfd_open(void)
{
	return syscall(__NR_configfd_open, "bind", 0UL, 0UL);
}

/*
 * configfd_action(fd, cmd) on fds that are not open: whatever gets
 * through the filter ends in EBADF (or ENOSYS, EINVAL without configfd).
 */
static long configfd_cmd(int fd, unsigned int cmd)
{
	return syscall(__NR_configfd_action, fd, cmd, NULL, NULL, 0);
}

static long try_reconfigure_first_slot(void)
{
	return configfd_cmd(SANDBOX_CONFIGFD_FIRST, CONFIGFD_CMD_RECONFIGURE);
}

static long try_reconfigure_last_slot(void)
{
	return configfd_cmd(SANDBOX_CONFIGFD_FIRST + SANDBOX_CONFIGFD_COUNT - 1,
			    CONFIGFD_CMD_RECONFIGURE);
}

static long try_reconfigure_past_slots(void)
{
	return configfd_cmd(SANDBOX_CONFIGFD_FIRST + SANDBOX_CONFIGFD_COUNT,
			    CONFIGFD_CMD_RECONFIGURE);
}

static long try_reconfigure_low_fd(void)
{
	return configfd_cmd(3, CONFIGFD_CMD_RECONFIGURE);
}

static long try_create_slot(void)
{
	return configfd_cmd(SANDBOX_CONFIGFD_FIRST, CONFIGFD_CMD_CREATE);
}

static long try_set_flag_slot(void)
{
	return syscall(__NR_configfd_action, SANDBOX_CONFIGFD_FIRST, CONFIGFD_SET_FLAG,
		       "allow-shift", NULL, 0);
}

static long try_set_string_slot(void)
{
	return syscall(__NR_configfd_action, SANDBOX_CONFIGFD_FIRST, CONFIGFD_SET_STRING,
		       "owner", "65534", 0);
}

static long try_set_fd_slot(void)
{
	return syscall(__NR_configfd_action, SANDBOX_CONFIGFD_FIRST, CONFIGFD_SET_FD,
		       "pathfd", NULL, 0);
}

/* The mount API, each on no fd (EBADF, ENODEV when let through). */
static long try_mount_setattr(void)
{
	return syscall(__NR_mount_setattr, -1, "", AT_EMPTY_PATH, NULL, 0);
}

static long try_open_tree(void)
{
	return syscall(__NR_open_tree, -1, "", AT_EMPTY_PATH);
}

static long try_move_mount(void)
{
	return syscall(__NR_move_mount, -1, "", -1, "", 0);
}

static long try_fsopen(void)
{
	return syscall(__NR_fsopen, "nonexistent-shiftbind-fs", 0);
}

static long try_fsconfig(void)
{
	return syscall(__NR_fsconfig, -1, 0, NULL, NULL, 0);
}

static long try_fsmount(void)
{
	return syscall(__NR_fsmount, -1, 0, 0);
}

static long try_fspick(void)
{
	return syscall(__NR_fspick, -1, "", 0);
}

static long try_mount(void)
{
	return syscall(__NR_mount, NULL, "/nonexistent-shiftbind-seccomp-test", NULL,
		       MS_REMOUNT | MS_BIND, NULL);
}

static long try_umount(void)
{
	return syscall(__NR_umount2, "/nonexistent-shiftbind-seccomp-test", 0);
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

#define P SANDBOX_PARSER
#define H SANDBOX_HOOK

static const struct filter_case {
	const char *what;
	enum sandbox_kind filter;
	long (*call)(void);
	int expect;		/* enum filter_outcome, or EXPECT_KILLED_IF_I386 */
} cases[] = {
	/* The parser child: its pipes, memory, exit; nothing else. */
	{ "read", P, try_read, REACHES_KERNEL },
	{ "write to the reply pipe", P, try_write_reply, REACHES_KERNEL },
	{ "write to another fd", P, try_write_other_fd, REFUSED },
	{ "sysinfo (glibc's qsort)", P, try_sysinfo, REACHES_KERNEL },
	{ "getrandom (malloc's tcache key)", P, try_getrandom, REACHES_KERNEL },
	{ "clock_gettime(CLOCK_MONOTONIC) syscall (no vDSO)", P, try_clock_gettime_monotonic, REACHES_KERNEL },
	{ "gettimeofday syscall (no vDSO)", P, try_gettimeofday, REACHES_KERNEL },
	{ "time syscall (no vDSO)", P, try_time, REACHES_KERNEL },
	{ "mmap read-write", P, try_mmap_rw, REACHES_KERNEL },
	{ "mmap executable", P, try_mmap_exec, REFUSED },
	{ "open for reading", P, try_open_rdonly, REFUSED },
	{ "open O_PATH", P, try_open_path, REFUSED },
	{ "open for writing", P, try_open_wronly, REFUSED },
	{ "open with O_CREAT", P, try_open_creat, REFUSED },
	{ "openat2", P, try_openat2, REFUSED },
	{ "socket(AF_UNIX)", P, try_socket_unix, REFUSED },
	{ "socket(AF_INET)", P, try_socket_inet, REFUSED },
	{ "connect", P, try_connect, REFUSED },
	{ "sendto", P, try_sendto, REFUSED },
	{ "mkdirat", P, try_mkdirat, REFUSED },
	{ "setns", P, try_setns_mnt, REFUSED },
	{ "ptrace", P, try_ptrace, REFUSED },
	{ "configfd_open", P, try_configfd_open, REFUSED },
	{ "tgkill (only abort() sends a signal)", P, try_tgkill_self, KILLED },
	{ "getpid by the i386 ABI", P, try_i386_getpid, EXPECT_KILLED_IF_I386 },
	{ "getpid by the x32 ABI", P, try_x32_getpid, KILLED },

	/* The hook once confined: read-only opens, its fds, configfd. */
	{ "getpid", H, try_getpid, REACHES_KERNEL },
	{ "open for reading", H, try_open_rdonly, REACHES_KERNEL },
	{ "open O_PATH", H, try_open_path, REACHES_KERNEL },
	{ "open O_WRONLY", H, try_open_wronly, REFUSED },
	{ "open O_RDWR", H, try_open_rdwr, REFUSED },
	{ "open O_CREAT", H, try_open_creat, REFUSED },
	{ "open O_TRUNC", H, try_open_trunc, REFUSED },
	{ "open O_APPEND", H, try_open_append, REFUSED },
	{ "open O_TMPFILE", H, try_open_tmpfile, REFUSED },
	{ "openat2, whatever its flags", H, try_openat2, REFUSED },
	{ "mkdirat", H, try_mkdirat, REFUSED },
	{ "socket(AF_UNIX)", H, try_socket_unix, REFUSED },
	{ "socket(AF_INET)", H, try_socket_inet, REFUSED },
	{ "connect", H, try_connect, REFUSED },
	{ "sendto without an address (syslog)", H, try_sendto, REACHES_KERNEL },
	{ "sendto an address", H, try_sendto_address, REFUSED },
	{ "setns", H, try_setns_mnt, REFUSED },
	{ "ptrace", H, try_ptrace, REFUSED },
	{ "mmap executable", H, try_mmap_exec, REFUSED },
	{ "sysinfo (glibc's qsort)", H, try_sysinfo, REACHES_KERNEL },
	{ "getrandom (malloc's tcache key)", H, try_getrandom, REACHES_KERNEL },
	{ "clock_gettime(CLOCK_MONOTONIC) syscall (no vDSO)", H, try_clock_gettime_monotonic, REACHES_KERNEL },
	{ "gettimeofday syscall (no vDSO)", H, try_gettimeofday, REACHES_KERNEL },
	{ "time syscall (no vDSO)", H, try_time, REACHES_KERNEL },
	/* Only the prepared shifts: CMD_RECONFIGURE on the reserved fds. */
	{ "configfd_open", H, try_configfd_open, REFUSED },
	{ "configfd CMD_RECONFIGURE, first reserved fd", H, try_reconfigure_first_slot, REACHES_KERNEL },
	{ "configfd CMD_RECONFIGURE, last reserved fd", H, try_reconfigure_last_slot, REACHES_KERNEL },
	{ "configfd CMD_RECONFIGURE, fd past the reserved ones", H, try_reconfigure_past_slots, REFUSED },
	{ "configfd CMD_RECONFIGURE, fd 3", H, try_reconfigure_low_fd, REFUSED },
	{ "configfd CMD_CREATE, reserved fd", H, try_create_slot, REFUSED },
	{ "configfd SET_FLAG allow-shift, reserved fd", H, try_set_flag_slot, REFUSED },
	{ "configfd SET_STRING owner, reserved fd", H, try_set_string_slot, REFUSED },
	{ "configfd SET_FD pathfd, reserved fd", H, try_set_fd_slot, REFUSED },
	{ "mount_setattr", H, try_mount_setattr, REFUSED },
	{ "open_tree", H, try_open_tree, REFUSED },
	{ "move_mount", H, try_move_mount, REFUSED },
	{ "fsopen", H, try_fsopen, REFUSED },
	{ "fsconfig", H, try_fsconfig, REFUSED },
	{ "fsmount", H, try_fsmount, REFUSED },
	{ "fspick", H, try_fspick, REFUSED },
	{ "mount", H, try_mount, REFUSED },
	{ "umount2", H, try_umount, REFUSED },
	{ "tgkill (only abort() sends a signal)", H, try_tgkill_self, KILLED },
	{ "getpid by the i386 ABI", H, try_i386_getpid, EXPECT_KILLED_IF_I386 },
	{ "getpid by the x32 ABI", H, try_x32_getpid, KILLED },
};

static const char *const filter_names[] = {
	[SANDBOX_PARSER] = "parser",
	[SANDBOX_HOOK] = "hook",
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

	/* The parser child may write only its reply pipe (and stderr). */
	if (c->filter == SANDBOX_PARSER) {
		if (dup2(out, PARSER_REPLY_FD) < 0)
			_exit(1);
		out = PARSER_REPLY_FD;
	}
	if (filtered && sandbox_install(c->filter, &e) < 0) {
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

/*
 * abort() under either filter: its message is written, then its
 * tgkill ends the process (SIGSYS).  Without writev the message was
 * lost; without the kill rule abort() would fall through to a SIGSEGV.
 */
static void check_abort(enum sandbox_kind kind)
{
	static const char words[] = "*** last words ***\n";
	const struct iovec last_words = { (void *)words, sizeof(words) - 1 };
	struct error e = { 0, "" };
	char buf[256] = "";
	int status, pipefd[2];
	ssize_t n;
	pid_t pid;

	if (pipe2(pipefd, O_CLOEXEC) < 0)
		die("pipe2");
	fflush(stdout);
	pid = fork();
	if (pid < 0)
		die("fork");
	if (pid == 0) {
		if (dup2(pipefd[1], STDERR_FILENO) < 0 || sandbox_install(kind, &e) < 0)
			_exit(1);
		/* How glibc's fortify and assert failures print (writev). */
		if (writev(STDERR_FILENO, &last_words, 1) < 0)
			_exit(1);
		abort();
	}
	close(pipefd[1]);
	n = read(pipefd[0], buf, sizeof(buf) - 1);
	close(pipefd[0]);
	if (waitpid(pid, &status, 0) != pid)
		die("waitpid");
	ok(WIFSIGNALED(status) && WTERMSIG(status) == SIGSYS && n > 0 &&
	   strstr(buf, "last words"),
	   "%s filter: abort() writes its message and ends in SIGSYS (status %#x)",
	   filter_names[kind], status);
}

int main(void)
{
	size_t i;

	setvbuf(stdout, NULL, _IOLBF, 0);
	/* A check per case, and abort() under each of the two filters. */
	tap_plan((int)ARRAY_SIZE(cases) + 2);
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		const struct filter_case *c = &cases[i];
		enum filter_outcome expect = expected_outcome(c);
		int err = 0;
		enum filter_outcome got = run_case(c, true, &err);

		ok(got == expect, "%s filter: %s: %s (got: %s, errno %d)",
		   filter_names[c->filter], c->what, outcome_names[expect],
		   outcome_names[got], err);
	}
	check_abort(SANDBOX_PARSER);
	check_abort(SANDBOX_HOOK);
	return tap_done();
}
