/* SPDX-License-Identifier: GPL-2.0 */
/*
 * store.h: marking image stores allow-shift and withdrawing the mark
 * (shiftbind allow, shiftbind apply-config, shiftbind disallow).  Real
 * root, host mount namespace.
 */
#ifndef SHIFTBIND_STORE_H
#define SHIFTBIND_STORE_H

#include <stdbool.h>
#include <stdio.h>

#include "error.h"
#include "marks.h"

/*
 * allow_store: mark the store at path as m says.  The path is resolved
 * once, without following links (storepath.h), and refused when a
 * directory on the way is not root's or is writable by others, or
 * (unless force) when it is a system directory, below one or a bind of
 * either (systemdirs.h); all of that before the kernel is asked
 * anything.  The directory opened is then marked in
 * place when it is a mount root, or through a marked bind of itself
 * moved onto it; a failure leaves nothing mounted.  Reports on report
 * what it delegated to whom.
 */
int allow_store(const char *path, const struct mark *m, bool force,
		FILE *report, struct error *e);

/*
 * disallow_store: withdraw the mark of the store at path (resolved as
 * allow_store resolves it), which must be a marked mount root.
 */
int disallow_store(const char *path, bool revoke, FILE *report,
		   struct error *e);

/*
 * apply_config: mark every store listed in file, each line on its own:
 * a bad line (allowconf.h) or a store that cannot be marked is said on
 * stderr with file:line and its reason, and the other lines are still
 * applied; the error then names the lines that failed.  Only a file that
 * cannot be read marks nothing.
 */
int apply_config(const char *file, FILE *report, struct error *e);

#endif /* SHIFTBIND_STORE_H */
