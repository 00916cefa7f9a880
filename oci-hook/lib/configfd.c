// SPDX-License-Identifier: GPL-2.0
/*
 * configfd.c: user-space wrappers for the configfd syscalls.
 *
 * See configfd.h for the API and the kernel series' configfd
 * documentation for the contract of the syscalls themselves.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "configfd.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/*
 * The values are ABI: whether they came from <linux/configfd.h> or from
 * our fallback in configfd.h, they must be the kernel's.
 */
_Static_assert(CONFIGFD_SET_FLAG == 0 && CONFIGFD_SET_STRING == 1 &&
	       CONFIGFD_SET_BINARY == 2 && CONFIGFD_SET_PATH == 3 &&
	       CONFIGFD_SET_PATH_EMPTY == 4 && CONFIGFD_SET_FD == 5 &&
	       CONFIGFD_CMD_CREATE == 6 && CONFIGFD_CMD_RECONFIGURE == 7 &&
	       CONFIGFD_SET_INT == 38 && CONFIGFD_GET_FD == 39,
	       "enum configfd_cmd differs from the kernel's");
_Static_assert(CONFIGFD_KEY_MAX == 256 && CONFIGFD_BINARY_MAX == (1 << 20),
	       "configfd limits differ from the kernel's");

/*
 * So are the syscall numbers, when <sys/syscall.h> has them: headers
 * installed from a build of the series older than 500/501 (it used 451
 * and 452) must not override the fallback in configfd.h unnoticed.
 */
#if defined(__NR_configfd_open) && defined(__NR_configfd_action)
# ifdef __X32_SYSCALL_BIT
#  define CONFIGFD_NR(nr)	((nr) & ~__X32_SYSCALL_BIT)
# else
#  define CONFIGFD_NR(nr)	(nr)
# endif
_Static_assert(CONFIGFD_NR(__NR_configfd_open) == 500 &&
	       CONFIGFD_NR(__NR_configfd_action) == 501,
	       "configfd syscall numbers differ from the kernel's (500/501)");
#endif

/*
 * syscall(2) reads its arguments as longs: widen them here rather than
 * pass ints through varargs with unspecified upper bits.
 */
int sys_configfd_open(const char *name, unsigned int flags, unsigned int op)
{
#ifdef __NR_configfd_open
	return (int)syscall(__NR_configfd_open, name, (unsigned long)flags,
			    (unsigned long)op);
#else
	(void)name;
	(void)flags;
	(void)op;
	errno = ENOSYS;
	return -1;
#endif
}

int sys_configfd_action(int fd, unsigned int cmd, const char *key,
			void *value, int aux)
{
#ifdef __NR_configfd_action
	return (int)syscall(__NR_configfd_action, (long)fd, (unsigned long)cmd,
			    key, value, (long)aux);
#else
	(void)fd;
	(void)cmd;
	(void)key;
	(void)value;
	(void)aux;
	errno = ENOSYS;
	return -1;
#endif
}

/* What readlink() shows for the fd configfd_open() returns. */
#define CONFIGFD_LINK	"anon_inode:[configfd]"

/*
 * configfd_open() failed with err.  Only running out of fds or memory
 * says nothing about the kernel: report those.  Anything else means no
 * usable configfd: ENOSYS (no syscall 500: on Linux 6.1, 6.12 and
 * mainline without the series the number is unallocated), the errors of
 * whatever else 500 is on a kernel built with other out-of-tree patches,
 * ENODEV (no "bind" type, which a configfd kernel of this series always
 * has), or EPERM from a seccomp filter that does not know the syscall.
 */
static int probe_open_error(int err)
{
	switch (err) {
	case EMFILE:
	case ENFILE:
	case ENOMEM:
		return -err;
	default:
		return CONFIGFD_MISSING;
	}
}

/*
 * Syscall 500 returned fd >= 0.  It is a configfd only if /proc says so:
 * kernels without the series have no syscall 500 (ENOSYS, above), but
 * one built with other out-of-tree patches may give the number to a
 * call of its own.
 *
 * Otherwise the number is not ours to close: that call may return 0 on
 * success, and fd 0 is stdin.  Closing it "just in case" would break an
 * unrelated part of the program, so a non-configfd fd is left alone; at
 * worst some unknown syscall's new fd leaks, which is the lesser harm.
 * For the same reason, when the fd is open but cannot be identified
 * (/proc not mounted...) we report the error and close nothing.
 */
