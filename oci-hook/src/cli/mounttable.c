// SPDX-License-Identifier: GPL-2.0
/* mounttable.c: see mounttable.h. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common.h"
#include "mounttable.h"

void mount_table_free(struct mount_table *t)
{
	free(t->entry);
	free(t->text);
	t->entry = NULL;
	t->text = NULL;
	t->count = 0;
}

int mount_table_read(struct mount_table *t, struct error *e)
{
	size_t lines = 1;
	char *cursor, *p;
	int ret;

	t->entry = NULL;
	t->count = 0;
	ret = mountinfo_read(&t->text, e);
	if (ret < 0)
		return ret;
	for (p = t->text; *p; p++)
		lines += *p == '\n';
	t->entry = calloc(lines, sizeof(*t->entry));
	if (!t->entry) {
		mount_table_free(t);
		return error_errno(e, ENOMEM, "reading " MOUNTINFO_PATH);
	}
	cursor = t->text;
	while (t->count < lines &&
	       (ret = mountinfo_next(&cursor, &t->entry[t->count], e)) > 0)
		t->count++;
	if (ret < 0)
		mount_table_free(t);
	return ret < 0 ? ret : 0;
}

const struct mount_entry *mount_table_find(const struct mount_table *t, int id)
{
	size_t i;

	for (i = 0; i < t->count; i++)
		if (t->entry[i].id == id)
			return &t->entry[i];
	return NULL;
}

bool path_below(const char *path, const char *dir, const char **rest)
{
	size_t n = strcmp(dir, "/") ? strlen(dir) : 0;

	if (strncmp(path, dir, n) || (path[n] && path[n] != '/'))
		return false;
	/* "/" is "/" itself, not "/" with a rest "/". */
	*rest = strcmp(path, "/") ? path + n : "";
	return true;
}

void path_join(char *out, size_t size, const char *dir, const char *rest)
{
	snprintf(out, size, "%s%s", strcmp(dir, "/") || !*rest ? dir : "", rest);
}

int mount_table_locate(const struct mount_table *t, int fd, const char *canon,
		       const struct mount_entry **mount, char *fs_path,
		       size_t size, struct error *e)
{
	const struct mount_entry *m;
	struct statx stx;
	const char *rest;

	/* The mount by id, not by path: paths can be stacked over. */
	if (statx(fd, "", AT_EMPTY_PATH, STATX_MNT_ID, &stx) < 0)
		return error_errno(e, errno, "statx `%s`", canon);
	if (!(stx.stx_mask & STATX_MNT_ID))
		return error_msg(e, ENOSYS,
				 "statx `%s`: kernel reports no mount id (needs Linux 5.8 or later)",
				 canon);
	m = mount_table_find(t, (int)stx.stx_mnt_id);
	if (!m)
		return error_msg(e, ENOENT, "`%s`: its mount is not in " MOUNTINFO_PATH,
				 canon);
	if (!path_below(canon, m->mountpoint, &rest))
		return error_msg(e, EINVAL,
				 "cannot tell where `%s` lies in its filesystem: it is not below its mount's mount point `%s` in " MOUNTINFO_PATH,
				 canon, m->mountpoint);
	path_join(fs_path, size, m->root, rest);
	*mount = m;
	return 0;
}
