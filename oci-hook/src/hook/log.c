// SPDX-License-Identifier: GPL-2.0
/* log.c: see log.h. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "common.h"
#include "fileio.h"
#include "log.h"

#define LOG_LINE_MAX 4096

#define SYSLOG_PATH "/dev/log"

static struct {
	const char *ident;
	unsigned int sinks;
	int file_fd;
	int syslog_fd;		/* connected to SYSLOG_PATH, or -1 */
	int syslog_type;	/* SOCK_DGRAM, or SOCK_STREAM as some daemons listen */
	bool syslog_failed;	/* said once on the other sinks */
	char context[512];
} log_state = { "shiftbind", LOG_SINK_STDERR, -1, -1, SOCK_DGRAM, false, "" };

/*
 * The default file is real root's: a rootless hook (an unprivileged user,
 * or the root of a container's user namespace, who sees /run/shiftbind
 * owned by nobody) cannot write there and logs to syslog and stderr only,
 * instead of complaining about the file at every container start.
 */
static const char *log_file_path(void)
{
	const char *path = getenv(LOG_FILE_ENV);
	struct stat st;

	if (path && *path)
		return path;
	if (stat(LOG_DIR_DEFAULT, &st) == 0 && S_ISDIR(st.st_mode) &&
	    faccessat(AT_FDCWD, LOG_DIR_DEFAULT, W_OK, AT_EACCESS) == 0)
		return LOG_FILE_DEFAULT;
	return NULL;
}

/* A log file that cannot be opened costs the file, not the container. */
static void open_log_file(void)
{
	const char *path = log_file_path();

	if (!path)
		return;
	log_state.file_fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC |
				 O_NOFOLLOW | O_NOCTTY, 0640);
	if (log_state.file_fd < 0)
		dprintf(STDERR_FILENO, "%s: log file `%s`: %s\n", log_state.ident,
			path, strerror(errno));
}

static void to_file(int priority, const char *sep, const char *msg);

/*
 * A line syslog did not take is on the other sinks anyway; the first
 * failure says so there, unless no syslog daemon listens here at all
 * (ENOENT, ECONNREFUSED at connect: nothing lost that anyone could read).
 */
static void syslog_failed(const char *call, int err)
{
	char note[256];

	if (log_state.syslog_failed)
		return;
	log_state.syslog_failed = true;
	snprintf(note, sizeof(note),
		 "syslog: %s `%s`: %s; this and later lines are only on stderr and in the log file",
		 call, SYSLOG_PATH, strerror(err));
	dprintf(STDERR_FILENO, "%s: %s\n", log_state.ident, note);
	if ((log_state.sinks & LOG_SINK_FILE) && log_state.file_fd >= 0)
		to_file(LOG_WARNING, "", note);
}

/*
 * The hook's syslog socket, connected while the hook may still make
 * one: its seccomp filter refuses socket() and connect() (sandbox.h),
 * and glibc's syslog(3) makes a new socket whenever it is not
 * connected, so under the filter it silently lost every line.  Tried
 * with a datagram socket first, then a stream one if /dev/log is that.
 */
static void syslog_connect(void)
{
	static const struct sockaddr_un addr = { AF_UNIX, SYSLOG_PATH };
	int type = SOCK_DGRAM, fd;

	for (;;) {
		fd = socket(AF_UNIX, type | SOCK_CLOEXEC, 0);
		if (fd < 0) {
			syslog_failed("socket for", errno);
			return;
		}
		if (connect(fd, (const struct sockaddr *)&addr, sizeof(addr)) == 0)
			break;
		closep(&fd);
		if (errno != EPROTOTYPE || type == SOCK_STREAM) {
			if (errno != ENOENT && errno != ECONNREFUSED)
				syslog_failed("connect to", errno);
			return;
		}
		type = SOCK_STREAM;
	}
	log_state.syslog_fd = fd;
	log_state.syslog_type = type;
	/*
	 * Syslog's stamps are in the local zone: read it now, in the host's
	 * mount namespace and before the filter, and only when a daemon
	 * listens (reading and parsing /etc/localtime at every start was a
	 * measurable part of the hook's time under TCG, docs/benchmarks.md).
	 */
	tzset();
}

void log_connect(void)
{
	if ((log_state.sinks & LOG_SINK_SYSLOG) && log_state.syslog_fd < 0)
		syslog_connect();
}

void log_open(const char *ident, unsigned int sinks)
{
	log_state.ident = ident;
	log_state.sinks = sinks;
	if (sinks & LOG_SINK_FILE)
		open_log_file();
	log_connect();
}

void log_close(void)
{
	closep(&log_state.syslog_fd);
	closep(&log_state.file_fd);
}

/* Untrusted text must not start a new line or send terminal escapes. */
static void escape_controls(const char *in, char *out, size_t size)
{
	size_t len = 0;

	for (; *in && len + 5 < size; in++) {
		unsigned char c = (unsigned char)*in;

		if (c < 0x20 || c == 0x7f)
			len += (size_t)snprintf(out + len, size - len, "\\x%02x", c);
		else
			out[len++] = (char)c;
	}
	out[len] = '\0';
}

