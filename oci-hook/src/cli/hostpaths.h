/* SPDX-License-Identifier: GPL-2.0 */
/*
 * hostpaths.h: whether a host path to a store, marked or not, lets local
 * users run its set-ID programs with host privilege or open its device
 * nodes.
 */
#ifndef SHIFTBIND_HOSTPATHS_H
#define SHIFTBIND_HOSTPATHS_H

#include <stdbool.h>

#include "error.h"

/*
 * store_check_host_paths: 0 when every mount of the store's filesystem
 * that reaches its directory (fd, canonical path canon) by a path in
 * this mount namespace is nodev, and nosuid unless suid_accepted (the
 * administrator's --suid-host), not counting the store's own
 * allow-shift binds (`shiftbind allow` makes them nodev and, without
 * --suid-host, nosuid; disallow and umount remove them).  Else -EPERM,
 * naming the path, the mount and the remedy.
 */
int store_check_host_paths(int fd, const char *canon, bool suid_accepted,
			   struct error *e);

#endif /* SHIFTBIND_HOSTPATHS_H */
