/* SPDX-License-Identifier: GPL-2.0 */
/*
 * timing.h: where the hook's time goes, measured when asked.
 *
 * With SHIFTBIND_HOOK_TIMING=1 in its environment (the "env" of its
 * entry in config.json; make bench sets it), the hook ends its log with
 * one line "timing (us): PHASE=N ... main=N": the microseconds
 * (CLOCK_MONOTONIC) each phase took, in the order they ran, and the
 * time from main() to that line.  What precedes main() (the exec, the
 * loader, libc's start) is the wall time a caller measures less main.
 * Without the variable it costs one getenv().
 */
#ifndef SHIFTBIND_TIMING_H
#define SHIFTBIND_TIMING_H

#define TIMING_ENV "SHIFTBIND_HOOK_TIMING"

/* timing_start: read the variable; the first phase starts now. */
void timing_start(void);

/* timing_mark: the phase that ends now is called name (a literal). */
void timing_mark(const char *name);

/* timing_report: the line above, at LOG_INFO, if asked for. */
void timing_report(void);

#endif /* SHIFTBIND_TIMING_H */
