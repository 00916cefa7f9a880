// SPDX-License-Identifier: GPL-2.0
/* mountinfo.c: see mountinfo.h. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "fileio.h"
#include "mountinfo.h"

/* The kernel's show_mountinfo escapes " \t\n\\" as \ooo (mangle()). */
static void unescape(char *s)
{
	char *out = s;

	while (*s) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' &&
		    s[2] >= '0' && s[2] <= '7' && s[3] >= '0' && s[3] <= '7') {
			*out++ = (char)(((s[1] - '0') << 6) | ((s[2] - '0') << 3) |
					(s[3] - '0'));
			s += 4;
		} else {
			*out++ = *s++;
		}
	}
	*out = '\0';
}

/*
 * The next field, NUL-terminated in place; NULL past the last one.  The
 * kernel separates fields by exactly one space and a field may be empty:
 * a mount made with an empty source ("mount("", dir, "tmpfs")", common
 * from Go programs) shows as "... - tmpfs  rw".  Spaces inside a field
 * are escaped (\040), so every space is a separator.
 */
static char *next_field(char **p)
{
	char *f = *p;
	size_t n;

	if (!f)
		return NULL;
	n = strcspn(f, " ");
	if (f[n]) {
		f[n] = '\0';
		*p = f + n + 1;
	} else {
		*p = NULL;
	}
	return f;
}

static int parse_int(const char *s, int *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < 0 || v > INT_MAX)
		return -EINVAL;
	*out = (int)v;
	return 0;
}

int mountinfo_parse_line(char *line, struct mount_entry *m)
{
	char *p = line, *id, *parent, *root, *mountpoint, *source, *f;

	id = next_field(&p);
	parent = next_field(&p);
	if (!id || !parent || parse_int(id, &m->id) || parse_int(parent, &m->parent))
		return -EINVAL;
	m->dev = next_field(&p);	/* major:minor */
	if (!m->dev)
		return -EINVAL;
	root = next_field(&p);
	mountpoint = next_field(&p);
	m->options = next_field(&p);
	if (!m->options)
		return -EINVAL;
	/* Optional fields (shared:N, master:N...) up to the "-" separator. */
	do {
		f = next_field(&p);
	} while (f && strcmp(f, "-"));
	if (!f)
		return -EINVAL;
	m->fstype = next_field(&p);
	source = next_field(&p);
	m->super_options = next_field(&p);
	if (!m->fstype || !source || !m->super_options)
		return -EINVAL;
	unescape(root);
	unescape(mountpoint);
	unescape(source);
	m->root = root;
	m->mountpoint = mountpoint;
	m->source = source;
	return 0;
}

/*
 * The option name or name=VALUE among options: true, with *value and
 * *len set to VALUE (NULL and 0 for a bare name).
 */
static bool find_option(const char *options, const char *name,
			const char **value, size_t *len)
{
	size_t nlen = strlen(name);
	const char *p = options;

	while (*p) {
		size_t n = strcspn(p, ",");

		if (n >= nlen && !memcmp(p, name, nlen) &&
		    (n == nlen || p[nlen] == '=')) {
			*value = n == nlen ? NULL : p + nlen + 1;
			*len = n == nlen ? 0 : n - nlen - 1;
			return true;
		}
		p += n;
		if (*p == ',')
			p++;
	}
	return false;
}

bool mount_has_option(const char *options, const char *opt)
{
	const char *value;
	size_t len;

	return find_option(options, opt, &value, &len) && !value;
}

bool mount_allow_shift(const struct mount_entry *m, const char **owners,
		       size_t *len)
{
	const char *value;
	size_t n;

	if (!find_option(m->options, "allow-shift", &value, &n) &&
	    !find_option(m->super_options, "allow-shift", &value, &n))
		return false;
	if (owners) {
		*owners = value;
		*len = n;
	}
	return true;
}

int mountinfo_next(char **cursor, struct mount_entry *m, struct error *e)
{
	char *line = *cursor;
	char shown[129];
	size_t n;

	if (!*line)
		return 0;
	n = strcspn(line, "\n");
	*cursor = line[n] ? line + n + 1 : line + n;
	line[n] = '\0';
	/* Parsing cuts the line into fields: keep it whole for the message. */
	snprintf(shown, sizeof(shown), "%s", line);
	if (mountinfo_parse_line(line, m) < 0)
		return error_msg(e, EINVAL, MOUNTINFO_PATH ": malformed line \"%s\"",
				 shown);
	return 1;
}

int mountinfo_read(char **text, struct error *e)
{
	size_t len;

	return read_regular_file_at(AT_FDCWD, MOUNTINFO_PATH, MOUNTINFO_PATH,
				    FOLLOW_SYMLINKS, MOUNTINFO_MAX, text, &len, e);
}
