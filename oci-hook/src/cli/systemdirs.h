/* SPDX-License-Identifier: GPL-2.0 */
/*
 * systemdirs.h: the directories no image store may be, or be below,
 * without --force: a mark lends every file under the store to the root
 * of the delegated user namespaces (to read all of it, and with rw to
 * write there as real root).
 */
#ifndef SHIFTBIND_SYSTEMDIRS_H
#define SHIFTBIND_SYSTEMDIRS_H

#include "error.h"

/*
 * store_check_not_system: 0 when the store directory fd, reached by the
 * canonical path canon (storepath.h), is neither a system directory nor
 * below one whose whole subtree is the host's (/usr, /etc, /var/lib...),
 * by the path it was reached by and by where it lies in its filesystem:
 * a bind mount of /usr/share elsewhere is below /usr too.  Else -EPERM,
 * saying which directory, why, and what to do.
 */
int store_check_not_system(int fd, const char *canon, struct error *e);

#endif /* SHIFTBIND_SYSTEMDIRS_H */
