/* SPDX-License-Identifier: GPL-2.0 */
/*
 * status.h: the mounts shiftbind cares about, from mountinfo: stores
 * marked allow-shift and shifted binds (shiftbind status).
 */
#ifndef SHIFTBIND_STATUS_H
#define SHIFTBIND_STATUS_H

#include <stdbool.h>
#include <stdio.h>

#include "error.h"

/*
 * status_print: list the mounts of mountinfo (text, modified in place)
 * whose options carry allow-shift, shift or idmapped, at or below under
 * (NULL: all), as a table or as JSON ({"mounts": [...]}) on out.
 */
int status_print(char *mountinfo, const char *under, bool json, FILE *out,
		 struct error *e);

#endif /* SHIFTBIND_STATUS_H */
