// SPDX-License-Identifier: GPL-2.0
/*
 * systemdirs.c: see systemdirs.h.
 *
 * A store is compared with each system directory twice: by the path
 * walked to it (a filesystem mounted below /usr is still under /usr),
 * and by its place in its filesystem, the mount's root in mountinfo
 * joined with the rest of the path (a bind mount shows no trace of where
 * its directory lies in its path, only there).  The second replaces a
 * comparison by identity (device and inode), which a bind of a
 * subdirectory of a system directory passes.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "mounttable.h"
#include "systemdirs.h"

/*
 * With subtree, nothing below the directory is a store either: it holds
 * the host's programs, configuration, secrets or running state (/run,
 * /var/lib: every service's).  The others hold stores legitimately
 * below them (/home/images, /opt/...), and only the directory itself is
 * refused.  /srv, /mnt and /media are where stores live: not listed.
 */
static const struct system_dir {
	const char *path;
	bool subtree;
	const char *what;
} system_dirs[] = {
	{ "/", false, "the whole file system" },
	{ "/etc", true, "the host's configuration and secrets" },
	{ "/root", true, "root's home" },
	{ "/boot", true, "kernels and the boot loader" },
	{ "/usr", true, "the host's programs and libraries" },
	{ "/bin", true, "the host's programs" },
	{ "/sbin", true, "the host's programs" },
	{ "/lib", true, "the host's libraries" },
	{ "/lib32", true, "the host's libraries" },
	{ "/lib64", true, "the host's libraries" },
	{ "/libx32", true, "the host's libraries" },
	{ "/proc", true, "the kernel's process information" },
	{ "/sys", true, "the kernel's objects" },
	{ "/dev", true, "device nodes" },
	{ "/run", true, "the host's runtime state" },
	{ "/var/lib", true, "every service's state" },
	{ "/opt", false, "add-on software" },
	{ "/var", false, "the host's variable data" },
	{ "/var/log", false, "the host's logs" },
	{ "/var/tmp", false, "everyone's temporary files" },
	{ "/home", false, "the users' homes" },
	{ "/tmp", false, "everyone's temporary files" },
};

#define WHY_NOT "a mark lends every file under the store to the containers' root"
#define WHAT_TO_DO "keep the images in a directory of their own outside the system directories (under /srv, see shiftbind(8)) and mark that, or give --force (allow.conf: force) to lend it anyway"

/* Where a system directory is: its path, links followed, and its place. */
struct place {
	char canon[PATH_MAX];
	const struct mount_entry *mount;
	char fs_path[PATH_MAX];
};

/*
 * d's place, or 1 when d does not exist here (/lib32 mostly does not).
 * Links are followed: on merged-/usr systems /lib is usr/lib.
 */
static int locate_system_dir(const struct mount_table *t,
			     const struct system_dir *d, struct place *p,
			     struct error *e)
{
	_cleanup_close_ int fd = open(d->path, O_PATH | O_DIRECTORY | O_CLOEXEC);

	if (fd < 0 && (errno == ENOENT || errno == ENOTDIR))
		return 1;
	if (fd < 0)
		return error_errno(e, errno, "open the system directory `%s`", d->path);
	if (!realpath(d->path, p->canon))
		return error_errno(e, errno, "resolve the system directory `%s`", d->path);
	return mount_table_locate(t, fd, p->canon, &p->mount, p->fs_path,
				  sizeof(p->fs_path), e);
}

/* By the path walked: d itself, or below it when its subtree is closed. */
static int check_path(const char *canon, const struct system_dir *d,
		      const struct place *p, struct error *e)
{
	const char *rest;

	if (!path_below(canon, p->canon, &rest) || (*rest && !d->subtree))
		return 0;
	if (!*rest)
		return error_msg(e, EPERM,
				 "refusing to mark `%s` allow-shift: it is a system directory (%s), and " WHY_NOT "; " WHAT_TO_DO,
				 canon, d->what);
	return error_msg(e, EPERM,
			 "refusing to mark `%s` allow-shift: it is below %s (%s), and " WHY_NOT "; " WHAT_TO_DO,
			 canon, d->path, d->what);
}

/* By its place in its filesystem: a bind of d, or of a directory below it. */
static int check_place(const char *canon, const struct mount_entry *mount,
		       const char *fs_path, const struct system_dir *d,
		       const struct place *p, struct error *e)
{
	char shown[2 * PATH_MAX];
	const char *rest;

	if (strcmp(mount->dev, p->mount->dev) ||
	    !path_below(fs_path, p->fs_path, &rest) || (*rest && !d->subtree))
		return 0;
	if (!*rest)
		return error_msg(e, EPERM,
				 "refusing to mark `%s` allow-shift: it is %s (%s), reached through a bind mount, and " WHY_NOT "; " WHAT_TO_DO,
				 canon, d->path, d->what);
	path_join(shown, sizeof(shown), d->path, rest);
	return error_msg(e, EPERM,
			 "refusing to mark `%s` allow-shift: it is %s, below %s (%s), reached through a bind mount, and " WHY_NOT "; " WHAT_TO_DO,
			 canon, shown, d->path, d->what);
}

int store_check_not_system(int fd, const char *canon, struct error *e)
{
	struct mount_table t = { NULL, NULL, 0 };
	_cleanup_free_ struct place *places = NULL;
	const struct mount_entry *mount;
	char fs_path[PATH_MAX];
	bool present[ARRAY_SIZE(system_dirs)];
	size_t i;
	int ret;

	places = calloc(ARRAY_SIZE(system_dirs), sizeof(*places));
	if (!places)
		return error_errno(e, ENOMEM, "checking `%s`", canon);
	ret = mount_table_read(&t, e);
	if (ret == 0)
		ret = mount_table_locate(&t, fd, canon, &mount, fs_path, sizeof(fs_path), e);
	for (i = 0; ret >= 0 && i < ARRAY_SIZE(system_dirs); i++) {
		ret = locate_system_dir(&t, &system_dirs[i], &places[i], e);
		present[i] = ret == 0;
	}
	/* Every path first: "below /usr" says more than "a bind of /usr/share". */
	for (i = 0; ret >= 0 && i < ARRAY_SIZE(system_dirs); i++)
		if (present[i])
			ret = check_path(canon, &system_dirs[i], &places[i], e);
	for (i = 0; ret >= 0 && i < ARRAY_SIZE(system_dirs); i++)
		if (present[i])
			ret = check_place(canon, mount, fs_path, &system_dirs[i],
					  &places[i], e);
	mount_table_free(&t);
	return ret < 0 ? ret : 0;
}
