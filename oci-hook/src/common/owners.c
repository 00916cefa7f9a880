// SPDX-License-Identifier: GPL-2.0
/* owners.c: see owners.h. */
#include <ctype.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "common.h"
#include "fileio.h"
#include "owners.h"

/* Far above any site's /etc/passwd (100k users take some 8 MB). */
#define PASSWD_MAX	(64 * 1024 * 1024)

/* (uid_t)-1 means "no uid" to the kernel (chown's "leave it"). */
#define UID_LAST	4294967294UL

/* Decimal digits up to the first byte not one, as a uid; *end after them. */
static int parse_uid(const char *s, const char **end, uid_t *uid)
{
	unsigned long long v = 0;
	const char *p = s;

	for (; isdigit((unsigned char)*p); p++) {
		v = v * 10 + (unsigned long long)(*p - '0');
		if (v > UID_LAST)
			return -ERANGE;
	}
	*end = p;
	if (p == s)
		return -EINVAL;
	*uid = (uid_t)v;
	return 0;
}

/*
 * The next field of a passwd line, split at ':' in place; NULL past
 * the last.  *rest moves on.
 */
static char *passwd_field(char **rest)
{
	char *f = *rest, *colon;

	if (!f)
		return NULL;
	colon = strchr(f, ':');
	if (colon)
		*colon = '\0';
	*rest = colon ? colon + 1 : NULL;
	return f;
}

/* A decimal id that is the whole field. */
static bool passwd_id(const char *field, uid_t *id)
{
	const char *end;

	return field && parse_uid(field, &end, id) == 0 && *end == '\0';
}

/*
 * One line "name:password:uid:gid:...", split in place: false for a
 * line that is no entry (too few fields, an id that is no number),
 * which glibc's fgetpwent(3) skips too.
 */
static bool passwd_entry(char *line, const char **name, uid_t *uid,
			 gid_t *gid)
{
	char *rest = line;

	*name = passwd_field(&rest);
	(void)passwd_field(&rest);
	return passwd_id(passwd_field(&rest), uid) &&
	       passwd_id(passwd_field(&rest), gid);
}

/*
 * The file read whole and split by hand rather than with fgetpwent(3):
 * the hook looks its parser's user up at every container start, and
 * stdio's and NSS's parsing code is translated afresh each time under
 * TCG (docs/benchmarks.md).
 */
int passwd_find(const char *name, uid_t *uid, gid_t *gid, char *found,
		size_t size)
{
	_cleanup_free_ char *text = NULL;
	struct error ignored = { 0, "" };
	char *line, *next;
	size_t len;
	int ret;

	ret = read_regular_file_at(AT_FDCWD, OWNERS_PASSWD, OWNERS_PASSWD,
				   FOLLOW_SYMLINKS, PASSWD_MAX, &text, &len, &ignored);
	if (ret < 0)
		return ret;
	for (line = text; line; line = next) {
		const char *entry;
		uid_t u;
		gid_t g;

		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		if (!passwd_entry(line, &entry, &u, &g))
			continue;
		if (name ? strcmp(entry, name) : u != *uid)
			continue;
		*uid = u;
		if (gid)
			*gid = g;
		if (found)
			snprintf(found, size, "%s", entry);
		return 1;
	}
	return 0;
}

/* "UID" or "FIRST-LAST": what starts with a digit is never a name. */
static int parse_numeric(const char *option, const char *who,
			 struct owner_range *r, struct error *e)
{
	const char *p;
	int ret = parse_uid(who, &p, &r->first);

	if (ret == 0)
		r->last = r->first;
	if (ret == 0 && *p == '-')
		ret = parse_uid(p + 1, &p, &r->last);
	if (ret == -ERANGE)
		return error_msg(e, ERANGE, "%s%.64s: uid out of range (0 to %lu)",
				 option, who, UID_LAST);
	if (ret < 0 || *p)
		return error_msg(e, EINVAL,
				 "%s%.64s: not a uid, a range FIRST-LAST or a user name",
				 option, who);
	if (r->last < r->first)
		return error_msg(e, EINVAL,
				 "%s%.64s: the range ends before it starts (write FIRST-LAST, FIRST <= LAST)",
				 option, who);
	return 0;
}