void log_set_context(const char *fmt, ...)
{
	char raw[sizeof(log_state.context)];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(raw, sizeof(raw), fmt, ap);
	va_end(ap);
	escape_controls(raw, log_state.context, sizeof(log_state.context));
}

static const char *priority_name(int priority)
{
	switch (priority) {
	case LOG_EMERG:
	case LOG_ALERT:
	case LOG_CRIT:
	case LOG_ERR:
		return "error";
	case LOG_WARNING:
		return "warning";
	default:
		return "info";
	}
}

/* What snprintf made of line[size] (n), cut as it cut it; nowhere to report a failure. */
static void write_formatted(int fd, const char *line, int n, size_t size)
{
	if (n > 0)
		(void)write_all(fd, line, (size_t)n < size ? (size_t)n : size - 1);
}

/*
 * RFC 3164, as glibc's syslog(3) writes it: "<PRI>Mmm dd hh:mm:ss
 * ident[pid]: msg", NUL-terminated on a stream.  A failure costs this
 * sink only: the hook may not reconnect once confined.
 */
static void to_syslog(int priority, const char *sep, const char *msg)
{
	char stamp[32] = "", line[LOG_LINE_MAX + 1024];
	time_t now = time(NULL);
	struct tm tm;
	size_t len;
	int n;

	if (localtime_r(&now, &tm))
		strftime(stamp, sizeof(stamp), "%h %e %T ", &tm);
	n = snprintf(line, sizeof(line), "<%d>%s%s[%d]: %s%s%s", LOG_DAEMON | priority,
		     stamp, log_state.ident, (int)getpid(), log_state.context, sep, msg);
	if (n < 0)
		return;
	len = (size_t)n < sizeof(line) ? (size_t)n : sizeof(line) - 1;
	if (log_state.syslog_type == SOCK_STREAM)
		len++;
	if (send(log_state.syslog_fd, line, len, MSG_NOSIGNAL) < 0) {
		syslog_failed("send to", errno);
		closep(&log_state.syslog_fd);
	}
}

/*
 * The civil date of a day counted from 1970-01-01, in the proleptic
 * Gregorian calendar (Howard Hinnant's civil_from_days): eras of 400
 * years, each year starting on March 1 so that February's leap day ends
 * it.
 */
static void civil_from_days(long long days, long long *year, unsigned int *month,
			    unsigned int *day)
{
	long long z = days + 719468;	/* days from 0000-03-01 */
	long long era = (z >= 0 ? z : z - 146096) / 146097;
	unsigned int doe = (unsigned int)(z - era * 146097);	/* [0, 146096] */
	unsigned int yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	unsigned int doy = doe - (365 * yoe + yoe / 4 - yoe / 100);	/* from March 1 */
	unsigned int mp = (5 * doy + 2) / 153;	/* March is 0 */

	*day = doy - (153 * mp + 2) / 5 + 1;
	*month = mp < 10 ? mp + 3 : mp - 9;
	*year = (long long)yoe + era * 400 + (*month <= 2);
}

/*
 * By hand rather than with gmtime_r(3) and strftime(3), whose code the
 * hook would otherwise run, translated afresh under TCG, at every start
 * (docs/benchmarks.md).
 */
void log_utc_stamp(time_t t, char *buf, size_t size)
{
	long long secs = (long long)t, days = secs / 86400, rest = secs % 86400;
	unsigned int month, day;
	long long year;

	if (rest < 0) {
		rest += 86400;
		days--;
	}
	civil_from_days(days, &year, &month, &day);
	snprintf(buf, size, "%04lld-%02u-%02uT%02lld:%02lld:%02lldZ", year, month, day,
		 rest / 3600, rest / 60 % 60, rest % 60);
}

static void to_file(int priority, const char *sep, const char *msg)
{
	char stamp[32] = "-", line[LOG_LINE_MAX + 1024];
	struct timespec now;
	int n;

	if (clock_gettime(CLOCK_REALTIME, &now) == 0)
		log_utc_stamp(now.tv_sec, stamp, sizeof(stamp));
	n = snprintf(line, sizeof(line), "%s %s[%d] %s: %s%s%s\n", stamp,
		     log_state.ident, (int)getpid(), priority_name(priority),
		     log_state.context, sep, msg);
	write_formatted(log_state.file_fd, line, n, sizeof(line));
}

void log_msg(int priority, const char *fmt, ...)
{
	char raw[LOG_LINE_MAX], msg[LOG_LINE_MAX];
	const char *sep = log_state.context[0] ? ": " : "";
	va_list ap;
	int n;

	va_start(ap, fmt);
	vsnprintf(raw, sizeof(raw), fmt, ap);
	va_end(ap);
	escape_controls(raw, msg, sizeof(msg));

	if (log_state.sinks & LOG_SINK_STDERR) {
		char line[LOG_LINE_MAX + 1024];

		n = snprintf(line, sizeof(line), "%s: %s%s%s\n", log_state.ident,
			     log_state.context, sep, msg);
		write_formatted(STDERR_FILENO, line, n, sizeof(line));
	}
	if ((log_state.sinks & LOG_SINK_SYSLOG) && log_state.syslog_fd >= 0)
		to_syslog(priority, sep, msg);
	if ((log_state.sinks & LOG_SINK_FILE) && log_state.file_fd >= 0)
		to_file(priority, sep, msg);
}
