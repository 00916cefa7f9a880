/* SPDX-License-Identifier: GPL-2.0 */
/*
 * allowconf.h: the persistent list of stores to mark allow-shift at boot
 * (/etc/shiftbind/allow.conf, applied by `shiftbind apply-config`).
 *
 *   # comment
 *   PATH [rw] [suid] [force] [owner=WHO]...
 *
 * One store per line: an absolute path, then words separated by blanks,
 * the same as the options of `shiftbind allow`: rw, suid and force at
 * most once each, owner=WHO (owners.h) up to 16 times.  "#" starts a
 * comment at the start of a line or after a blank.  Paths cannot
 * contain blanks.
 *
 * Each line stands alone: a bad one (an unknown word or owner, a path
 * that is not absolute, a NUL byte) is refused with its reason and the
 * others are still applied, so that one stale owner does not leave every
 * store of the file unmarked at boot.  A store listed on two lines or
 * more (compared as plain paths: /srv/x, /srv//x, /srv/./x and /srv/x/
 * are one store) is marked by none of them: each says which others list
 * it.  The whole file is parsed before anything is marked.
 */
#ifndef SHIFTBIND_ALLOWCONF_H
#define SHIFTBIND_ALLOWCONF_H

#include <stdbool.h>
#include <stddef.h>

#include "error.h"
#include "marks.h"

#define ALLOW_CONF_MAX (1024 * 1024)

struct allow_entry {
	char *path;		/* plain: no empty or "." component */
	char *written;		/* the path as written, if it differs */
	struct mark mark;	/* rw, suid, the owners */
	bool force;		/* may be a system directory */
	size_t line;
	/*
	 * Why the line is refused (no "file:line: " prefix), or NULL.  path
	 * may be set even then (NULL when it was not an absolute path),
	 * mark and force are not.
	 */
	char *error;
};

struct allow_list {
	struct allow_entry *entry;
	size_t count;
};

/*
 * allowconf_parse: one entry in list for every line of the len bytes of
 * text that is neither blank nor a comment, in order: a store, or a
 * refused line with its error.  Fails (and fills e, naming file) only
 * for lack of memory.
 */
int allowconf_parse(const char *text, size_t len, const char *file,
		    struct allow_list *list, struct error *e);
void allow_list_free(struct allow_list *list);

#endif /* SHIFTBIND_ALLOWCONF_H */
