/* SPDX-License-Identifier: GPL-2.0 */
/*
 * store.h: marking image stores allow-shift (shiftbind allow,
 * shiftbind apply-config).  Real root, host mount namespace.
 */
#ifndef SHIFTBIND_STORE_H
#define SHIFTBIND_STORE_H

#include <stdio.h>

#include "error.h"

/*
 * allow_store: mark the store at path allow-shift with flags (enum
 * mark_flags), binding it onto itself first when it is no mount root;
 * that bind is undone if marking fails.  Refuses "/", and says so when
 * the kernel has no configfd.  Reports what it did on report.
 */
int allow_store(const char *path, unsigned int flags, FILE *report,
		struct error *e);

/*
 * apply_config: mark every store listed in file.  A bad file marks
 * nothing; a store that fails is reported on report and the others are
 * still marked; the error then counts the failures.
 */
int apply_config(const char *file, FILE *report, struct error *e);

#endif /* SHIFTBIND_STORE_H */
