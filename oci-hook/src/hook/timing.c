// SPDX-License-Identifier: GPL-2.0
/* timing.c: see timing.h. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "common.h"
#include "log.h"
#include "timing.h"

/* More phases than the hook has: a mark past the last is dropped. */
#define TIMING_PHASES_MAX 24

static struct {
	bool on;
	uint64_t start, last;
	size_t count;
	struct {
		const char *name;
		uint64_t us;
	} phase[TIMING_PHASES_MAX];
} timing;

static uint64_t now_us(void)
{
	struct timespec ts;

	/* The vDSO answers; neither seccomp filter is asked. */
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

void timing_start(void)
{
	const char *v = getenv(TIMING_ENV);

	timing.on = v && !strcmp(v, "1");
	if (timing.on)
		timing.start = timing.last = now_us();
}

void timing_mark(const char *name)
{
	uint64_t t;

	if (!timing.on || timing.count == TIMING_PHASES_MAX)
		return;
	t = now_us();
	timing.phase[timing.count].name = name;
	timing.phase[timing.count].us = t - timing.last;
	timing.count++;
	timing.last = t;
}

void timing_report(void)
{
	char line[1024] = "";
	size_t i, len = 0;

	if (!timing.on)
		return;
	for (i = 0; i < timing.count && len < sizeof(line); i++)
		len += (size_t)snprintf(line + len, sizeof(line) - len, "%s=%llu ",
					timing.phase[i].name,
					(unsigned long long)timing.phase[i].us);
	log_msg(LOG_INFO, "timing (us): %smain=%llu", line,
		(unsigned long long)(now_us() - timing.start));
}
