/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mounts.h: what the kernel says about the mount an fd is on, from
 * statx(2) and /proc/self/mountinfo (so: in the caller's current mount
 * namespace).
 */
#ifndef SHIFTBIND_MOUNTS_H
#define SHIFTBIND_MOUNTS_H

#include <stdbool.h>

#include "error.h"

struct mount_facts {
	int mnt_id;
	bool mount_root;	/* fd is the root of its mount */
	bool allow_shift;	/* carries the allow-shift mark */
	bool shifted;		/* shift or idmapped */
	bool fs_root;		/* fd is the root of its mount and of its filesystem */
};

/* The per-mount options that say a mount is already shifted. */
bool mount_options_shifted(const char *options);

/* mount_facts_of: facts about the mount fd (any fd, O_PATH is enough) is on. */
int mount_facts_of(int fd, const char *display, struct mount_facts *out,
		   struct error *e);

#endif /* SHIFTBIND_MOUNTS_H */
