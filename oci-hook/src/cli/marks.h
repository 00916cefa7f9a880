/* SPDX-License-Identifier: GPL-2.0 */
/*
 * marks.h: every step of the CLI that changes kernel state: marking and
 * unmarking stores (allow, disallow, apply-config), and the shift binds
 * of `shift` and `podman-setup`, each documented with the namespaces it
 * runs in and why it is safe there.
 */
#ifndef SHIFTBIND_MARKS_H
#define SHIFTBIND_MARKS_H

#include <stdbool.h>

#include "error.h"
#include "owners.h"

/* How a store is marked, besides allow-shift (shiftbind allow). */
enum mark_flags {
	MARK_WRITABLE = 1 << 0,	/* rw: by default the mark makes it ro */
	MARK_SUID = 1 << 1,	/* suid: its shifts honour set-ID bits */
	/* suid-host: the store's host path too (by default nosuid) */
	MARK_SUID_HOST = 1 << 2,
};

struct mark {
	unsigned int flags;		/* enum mark_flags */
	struct owner_list owners;	/* none: real root's namespaces only */
};

/*
 * mark_mount: mark the mount whose root is pathfd allow-shift for
 * m->owners, read-only and nosuid unless m says otherwise.  A mount
 * marked before gets the new owner list (and flags).
 */
int mark_mount(int pathfd, const char *path, const struct mark *m,
	       struct error *e);

/*
 * create_marked_bind: a detached bind of the directory pathfd, marked as
 * mark_mount() marks, as a new fd in *bindfd.  Closing it unattached
 * leaves nothing.
 */
int create_marked_bind(int pathfd, const char *path, const struct mark *m,
		       int *bindfd, struct error *e);

/*
 * withdraw_mark: withdraw the allow-shift mark of the mount rooted at
 * pathfd; with revoke, also revoke every live shift made through it.
 */
int withdraw_mark(int pathfd, const char *path, bool revoke, struct error *e);

/* create_shift_bind: a detached shift bind of srcfd, as a new fd in *bindfd. */
int create_shift_bind(int srcfd, const char *src, int *bindfd,
		      struct error *e);

/* attach_mount: move the detached mount bindfd onto dst. */
int attach_mount(int bindfd, const char *dst, struct error *e);

/* attach_mount_at: move the detached mount bindfd onto the directory dirfd. */
int attach_mount_at(int bindfd, int dirfd, const char *display,
		    struct error *e);

#endif /* SHIFTBIND_MARKS_H */
