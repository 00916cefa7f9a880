// SPDX-License-Identifier: GPL-2.0
/* mounts.c: see mounts.h. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "common.h"
#include "mountinfo.h"
#include "mounts.h"

bool mount_options_shifted(const char *options)
{
	return mount_has_option(options, "shift") ||
	       mount_has_option(options, "idmapped");
}

/*
 * STATX_ATTR_MOUNT_ROOT and STATX_MNT_ID (Linux 5.8) answer "is this a
 * mount root, and which mount" without comparing paths, which differ
 * between namespaces and through symlinks.
 */
static int statx_mount(int fd, const char *display, int *mnt_id,
		       bool *mount_root, struct error *e)
{
	struct statx stx;

	if (statx(fd, "", AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW, STATX_MNT_ID, &stx) < 0)
		return error_errno(e, errno, "statx `%s`", display);
	if (!(stx.stx_mask & STATX_MNT_ID) ||
	    !(stx.stx_attributes_mask & STATX_ATTR_MOUNT_ROOT))
		return error_msg(e, ENOSYS,
				 "statx `%s`: kernel reports no mount id (needs Linux 5.8 or later)",
				 display);
	*mnt_id = (int)stx.stx_mnt_id;
	*mount_root = stx.stx_attributes & STATX_ATTR_MOUNT_ROOT;
	return 0;
}

static int find_mount(int mnt_id, const char *display, struct mount_facts *out,
		      struct error *e)
{
	_cleanup_free_ char *text = NULL;
	struct mount_entry m;
	char *cursor;
	int ret;

	ret = mountinfo_read(&text, e);
	if (ret < 0)
		return ret;
	cursor = text;
	while ((ret = mountinfo_next(&cursor, &m, e)) > 0) {
		if (m.id != mnt_id)
			continue;
		out->allow_shift = mount_allow_shift(&m, NULL, NULL);
		out->shifted = mount_options_shifted(m.options);
		out->fs_root = out->mount_root && strcmp(m.root, "/") == 0;
		return 0;
	}
	if (ret < 0)
		return ret;
	return error_msg(e, ENOENT, "`%s`: mount %d is not in " MOUNTINFO_PATH,
			 display, mnt_id);
}

int mount_facts_of(int fd, const char *display, struct mount_facts *out,
		   struct error *e)
{
	int ret;

	memset(out, 0, sizeof(*out));
	ret = statx_mount(fd, display, &out->mnt_id, &out->mount_root, e);
	if (ret < 0)
		return ret;
	return find_mount(out->mnt_id, display, out, e);
}
