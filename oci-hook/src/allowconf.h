/* SPDX-License-Identifier: GPL-2.0 */
/*
 * allowconf.h: the persistent list of stores to mark allow-shift at boot
 * (/etc/shiftbind/allow.conf, applied by `shiftbind apply-config`).
 *
 *   # comment
 *   PATH [ro] [nosuid]
 *
 * One store per line: an absolute path, then options separated by
 * blanks.  "#" starts a comment at the start of a line or after a blank.
 * Paths cannot contain blanks.
 */
#ifndef SHIFTBIND_ALLOWCONF_H
#define SHIFTBIND_ALLOWCONF_H

#include <stddef.h>

#include "error.h"

#define ALLOW_CONF_MAX (1024 * 1024)

struct allow_entry {
	char *path;
	unsigned int flags;	/* enum mark_flags */
	size_t line;
};

struct allow_list {
	struct allow_entry *entry;
	size_t count;
};

/* allowconf_parse: text of file; any bad line refuses the whole file. */
int allowconf_parse(const char *text, const char *file, struct allow_list *list,
		    struct error *e);
void allow_list_free(struct allow_list *list);

/* "ro,nosuid" for flags, into buf ("" for none). */
void mark_flags_format(unsigned int flags, char *buf, size_t size);

#endif /* SHIFTBIND_ALLOWCONF_H */
