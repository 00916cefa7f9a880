/* SPDX-License-Identifier: GPL-2.0 */
/*
 * patch.h: register the hook in a bundle's config.json (shiftbind
 * patch-config), for runtimes like crun that read no hooks directory.
 */
#ifndef SHIFTBIND_PATCH_H
#define SHIFTBIND_PATCH_H

#include <stdbool.h>
#include <stdio.h>

#include "error.h"

/* Seconds; the runtime kills a hook that takes longer. */
#define HOOK_TIMEOUT 10

/*
 * patch_config: make <bundle>/config.json run hook_path at createRuntime
 * (rootful) or createContainer (rootless), and at none of the other two
 * of createRuntime, createContainer and prestart (an old bundle's
 * prestart entry moves).
 * The bundle is opened as bundle_open() (storepath.h) says, through no
 * link and below no directory another user could change, and
 * config.json read and written through that directory alone.
 * Idempotent: a config.json that already says so is not rewritten.
 * Otherwise it is replaced atomically (temporary file, rename), with
 * every other member kept in its order; a config.json with a duplicate
 * key in any object is refused, since all of it is written back, and so
 * is a hook entry it would keep that the runtime cannot run (no path,
 * a path not absolute, args or env not all strings, a timeout not an
 * integer above 0), named by stage and index.  Notes
 * on report what it did, and mount targets missing from the rootfs (see
 * shiftbind prepare-image).
 */
int patch_config(const char *bundle, const char *hook_path, bool rootless,
		 FILE *report, struct error *e);

#endif /* SHIFTBIND_PATCH_H */
