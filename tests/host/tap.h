/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tap.h: the TAP output of the host unit tests.  Each check prints
 * "ok N - what" or "not ok N - what"; tap_done() prints the plan, counted
 * rather than written by hand, and gives main() its exit status.  A test
 * whose checks follow from its tables declares them first with
 * tap_plan(), derived from those tables: a check that did not run is
 * then a failure, not a shorter plan.
 */
#ifndef SHIFTBIND_TAP_H
#define SHIFTBIND_TAP_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>

static int tap_checks, tap_failures, tap_planned = -1;

__attribute__((format(printf, 2, 3), unused))
static bool ok(bool cond, const char *fmt, ...)
{
	va_list ap;

	tap_checks++;
	if (!cond)
		tap_failures++;
	printf("%sok %d - ", cond ? "" : "not ", tap_checks);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	return cond;
}

__attribute__((format(printf, 1, 2), unused))
static void diag(const char *fmt, ...)
{
	va_list ap;

	printf("# ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
}

/* The plan, before the first check: n checks are to run. */
__attribute__((unused))
static void tap_plan(int n)
{
	tap_planned = n;
	printf("1..%d\n", n);
}

/*
 * The plan, unless declared; the exit status for main(): 1 if any check
 * failed or, with a declared plan, if another number of checks ran.
 */
__attribute__((unused))
static int tap_done(void)
{
	if (tap_planned < 0) {
		printf("1..%d\n", tap_checks);
		return tap_failures ? 1 : 0;
	}
	if (tap_checks != tap_planned) {
		printf("# planned %d checks, ran %d\n", tap_planned, tap_checks);
		return 1;
	}
	return tap_failures ? 1 : 0;
}

#endif /* SHIFTBIND_TAP_H */
