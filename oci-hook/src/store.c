// SPDX-License-Identifier: GPL-2.0
/* store.c: see store.h. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "allowconf.h"
#include "common.h"
#include "configfd.h"
#include "fileio.h"
#include "kernel.h"
#include "mounts.h"
#include "privileged.h"
#include "store.h"

static int open_store(const char *path, int *fd, struct mount_facts *facts,
		      struct error *e)
{
	*fd = open(path, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (*fd < 0)
		return error_errno(e, errno, "open `%s`", path);
	return mount_facts_of(*fd, path, facts, e);
}

int allow_store(const char *path, unsigned int flags, FILE *report,
		struct error *e)
{
	_cleanup_close_ int fd = -1;
	char real[PATH_MAX], shown[32];
	struct mount_facts facts;
	bool bound = false;
	int ret;

	/* mountinfo and the self-bind speak of the canonical path. */
	if (!realpath(path, real))
		return error_errno(e, errno, "resolve `%s`", path);
	if (!strcmp(real, "/"))
		return error_msg(e, EINVAL,
				 "refusing to mark / allow-shift: that would delegate the whole file system; mark the image store");
	ret = kernel_check_configfd(configfd_probe(), e);
	if (ret == 0)
		ret = open_store(real, &fd, &facts, e);
	if (ret == 0 && !facts.mount_root) {
		closep(&fd);
		ret = bind_onto_itself(real, e);
		bound = ret == 0;
		if (ret == 0)
			ret = open_store(real, &fd, &facts, e);
	}
	if (ret == 0)
		ret = mark_allow_shift(fd, real, flags, e);
	if (ret < 0) {
		if (bound)
			undo_bind(real);
		return ret;
	}
	mark_flags_format(flags, shown, sizeof(shown));
	fprintf(report, "marked %s allow-shift%s%s%s\n", real, shown[0] ? " (" : "",
		shown, shown[0] ? ")" : "");
	return 0;
}

int apply_config(const char *file, FILE *report, struct error *e)
{
	_cleanup_free_ char *text = NULL;
	struct allow_list list = { NULL, 0 };
	size_t i, len, failed = 0;
	int ret;

	ret = read_regular_file_at(AT_FDCWD, file, file, FOLLOW_SYMLINKS,
				   ALLOW_CONF_MAX, &text, &len, e);
	if (ret == 0)
		ret = allowconf_parse(text, file, &list, e);
	if (ret < 0)
		return ret;
	/* A batch: one store's failure is reported here and the rest go on. */
	for (i = 0; i < list.count; i++) {
		struct error one = { 0, "" };

		if (allow_store(list.entry[i].path, list.entry[i].flags, report,
				&one) < 0) {
			fprintf(stderr, "shiftbind: %s:%zu: %s\n", file,
				list.entry[i].line, one.msg);
			failed++;
		}
	}
	if (list.count == 0)
		fprintf(report, "%s: no stores listed\n", file);
	ret = failed ? error_msg(e, EIO, "%s: %zu of %zu stores could not be marked",
				 file, failed, list.count) : 0;
	allow_list_free(&list);
	return ret;
}