static int probe_check_fd(int fd)
{
	char path[sizeof("/proc/self/fd/-2147483648")];
	char link[sizeof(CONFIGFD_LINK) + 1];	/* room to see a longer name */
	ssize_t n;

	if (fcntl(fd, F_GETFD) < 0)
		return errno == EBADF ? CONFIGFD_MISSING : -errno;

	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	n = readlink(path, link, sizeof(link));
	if (n < 0)
		return -errno;
	if ((size_t)n != strlen(CONFIGFD_LINK) ||
	    memcmp(link, CONFIGFD_LINK, (size_t)n) != 0)
		return CONFIGFD_MISSING;

	close(fd);
	return CONFIGFD_SUPPORTED;
}

int configfd_probe(void)
{
	int fd = sys_configfd_open("bind", O_CLOEXEC, CONFIGFD_CMD_CREATE);

	if (fd < 0)
		return probe_open_error(errno);
	return probe_check_fd(fd);
}

/*
 * Log messages are short, but one may quote a path (up to PATH_MAX) and
 * the kernel refuses a short read with EMSGSIZE rather than truncate it,
 * so the read buffer grows on demand up to a bound.
 */
#define LOG_MSG_MIN	1024
#define LOG_MSG_MAX	(64 * 1024)

static int log_grow(char **msg, size_t *cap)
{
	char *bigger = realloc(*msg, *cap * 2);

	if (!bigger)
		return -ENOMEM;
	*msg = bigger;
	*cap *= 2;
	return 0;
}

/* Read one message: its length, 0 once the log is empty, or -errno. */
static ssize_t log_read_one(int fd, char **msg, size_t *cap)
{
	for (;;) {
		ssize_t n = read(fd, *msg, *cap);
		int err;

		if (n >= 0)
			return n;	/* 0: EOF on a non-configfd, e.g. /dev/null */
		if (errno == EINTR)
			continue;
		if (errno == ENODATA)
			return 0;
		if (errno != EMSGSIZE || *cap >= LOG_MSG_MAX)
			return -errno;
		err = log_grow(msg, cap);
		if (err)
			return err;
	}
}

/*
 * Append n bytes of msg to the len bytes already in buf, keeping room
 * for the NUL; what does not fit is dropped.  Returns the new length.
 */
static size_t log_append(char *buf, size_t size, size_t len, const char *msg,
			 size_t n)
{
	size_t room;

	if (size == 0)
		return 0;
	room = size - 1 - len;
	if (n > room)
		n = room;
	memcpy(buf + len, msg, n);
	len += n;
	buf[len] = '\0';
	return len;
}

int configfd_read_log(int fd, char *buf, size_t size)
{
	size_t cap = LOG_MSG_MIN, len = 0;
	char *msg;
	ssize_t n;
	int count = 0;

	if (size)
		buf[0] = '\0';
	msg = malloc(cap);
	if (!msg)
		return -ENOMEM;
	while ((n = log_read_one(fd, &msg, &cap)) > 0) {
		len = log_append(buf, size, len, msg, (size_t)n);
		count++;
	}
	free(msg);
	return n < 0 ? (int)n : count;
}

static const char *const cmd_names[] = {
	[CONFIGFD_SET_FLAG]		= "SET_FLAG",
	[CONFIGFD_SET_STRING]		= "SET_STRING",
	[CONFIGFD_SET_BINARY]		= "SET_BINARY",
	[CONFIGFD_SET_PATH]		= "SET_PATH",
	[CONFIGFD_SET_PATH_EMPTY]	= "SET_PATH_EMPTY",
	[CONFIGFD_SET_FD]		= "SET_FD",
	[CONFIGFD_CMD_CREATE]		= "CMD_CREATE",
	[CONFIGFD_CMD_RECONFIGURE]	= "CMD_RECONFIGURE",
	[CONFIGFD_SET_INT]		= "SET_INT",
	[CONFIGFD_GET_FD]		= "GET_FD",
};

const char *configfd_cmd_name(unsigned int cmd)
{
	/* The reserved gap 8..37 holds NULLs. */
	if (cmd < ARRAY_SIZE(cmd_names) && cmd_names[cmd])
		return cmd_names[cmd];
	return "unknown";
}
