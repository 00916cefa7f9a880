// SPDX-License-Identifier: GPL-2.0
/*
 * hostpaths.c: see hostpaths.h.
 *
 * An image's setuid-root programs run as real root for any local user
 * who reaches them through a mount that is not nosuid, and its device
 * nodes open, with whatever mode they carry, through a mount that is not
 * nodev; the store's mode hides names only, and image paths are known.
 * A device node's mode is the image's choice, or, through a read-write
 * shift, its owner's: the shift lends them every real-root inode, so a
 * chmod there makes a disk's node theirs to open on the host path.  The
 * mark's own bind is nodev and nosuid, but it is not always there (before
 * the unit that makes it, after a failed apply, after disallow and
 * umount): what lies under it must be as well.  So every mount of the
 * store's filesystem is asked whether it reaches the store's directory
 * by a path, with the store's marks taken away, and whether it honours
 * device nodes and set-ID bits.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common.h"
#include "fileio.h"
#include "hostpaths.h"
#include "mountinfo.h"
#include "mounttable.h"

/*
 * The mount the absolute path leads to now, through no symbolic link
 * (open_resolved() from "/", as the store's own path is walked): its id.
 */
static int mount_at(const char *path, int *mnt_id)
{
	_cleanup_close_ int root = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	_cleanup_close_ int fd = root < 0 ? -1 :
		open_resolved(root, path + strspn(path, "/"), O_PATH | O_DIRECTORY,
			      SCOPE_NO_SYMLINKS);
	struct statx stx;

	if (fd < 0 ||
	    statx(fd, "", AT_EMPTY_PATH, STATX_MNT_ID, &stx) < 0 ||
	    !(stx.stx_mask & STATX_MNT_ID))
		return -1;
	*mnt_id = (int)stx.stx_mnt_id;
	return 0;
}

/* One of the store's own marks: an allow-shift bind of its directory. */
static bool is_store_mark(const struct mount_entry *m, const char *fs_path)
{
	return mount_allow_shift(m, NULL, NULL) && strcmp(m->root, fs_path) == 0;
}

/*
 * Whether @path leads into mount @via, once the store's marks stacked
 * on @path are gone: the mount under a mark is its parent.
 */
static bool reaches_without_marks(const struct mount_table *t, const char *path,
				  int via, const char *fs_path)
{
	const struct mount_entry *m;
	size_t hops;
	int id;

	if (mount_at(path, &id) < 0)
		return false;
	for (hops = 0; hops <= t->count; hops++) {
		if (id == via)
			return true;
		m = mount_table_find(t, id);
		if (!m || !is_store_mark(m, fs_path) || strcmp(m->mountpoint, path))
			return false;
		id = m->parent;
	}
	return false;
}

/* The remedy both refusals give: the store on a mount of its own kind. */
#define HOST_PATH_REMEDY(what) \
	"put the store on a " what " mount first (a filesystem of its own mounted " what \
	", or a bind of it onto itself: `mount -o bind,nosuid,nodev %s %s` and the same in /etc/fstab)"

static int refuse_suid_path(const char *canon, const char *path,
			    const struct mount_entry *m, struct error *e)
{
	return error_msg(e, EPERM,
			 "refusing to mark `%s`: any local user can run its images' set-user-ID programs as real root through `%s` (mount %d, %s, not nosuid), whether it is marked or not; "
			 HOST_PATH_REMEDY("nosuid") ", or accept the risk with --suid-host",
			 canon, path, m->id, m->fstype, canon, canon);
}

static int refuse_dev_path(const char *canon, const char *path,
			   const struct mount_entry *m, struct error *e)
{
	return error_msg(e, EPERM,
			 "refusing to mark `%s`: any local user can open its images' device nodes through `%s` (mount %d, %s, not nodev), whether it is marked or not, with the mode the image gives them or the owner of a read-write shift sets; "
			 HOST_PATH_REMEDY("nodev"),
			 canon, path, m->id, m->fstype, canon, canon);
}

/* Why mount @m must not reach the store, or 0 when it may. */
static int check_host_path(const char *canon, const char *path,
			   const struct mount_entry *m, bool suid_accepted,
			   struct error *e)
{
	if (!suid_accepted && !mount_has_option(m->options, "nosuid"))
		return refuse_suid_path(canon, path, m, e);
	if (!mount_has_option(m->options, "nodev"))
		return refuse_dev_path(canon, path, m, e);
	return 0;
}

int store_check_host_paths(int fd, const char *canon, bool suid_accepted,
			   struct error *e)
{
	struct mount_table t = { NULL, NULL, 0 };
	char fs_path[PATH_MAX], path[2 * PATH_MAX];
	const struct mount_entry *s, *m;
	const char *rest;
	size_t i;
	int ret;

	ret = mount_table_read(&t, e);
	if (ret == 0)
		ret = mount_table_locate(&t, fd, canon, &s, fs_path, sizeof(fs_path), e);
	for (i = 0; ret == 0 && i < t.count; i++) {
		m = &t.entry[i];
		if (strcmp(m->dev, s->dev) || is_store_mark(m, fs_path) ||
		    !path_below(fs_path, m->root, &rest))
			continue;
		path_join(path, sizeof(path), m->mountpoint, rest);
		if (reaches_without_marks(&t, path, m->id, fs_path))
			ret = check_host_path(canon, path, m, suid_accepted, e);
	}
	mount_table_free(&t);
	return ret;
}
