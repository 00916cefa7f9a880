// SPDX-License-Identifier: GPL-2.0
/*
 * hook-timer: run an OCI hook and record its wall time.
 *
 *   hook-timer TIMES_FILE HOOK ARG0 [ARG...]
 *
 * Registered in config.json in place of HOOK (path hook-timer, args
 * ["hook-timer", TIMES_FILE, HOOK, ARG0, ...]).  Runs HOOK with argv
 * ARG0... and the runtime's stdin (the container state), waits for it, and
 * appends the seconds from just before fork(2) to its exit, one line per
 * run, to TIMES_FILE.  Exits with HOOK's status, so the runtime sees what
 * it would have seen without the timer.
 *
 * What is measured is what the runtime waits for: creating and loading the
 * hook's process (the runtime forks and execs it the same way) and
 * everything the hook does, not the runtime's own work around it.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "util.h"

static int exit_status(int status)
{
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	return 128 + WTERMSIG(status);
}

int main(int argc, char **argv)
{
	double start, elapsed;
	int status, fd;
	pid_t pid;

	if (argc < 4)
		errx(2, "usage: hook-timer TIMES_FILE HOOK ARG0 [ARG...]");
	start = monotonic_s();
	pid = fork();
	if (pid < 0)
		err(1, "fork for %s", argv[2]);
	if (pid == 0) {
		execv(argv[2], argv + 3);
		warn("exec %s", argv[2]);
		_exit(127);
	}
	if (waitpid(pid, &status, 0) < 0)
		err(1, "waitpid %d (%s)", (int)pid, argv[2]);
	elapsed = monotonic_s() - start;

	fd = open(argv[1], O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0)
		err(1, "open %s", argv[1]);
	if (dprintf(fd, "%.6f\n", elapsed) < 0)
		err(1, "write %s", argv[1]);
	close(fd);
	return exit_status(status);
}
