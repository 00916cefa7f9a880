// SPDX-License-Identifier: GPL-2.0
/*
 * marks.c: see marks.h.  Every change the CLI makes to kernel state.
 *
 * The kernel enforces who may do what; the comments say which command
 * each function serves and in which namespaces it runs, so that a
 * reader can check nothing here acts somewhere it should not.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <fcntl.h>
#include <stdio.h>
#include <sys/syscall.h>

#include "common.h"
#include "configfd_steps.h"
#include "marks.h"

/* Older headers lack move_mount (Linux 5.2); the number is fixed since. */
#ifndef __NR_move_mount
# if defined(__x86_64__) || defined(__i386__)
#  define __NR_move_mount 429
# endif
#endif
#ifndef MOVE_MOUNT_F_EMPTY_PATH
# define MOVE_MOUNT_F_EMPTY_PATH 0x00000004
#endif
#ifndef MOVE_MOUNT_T_EMPTY_PATH
# define MOVE_MOUNT_T_EMPTY_PATH 0x00000040
#endif

/*
 * A mark's steps: pathfd, detached (create only), allow-shift, each
 * owner, ro|rw, nosuid|suid (the store's host path), nodev (the host
 * path: see hostpaths.c), shift-suid (its shifts), the command, and
 * bindfd (create only).
 * Both flags of each pair are set explicitly, so that the mount is
 * what the report says, whatever it was.
 */
#define MARK_STEPS_MAX	(10 + OWNERS_MAX)

struct mark_steps {
	struct configfd_step step[MARK_STEPS_MAX];
	char owner[OWNERS_MAX][OWNER_TEXT_MAX];	/* the owners' strings */
	size_t n;
};

static void add_step(struct mark_steps *s, unsigned int cmd, const char *key,
		     void *value, int aux)
{
	s->step[s->n++] = (struct configfd_step){ cmd, key, value, aux };
}

static void add_mark(struct mark_steps *s, const struct mark *m)
{
	size_t i;

	add_step(s, CONFIGFD_SET_FLAG, "allow-shift", NULL, 0);
	for (i = 0; i < m->owners.count; i++) {
		owner_format(&m->owners.item[i], s->owner[i], sizeof(s->owner[i]));
		add_step(s, CONFIGFD_SET_STRING, "owner", s->owner[i], 0);
	}
	add_step(s, CONFIGFD_SET_FLAG, m->flags & MARK_WRITABLE ? "rw" : "ro", NULL, 0);
	add_step(s, CONFIGFD_SET_FLAG, m->flags & MARK_SUID_HOST ? "suid" : "nosuid",
		 NULL, 0);
	add_step(s, CONFIGFD_SET_FLAG, "nodev", NULL, 0);
	if (m->flags & MARK_SUID)
		add_step(s, CONFIGFD_SET_FLAG, "shift-suid", NULL, 0);
}

/*
 * Called by `shiftbind allow` and `shiftbind apply-config`, as real root
 * in the host's mount namespace (the kernel sets allow-shift only with
 * CAP_SYS_ADMIN in the initial user namespace), on the store the CLI
 * resolved without symlinks and checked: pathfd is that directory, the
 * root of its mount.  This is the administrator delegating the subtree
 * to the listed owners' user namespaces: see the security notes in
 * shiftbind(8).  The kernel replaces the owner list of a mount marked
 * before, for every copy of it.
 */
int mark_mount(int pathfd, const char *path, const struct mark *m,
	       struct error *e)
{
	struct mark_steps s = { .n = 0 };

	add_step(&s, CONFIGFD_SET_FD, "pathfd", NULL, pathfd);
	add_mark(&s, m);
	add_step(&s, CONFIGFD_CMD_RECONFIGURE, NULL, NULL, 0);
	return run_bind_configfd(CONFIGFD_CMD_RECONFIGURE, s.step, s.n, path, e);
}

/*
 * As mark_mount, for a store that is no mount root: the kernel clones
 * the mount pathfd is on, with pathfd's directory as the root, and marks
 * the clone before anyone can see it.  Until attach_mount_at() it is
 * attached nowhere, and closing *bindfd dissolves it.
 */
