// SPDX-License-Identifier: GPL-2.0
/*
 * privileged.c: see privileged.h.
 *
 * The kernel enforces who may do what; the comments say which caller
 * each function serves and in which namespaces it runs, so that a reader
 * can check nothing here acts somewhere it should not.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#include "common.h"
#include "configfd.h"
#include "privileged.h"
#include "sandbox.h"

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
 * Called by the hook at prestart, as host root in the host's namespaces,
 * after the input was parsed and the container's id mappings checked.
 * procfd pins the container's init (a reused pid cannot be reached
 * through it).  Joining a mount namespace changes only where later
 * paths resolve: the hook's credentials and user namespace stay the
 * host's, and the hook is single-threaded, as setns(CLONE_NEWNS) needs.
 */
int join_mount_namespace(int procfd, pid_t pid, struct error *e)
{
	_cleanup_close_ int nsfd = -1;
	struct stat theirs, ours;

	nsfd = openat(procfd, "ns/mnt", O_RDONLY | O_CLOEXEC);
	if (nsfd < 0)
		return error_errno(e, errno, "open `/proc/%d/ns/mnt`", (int)pid);
	if (fstat(nsfd, &theirs) < 0)
		return error_errno(e, errno, "stat `/proc/%d/ns/mnt`", (int)pid);
	if (stat("/proc/self/ns/mnt", &ours) < 0)
		return error_errno(e, errno, "stat `/proc/self/ns/mnt`");
	if (theirs.st_dev == ours.st_dev && theirs.st_ino == ours.st_ino)
		return error_msg(e, EINVAL,
				 "/proc/%d/ns/mnt is the hook's own mount namespace: the container has no private one to shift in",
				 (int)pid);
	if (setns(nsfd, CLONE_NEWNS) < 0)
		return error_errno(e, errno, "setns `/proc/%d/ns/mnt`", (int)pid);
	return 0;
}

struct configfd_step {
	unsigned int cmd;
	const char *key;
	void *value;
	int aux;
};

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
static int run_steps(int fd, const struct configfd_step *steps, size_t n,
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

static int open_bind_configfd(unsigned int op, const char *path, int *out,
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
static int run_bind_configfd(unsigned int op, const struct configfd_step *steps,
			     size_t n, const char *path, struct error *e)
{
	_cleanup_close_ int fd = -1;
	int ret = open_bind_configfd(op, path, &fd, e);

	return ret < 0 ? ret : run_steps(fd, steps, n, path, e);
}

/*
 * *fd moved to the number slot, which must be free: the confined hook's
 * seccomp filter names the numbers it may run a configfd command on.
 */
static int move_to_slot(int *fd, int slot, const char *path, struct error *e)
{
	int moved = fcntl(*fd, F_DUPFD_CLOEXEC, slot);

	if (moved < 0)
		return error_errno(e, errno, "configfd for `%s`: moving it to fd %d", path, slot);
	if (moved != slot) {
		close(moved);
		return error_msg(e, EBUSY,
				 "configfd for `%s`: fd %d, which the hook's seccomp filter reserves for it, is already open: start the hook without descriptors above %d",
				 path, slot, SANDBOX_CONFIGFD_FIRST - 1);
	}
	closep(fd);
	*fd = moved;
	return 0;
}

/*
 * Called by the hook inside the container's mount namespace, before it
 * confines itself: at prestart as host root after join_mount_namespace(),
 * at createContainer as root of the container's user namespace.  pathfd
 * is crun's bind of the rootfs (or of an extra mount).  Everything of
 * the shift is set here, so that once confined the hook needs only
 * CMD_RECONFIGURE on this fd (shift_commit), and nothing that opens a
 * configfd or names another mount.
 */
int shift_prepare(int pathfd, const char *path, int slot, int *out,
		  struct error *e)
{
	const struct configfd_step steps[] = {
		{ CONFIGFD_SET_FD, "pathfd", NULL, pathfd },
		{ CONFIGFD_SET_FLAG, "shift", NULL, 0 },
	};
	_cleanup_close_ int fd = -1;
	int ret = open_bind_configfd(CONFIGFD_CMD_RECONFIGURE, path, &fd, e);

	if (ret == 0)
		ret = run_steps(fd, steps, ARRAY_SIZE(steps), path, e);
	if (ret == 0)
		ret = move_to_slot(&fd, slot, path, e);
	if (ret == 0)
		*out = steal_fd(&fd);
	return ret;
}

/*
 * Called by the confined hook, after it checked the mount (a mount root
 * carrying allow-shift, not shifted yet).  The kernel maps the mount
 * through the user namespace that owns this mount namespace, the
 * container's, and refuses unless the mount carries allow-shift.  Only
 * this namespace's copy of the mount changes; the host's store is
 * untouched.
 */
int shift_commit(int configfd, const char *path, struct error *e)
{
	static const struct configfd_step commit = {
		CONFIGFD_CMD_RECONFIGURE, NULL, NULL, 0
	};

	return run_steps(configfd, &commit, 1, path, e);
}

/*
 * A mark's steps: pathfd, detached (create only), allow-shift, each
 * owner, ro|rw, nosuid|suid (the store's host path), shift-suid (its
 * shifts), the command, and bindfd (create only).
 * Both flags of each pair are set explicitly, so that the mount is
 * what the report says, whatever it was.
 */
#define MARK_STEPS_MAX	(9 + OWNERS_MAX)

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
