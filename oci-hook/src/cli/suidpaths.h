/* SPDX-License-Identifier: GPL-2.0 */
/*
 * suidpaths.h: whether a host path lets local users run a store's
 * set-ID programs with host privilege, marked or not.
 */
#ifndef SHIFTBIND_SUIDPATHS_H
#define SHIFTBIND_SUIDPATHS_H

#include "error.h"

/*
 * store_check_nosuid_paths: 0 when every mount of the store's
 * filesystem that reaches its directory (fd, canonical path canon) by a
 * path in this mount namespace is nosuid, not counting the store's own
 * allow-shift binds (`shiftbind allow` makes them nosuid, and disallow
 * and umount remove them).  Else -EPERM, naming the path, the mount and
 * the remedy.
 */
int store_check_nosuid_paths(int fd, const char *canon, struct error *e);

#endif /* SHIFTBIND_SUIDPATHS_H */
