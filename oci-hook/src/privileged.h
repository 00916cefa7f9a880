/* SPDX-License-Identifier: GPL-2.0 */
/*
 * privileged.h: every step of the hook and the CLI that changes kernel
 * state (setns, mount, the configfd calls), each documented with the
 * namespaces it runs in and why it is safe there.  Everything else only
 * reads.
 */
#ifndef SHIFTBIND_PRIVILEGED_H
#define SHIFTBIND_PRIVILEGED_H

#include <sys/types.h>

#include "error.h"

/*
 * join_mount_namespace: setns(2) into the mount namespace of the process
 * whose /proc directory is procfd.  Refuses when it is the caller's own.
 */
int join_mount_namespace(int procfd, pid_t pid, struct error *e);

/* shift_in_place: turn the bind mount rooted at pathfd into a shift bind. */
int shift_in_place(int pathfd, const char *path, struct error *e);

enum mark_flags {
	MARK_READ_ONLY = 1 << 0,
	MARK_NOSUID = 1 << 1,
};

/* mark_allow_shift: mark the mount rooted at pathfd allow-shift (+ flags). */
int mark_allow_shift(int pathfd, const char *path, unsigned int flags,
		     struct error *e);

/* create_shift_bind: a detached shift bind of srcfd, as a new fd in *bindfd. */
int create_shift_bind(int srcfd, const char *src, int *bindfd,
		      struct error *e);

/* attach_mount: move the detached mount bindfd onto dst. */
int attach_mount(int bindfd, const char *dst, struct error *e);

/* bind_onto_itself: make path a mount root; undo_bind reverts it. */
int bind_onto_itself(const char *path, struct error *e);
void undo_bind(const char *path);

#endif /* SHIFTBIND_PRIVILEGED_H */