static int parse_name(const char *option, const char *who,
		      struct owner_range *r, struct error *e)
{
	char name[256];
	int ret = passwd_find(who, &r->first, NULL, name, sizeof(name));

	if (ret < 0)
		return error_errno(e, -ret, "%s%.64s: read `" OWNERS_PASSWD "`", option, who);
	if (ret == 0)
		return error_msg(e, ENOENT,
				 "%s%.64s: no such user in " OWNERS_PASSWD " (give a uid or a range FIRST-LAST for users it does not list)",
				 option, who);
	r->last = r->first;
	return 0;
}

static bool overlap(const struct owner_range *a, const struct owner_range *b)
{
	return a->first <= b->last && b->first <= a->last;
}

int owner_list_add(struct owner_list *list, const char *option, const char *who,
		   struct error *e)
{
	struct owner_range r = { 0, 0 };
	char shown[OWNER_TEXT_MAX];
	size_t i;
	int ret;

	if (!who[0])
		return error_msg(e, EINVAL, "%s\"\": an empty owner; give a uid, a range FIRST-LAST or a user name",
				 option);
	ret = isdigit((unsigned char)who[0]) ? parse_numeric(option, who, &r, e) :
					       parse_name(option, who, &r, e);
	if (ret < 0)
		return ret;
	if (list->count == OWNERS_MAX)
		return error_msg(e, E2BIG,
				 "%s%.64s: more than %d owners; a mark lists at most %d (join uids into ranges FIRST-LAST)",
				 option, who, OWNERS_MAX, OWNERS_MAX);
	for (i = 0; i < list->count; i++) {
		if (!overlap(&r, &list->item[i]))
			continue;
		owner_format(&list->item[i], shown, sizeof(shown));
		return error_msg(e, EINVAL,
				 "%s%.64s: overlaps %s, given before: list each uid once",
				 option, who, shown);
	}
	list->item[list->count++] = r;
	return 0;
}

void owner_format(const struct owner_range *r, char *buf, size_t size)
{
	if (r->first == r->last)
		snprintf(buf, size, "%u", (unsigned int)r->first);
	else
		snprintf(buf, size, "%u-%u", (unsigned int)r->first,
			 (unsigned int)r->last);
}

/* "uid 1001 (tester)", "uid 4242" or "uids 100000-165535". */
static void describe_one(const struct owner_range *r, char *buf, size_t size)
{
	char name[256];
	uid_t uid = r->first;

	if (r->first != r->last)
		snprintf(buf, size, "uids %u-%u", (unsigned int)r->first,
			 (unsigned int)r->last);
	else if (passwd_find(NULL, &uid, NULL, name, sizeof(name)) > 0)
		snprintf(buf, size, "uid %u (%s)", (unsigned int)uid, name);
	else
		snprintf(buf, size, "uid %u", (unsigned int)uid);
}

void owner_list_describe(const struct owner_list *list, char *buf, size_t size)
{
	char one[300];
	size_t i, len = 0;

	if (size == 0)
		return;
	buf[0] = '\0';
	for (i = 0; i < list->count && len < size; i++) {
		int n;

		describe_one(&list->item[i], one, sizeof(one));
		n = snprintf(buf + len, size - len, "%s%s", i ? ", " : "", one);
		if (n < 0)
			return;
		len += (size_t)n;
	}
}

bool owner_list_has(const struct owner_list *list, uid_t uid)
{
	size_t i;

	for (i = 0; i < list->count; i++)
		if (list->item[i].first <= uid && uid <= list->item[i].last)
			return true;
	return false;
}
