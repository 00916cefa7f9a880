// SPDX-License-Identifier: GPL-2.0
/* configfd_steps.c: see configfd_steps.h. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <fcntl.h>
#include <stdio.h>
#include <string.h>

#include "common.h"
#include "configfd_steps.h"

/* The kernel logs one "e bind: ...\n" line per reason: make them one line. */
static void join_lines(char *log)
{
	size_t len = strlen(log);
	char *nl;

	while (len > 0 && log[len - 1] == '\n')
		log[--len] = '\0';
	while ((nl = strchr(log, '\n')))
		*nl = ';';
}

/* The failed step's key, with a string's value: one of several owners. */
static const char *step_key(const struct configfd_step *step, char *buf,
			    size_t size)
{
	if (!step->key)
		return "";
	if (step->cmd != CONFIGFD_SET_STRING)
		return step->key;
	snprintf(buf, size, "%s \"%s\"", step->key, (const char *)step->value);
	return buf;
}

static int step_failed(int fd, const struct configfd_step *step,
		       const char *path, int err, struct error *e)
{
	char log[1024], key[CONFIGFD_KEY_MAX + 64];
	int n = configfd_read_log(fd, log, sizeof(log));
	const char *shown = step_key(step, key, sizeof(key));

	if (n <= 0 || !log[0])
		return error_errno(e, err, "configfd bind %s%s%s on `%s`",
				   configfd_cmd_name(step->cmd), shown[0] ? " " : "",
				   shown, path);
	join_lines(log);
	return error_msg(e, err, "configfd bind %s%s%s on `%s`: %s (kernel: %s)",
			 configfd_cmd_name(step->cmd), shown[0] ? " " : "", shown,
			 path, strerror(err), log);
}

/* Each step on fd, in order; the first failure names itself and the kernel's reasons. */
int run_steps(int fd, const struct configfd_step *steps, size_t n,
		     const char *path, struct error *e)
{
	size_t i;

	for (i = 0; i < n; i++) {
		const struct configfd_step *s = &steps[i];

		if (sys_configfd_action(fd, s->cmd, s->key, s->value, s->aux) < 0)
			return step_failed(fd, s, path, errno, e);
	}
	return 0;
}

int open_bind_configfd(unsigned int op, const char *path, int *out,
			      struct error *e)
{
	int fd = sys_configfd_open("bind", O_CLOEXEC, op);

	if (fd < 0)
		return error_errno(e, errno, "configfd_open bind (%s) for `%s`",
				   configfd_cmd_name(op), path);
	*out = fd;
	return 0;
}

/*
 * Run steps on a new configfd of type "bind" opened for op.  A failed
 * step leaves the mount as it was: the kernel applies a configuration
 * only at CMD_RECONFIGURE or CMD_CREATE, all or nothing.
 */
int run_bind_configfd(unsigned int op, const struct configfd_step *steps,
			     size_t n, const char *path, struct error *e)
{
	_cleanup_close_ int fd = -1;
	int ret = open_bind_configfd(op, path, &fd, e);

	return ret < 0 ? ret : run_steps(fd, steps, n, path, e);
}
