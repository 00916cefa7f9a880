// SPDX-License-Identifier: GPL-2.0
/*
 * shift.c: see shift.h.  Every change the hook makes to kernel state.
 *
 * The kernel enforces who may do what; the comments say in which
 * namespaces each function runs, so that a reader can check nothing
 * here acts somewhere it should not.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <fcntl.h>
#include <sched.h>
#include <sys/stat.h>

#include "common.h"
#include "configfd_steps.h"
#include "sandbox.h"
#include "shift.h"

/*
 * Called by the hook at createRuntime (or an old bundle's prestart), as
 * host root in the host's namespaces, after the input was parsed and the
 * container's id mappings checked.
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
 * confines itself: at createRuntime (or prestart) as host root after
 * join_mount_namespace(), at createContainer as root of the container's
 * user namespace.  pathfd is crun's bind of the rootfs (or of an extra
 * mount).  Everything of the shift is set here, so that once confined the
 * hook needs only CMD_RECONFIGURE on this fd (shift_commit), and nothing
 * that opens a configfd or names another mount.
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
