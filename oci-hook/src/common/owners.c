// SPDX-License-Identifier: GPL-2.0
/* owners.c: see owners.h. */
#include <ctype.h>
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
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

/*
 * add_range_uncovered: the uids of r that no owner of list covers yet,
 * as ranges of their own (a group's members beside owner= lines).
 */
static int add_range_uncovered(struct owner_list *list, const char *option,
			       const char *name, const struct owner_range *r,
			       struct error *e)
{
	uid_t uid = r->first;
	struct owner_range part;
	size_t i;

	for (;;) {
		/* Skip what a listed owner covers. */
		for (i = 0; i < list->count; i++)
			if (list->item[i].first <= uid && uid <= list->item[i].last)
				break;
		if (i < list->count) {
			if (list->item[i].last >= r->last)
				return 0;
			uid = list->item[i].last + 1;
			continue;
		}
		/* From uid up to the next listed owner's start, or r's end. */
		part.first = uid;
		part.last = r->last;
		for (i = 0; i < list->count; i++)
			if (list->item[i].first > uid && list->item[i].first <= part.last)
				part.last = list->item[i].first - 1;
		if (list->count == OWNERS_MAX)
			return error_msg(e, E2BIG,
					 "%s%.64s: its members make more than %d owners; a mark lists at most %d (give the group's users uids in one range and list it as owner=FIRST-LAST)",
					 option, name, OWNERS_MAX, OWNERS_MAX);
		list->item[list->count++] = part;
		if (part.last >= r->last)
			return 0;
		uid = part.last + 1;
	}
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

/* The uids of a group's members, growing. */
struct uid_set {
	uid_t *uid;
	size_t count, size;
};

static int uid_set_add(struct uid_set *s, uid_t uid)
{
	size_t i;

	for (i = 0; i < s->count; i++)
		if (s->uid[i] == uid)
			return 0;
	if (s->count == s->size) {
		size_t size = s->size ? 2 * s->size : 16;
		uid_t *more = realloc(s->uid, size * sizeof(*more));

		if (!more)
			return -ENOMEM;
		s->uid = more;
		s->size = size;
	}
	s->uid[s->count++] = uid;
	return 0;
}

static int uid_cmp(const void *a, const void *b)
{
	uid_t x = *(const uid_t *)a, y = *(const uid_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * group_find: name's gid and, in *members, a copy of its member list
 * (NULL-terminated, strings in one block the caller frees): 1, 0 when
 * OWNERS_GROUP has no such group, -errno.
 */
static int group_find(const char *name, gid_t *gid, char ***members)
{
	FILE *f = fopen(OWNERS_GROUP, "re");
	struct group *gr;
	size_t n, len, i;
	char **copy, *p;
	int hit = 0;

	if (!f)
		return -errno;
	while (!hit && (gr = fgetgrent(f))) {
		if (strcmp(gr->gr_name, name))
			continue;
		hit = 1;
		*gid = gr->gr_gid;
		for (n = 0, len = 0; gr->gr_mem[n]; n++)
			len += strlen(gr->gr_mem[n]) + 1;
		copy = malloc((n + 1) * sizeof(*copy) + len);
		if (!copy) {
			fclose(f);
			return -ENOMEM;
		}
		p = (char *)(copy + n + 1);
		for (i = 0; i < n; i++) {
			copy[i] = p;
			p = stpcpy(p, gr->gr_mem[i]) + 1;
		}
		copy[n] = NULL;
		*members = copy;
	}
	fclose(f);
	return hit;
}

/* The uids of /etc/passwd's users whose login group is gid, into s. */
static int login_group_users(gid_t gid, struct uid_set *s)
{
	FILE *f = fopen(OWNERS_PASSWD, "re");
	struct passwd *pw;
	int ret = 0;

	if (!f)
		return -errno;
	while (ret == 0 && (pw = fgetpwent(f)))
		if (pw->pw_gid == gid)
			ret = uid_set_add(s, pw->pw_uid);
	fclose(f);
	return ret;
}

/* The group's uids, sorted, in s. */
static int group_uids(const char *option, const char *name, struct uid_set *s,
		      struct error *e)
{
	_cleanup_free_ char **members = NULL;
	gid_t gid = 0;
	uid_t uid;
	size_t i;
	int ret = group_find(name, &gid, &members);

	if (ret < 0)
		return error_errno(e, -ret, "%s%.64s: read `" OWNERS_GROUP "`", option, name);
	if (ret == 0)
		return error_msg(e, ENOENT,
				 "%s%.64s: no such group in " OWNERS_GROUP " (groups only a directory service knows cannot be resolved at boot: list their uids as owner=FIRST-LAST)",
				 option, name);
	for (i = 0; members[i]; i++) {
		ret = passwd_find(members[i], &uid, NULL, NULL, 0);
		if (ret < 0)
			return error_errno(e, -ret, "%s%.64s: read `" OWNERS_PASSWD "`", option, name);
		if (ret == 0)
			return error_msg(e, ENOENT,
					 "%s%.64s: member %.64s has no entry in " OWNERS_PASSWD " (give its uid with owner=UID, or remove it from the group)",
					 option, name, members[i]);
		ret = uid_set_add(s, uid);
		if (ret < 0)
			return error_errno(e, -ret, "%s%.64s", option, name);
	}
	ret = login_group_users(gid, s);
	if (ret < 0)
		return error_errno(e, -ret, "%s%.64s: read `" OWNERS_PASSWD "`", option, name);
	qsort(s->uid, s->count, sizeof(*s->uid), uid_cmp);
	return 0;
}

int owner_list_add_group(struct owner_list *list, const char *option,
			 const char *name, struct error *e)
{
	struct uid_set s = { NULL, 0, 0 };
	struct owner_list out = *list;
	struct owner_range r;
	size_t i, j;
	int ret;

	if (!name[0])
		return error_msg(e, EINVAL, "%s\"\": an empty group name", option);
	ret = group_uids(option, name, &s, e);
	for (i = 0; ret == 0 && i < s.count; i = j) {
		/* The run of consecutive uids from s.uid[i] on, as one range. */
		for (j = i + 1; j < s.count && s.uid[j] == s.uid[j - 1] + 1; j++)
			;
		r.first = s.uid[i];
		r.last = s.uid[j - 1];
		ret = add_range_uncovered(&out, option, name, &r, e);
	}
	free(s.uid);
	if (ret == 0)
		*list = out;
	return ret;
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
