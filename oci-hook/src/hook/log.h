/* SPDX-License-Identifier: GPL-2.0 */
/*
 * log.h: every decision of the hook goes to stderr, syslog and, when one
 * is configured, a log file.  crun discards a hook's stderr unless the
 * run.oci.hooks.stderr annotation names a file, so stderr alone would
 * leave an administrator nothing to read.
 *
 * Control characters in messages (which quote ids and paths from
 * untrusted input) are written as \xNN, so one message is one line.
 */
#ifndef SHIFTBIND_LOG_H
#define SHIFTBIND_LOG_H

#include <stddef.h>
#include <syslog.h>
#include <time.h>

/*
 * The log file: this variable's value, else the default if its directory
 * exists and the hook may write there (real root; rootless hooks do not).
 */
#define LOG_FILE_ENV		"SHIFTBIND_HOOK_LOG"
#define LOG_DIR_DEFAULT		"/run/shiftbind"
#define LOG_FILE_DEFAULT	LOG_DIR_DEFAULT "/hook.log"

enum log_sinks {
	LOG_SINK_STDERR = 1,
	LOG_SINK_SYSLOG = 2,
	LOG_SINK_FILE = 4,
};

/*
 * log_open: start logging as ident to the given sinks.  The syslog
 * socket and the file are opened now, so that they keep working after
 * the hook has joined another mount namespace or confined itself.
 */
void log_open(const char *ident, unsigned int sinks);

/*
 * log_connect: connect the syslog socket if no daemon listened at
 * log_open() (one may have started since).  The hook calls it before it
 * leaves the host's mount namespace and confines itself: after that it
 * can make no socket, and a line that finds no connected socket is on
 * stderr and in the log file only (said once there).
 */
void log_connect(void);
void log_close(void);

/* log_set_context: a prefix for later messages ("container c1"). */
void log_set_context(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* log_utc_stamp: "2026-12-07T14:56:59Z", the log file's stamp of t. */
void log_utc_stamp(time_t t, char *buf, size_t size);

/* log_msg: priority is syslog's (LOG_INFO, LOG_ERR...). */
void log_msg(int priority, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#endif /* SHIFTBIND_LOG_H */