int create_marked_bind(int pathfd, const char *path, const struct mark *m,
		       int *bindfd, struct error *e)
{
	struct mark_steps s = { .n = 0 };
	int fd = -1, ret;

	add_step(&s, CONFIGFD_SET_FD, "pathfd", NULL, pathfd);
	add_step(&s, CONFIGFD_SET_FLAG, "detached", NULL, 0);
	add_mark(&s, m);
	add_step(&s, CONFIGFD_CMD_CREATE, NULL, NULL, 0);
	add_step(&s, CONFIGFD_GET_FD, "bindfd", &fd, O_CLOEXEC);
	ret = run_bind_configfd(CONFIGFD_CMD_CREATE, s.step, s.n, path, e);
	if (ret < 0)
		return ret;
	*bindfd = fd;
	return 0;
}

/*
 * Called by `shiftbind disallow` as real root in the host's mount
 * namespace (the kernel allows disallow-shift and revoke to real root
 * only).  It only takes power away: the kernel withdraws the mark every
 * copy of the mount shares, so no namespace can make a new shift through
 * it; with revoke, every shift made through it refuses all access from
 * then on, wherever it is mounted or held.
 */
int withdraw_mark(int pathfd, const char *path, bool revoke, struct error *e)
{
	struct mark_steps s = { .n = 0 };

	add_step(&s, CONFIGFD_SET_FD, "pathfd", NULL, pathfd);
	add_step(&s, CONFIGFD_SET_FLAG, "disallow-shift", NULL, 0);
	if (revoke)
		add_step(&s, CONFIGFD_SET_FLAG, "revoke", NULL, 0);
	add_step(&s, CONFIGFD_CMD_RECONFIGURE, NULL, NULL, 0);
	return run_bind_configfd(CONFIGFD_CMD_RECONFIGURE, s.step, s.n, path, e);
}

/*
 * Called by `shiftbind shift` as root of a user namespace, in a mount
 * namespace that namespace owns (unshare -Urm).  The new mount is
 * detached: until attach_mount() it is visible nowhere, and closing
 * bindfd frees it.
 */
int create_shift_bind(int srcfd, const char *src, int *bindfd,
		      struct error *e)
{
	int fd = -1;
	const struct configfd_step steps[] = {
		{ CONFIGFD_SET_FD, "pathfd", NULL, srcfd },
		{ CONFIGFD_SET_FLAG, "shift", NULL, 0 },
		{ CONFIGFD_SET_FLAG, "detached", NULL, 0 },
		{ CONFIGFD_CMD_CREATE, NULL, NULL, 0 },
		{ CONFIGFD_GET_FD, "bindfd", &fd, O_CLOEXEC },
	};
	int ret = run_bind_configfd(CONFIGFD_CMD_CREATE, steps,
				    ARRAY_SIZE(steps), src, e);

	if (ret < 0)
		return ret;
	*bindfd = fd;
	return 0;
}

static int move_mount_from(int bindfd, int dirfd, const char *dst,
			   unsigned int flags)
{
#ifdef __NR_move_mount
	return (int)syscall(__NR_move_mount, bindfd, "", dirfd, dst,
			    MOVE_MOUNT_F_EMPTY_PATH | flags);
#else
	(void)bindfd;
	(void)dirfd;
	(void)dst;
	(void)flags;
	errno = ENOSYS;	/* no number known for this architecture */
	return -1;
#endif
}

/* As create_shift_bind: in the caller's own user and mount namespaces. */
int attach_mount(int bindfd, const char *dst, struct error *e)
{
	if (move_mount_from(bindfd, AT_FDCWD, dst, 0) < 0)
		return error_errno(e, errno, "move_mount onto `%s`", dst);
	return 0;
}

/*
 * As create_marked_bind: real root, host mount namespace.  dirfd is the
 * checked store itself, so the marked bind lands on exactly that
 * directory, whatever its path names by now.
 */
int attach_mount_at(int bindfd, int dirfd, const char *display,
		    struct error *e)
{
	if (move_mount_from(bindfd, dirfd, "", MOVE_MOUNT_T_EMPTY_PATH) < 0)
		return error_errno(e, errno, "move_mount of the marked bind onto `%s`",
				   display);
	return 0;
}
