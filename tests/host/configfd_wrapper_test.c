// SPDX-License-Identifier: GPL-2.0
/*
 * configfd_wrapper_test: the configfd wrappers on a host kernel, which
 * has no configfd (syscall 500 is unallocated there).  Prints TAP and
 * exits 1 if any check failed.
 *
 * The log is exercised on a SOCK_SEQPACKET socketpair: like a configfd
 * (and unlike a pipe) it returns one message per read(2).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "configfd.h"
#include "tap.h"

static int count_fds(void)
{
	DIR *dir = opendir("/proc/self/fd");
	struct dirent *d;
	int n = 0;

	if (!dir)
		return -1;
	while ((d = readdir(dir)))
		if (d->d_name[0] != '.')
			n++;
	closedir(dir);
	return n;
}

static void test_probe(void)
{
	int before = count_fds();
	int first = configfd_probe();
	int second = configfd_probe();
	int after = count_fds();

	ok(first == CONFIGFD_MISSING, "probe says MISSING (got %d)", first);
	ok(second == first, "probe answers the same twice (got %d)", second);
	ok(before > 0 && after == before, "probe leaves %d fds open, had %d",
	   after, before);
}

static void test_cmd_name(void)
{
	ok(!strcmp(configfd_cmd_name(CONFIGFD_GET_FD), "GET_FD"), "GET_FD name");
	ok(!strcmp(configfd_cmd_name(CONFIGFD_SET_FLAG), "SET_FLAG"), "SET_FLAG name");
	ok(!strcmp(configfd_cmd_name(CONFIGFD_SET_INT), "SET_INT"), "SET_INT name");
	ok(!strcmp(configfd_cmd_name(8), "unknown"), "reserved 8 is unknown");
	ok(!strcmp(configfd_cmd_name(37), "unknown"), "reserved 37 is unknown");
	ok(!strcmp(configfd_cmd_name(40), "unknown"), "40 is unknown");
	ok(!strcmp(configfd_cmd_name(UINT_MAX), "unknown"), "UINT_MAX is unknown");
}

/* A log fd holding msgs, one message each, then EOF. */
static int seqpacket_log(const char *const *msgs, int n)
{
	int sv[2], i;

	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0)
		return -1;
	for (i = 0; i < n; i++)
		if (write(sv[1], msgs[i], strlen(msgs[i])) < 0)
			break;
	close(sv[1]);
	return sv[0];
}

/* s with newlines shown as \\n, so that TAP stays one line per check. */
static const char *visible(const char *s)
{
	static char out[128];
	size_t i = 0;

	for (; *s && i + 3 < sizeof(out); s++) {
		if (*s == '\n') {
			out[i++] = '\\';
			out[i++] = 'n';
		} else {
			out[i++] = *s;
		}
	}
	out[i] = '\0';
	return out;
}

static const char *const two_msgs[] = { "e bind: one\n", "w bind: two\n" };

/* Drain two_msgs into a buffer of size bytes; check count and text. */
static void check_log(size_t size, const char *want)
{
	char buf[64];
	int fd = seqpacket_log(two_msgs, 2);
	int n = configfd_read_log(fd, size ? buf : NULL, size);

	ok(n == 2, "size %zu: 2 messages (got %d)", size, n);
	if (size)
		ok(!strcmp(buf, want), "size %zu: text '%s'", size, visible(buf));
	close(fd);
}

static void test_read_log(void)
{
	char buf[16] = "junk";
	int fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	int n = configfd_read_log(fd, buf, sizeof(buf));

	ok(n == 0 && buf[0] == '\0', "/dev/null: 0 messages (got %d)", n);
	close(fd);

	n = configfd_read_log(-1, buf, sizeof(buf));
	ok(n == -EBADF, "bad fd: -EBADF (got %d)", n);

	check_log(64, "e bind: one\nw bind: two\n");
	check_log(25, "e bind: one\nw bind: two\n");	/* exact fit */
	check_log(24, "e bind: one\nw bind: two");
	check_log(16, "e bind: one\nw b");
	check_log(12, "e bind: one");
	check_log(1, "");
	check_log(0, NULL);
}

int main(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	test_probe();
	test_cmd_name();
	test_read_log();
	return tap_done();
}
