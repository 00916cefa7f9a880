/* SPDX-License-Identifier: GPL-2.0 */
/*
 * shift.h: every step of the hook that changes kernel state: joining the
 * container's mount namespace, preparing its shifts before it confines
 * itself and committing them after.  Everything else the hook does only
 * reads.
 */
#ifndef SHIFTBIND_SHIFT_H
#define SHIFTBIND_SHIFT_H

#include <sys/types.h>

#include "error.h"

/*
 * join_mount_namespace: setns(2) into the mount namespace of the process
 * whose /proc directory is procfd.  Refuses when it is the caller's own.
 */
int join_mount_namespace(int procfd, pid_t pid, struct error *e);

/*
 * shift_prepare: a configfd holding the shift of the bind mount rooted
 * at pathfd, everything set but the command, as fd number slot (which
 * must be free) in *configfd.  Nothing changes until shift_commit().
 */
int shift_prepare(int pathfd, const char *path, int slot, int *configfd,
		  struct error *e);

/* shift_commit: run the prepared shift (CMD_RECONFIGURE on configfd). */
int shift_commit(int configfd, const char *path, struct error *e);

#endif /* SHIFTBIND_SHIFT_H */
