/* SPDX-License-Identifier: GPL-2.0 */
/*
 * owners.h: the subject of an allow-shift mark, the owners (uids) whose
 * user namespaces the mark delegates to.  `shiftbind allow --owner WHO`
 * and `owner=WHO` in allow.conf, where WHO is
 *
 *   UID          a decimal uid
 *   FIRST-LAST   a range of uids, both ends included
 *   NAME         a user of /etc/passwd
 *
 * The kernel takes each as one "owner" string of the mark ("UID" or
 * "FIRST-LAST", in the caller's user namespace), at most OWNERS_MAX.
 */
#ifndef SHIFTBIND_OWNERS_H
#define SHIFTBIND_OWNERS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "error.h"

/* The kernel's limit of owners per mark. */
#define OWNERS_MAX	16
/*
 * Names are read from this file, not through NSS: the CLI is a static
 * binary (glibc's NSS would need the shared libraries of its build), and
 * apply-config runs at boot, before any network directory answers.
 */
#define OWNERS_PASSWD	"/etc/passwd"
/* Groups (owner_list_add_group), read from the file likewise. */
#define OWNERS_GROUP	"/etc/group"

/*
 * passwd_find: the OWNERS_PASSWD entry named name or, name NULL, with
 * uid *uid: 1 with *uid, *gid (gid may be NULL) and found (its name; may
 * be NULL) set, 0 if there is none, -errno when the file cannot be read.
 * The file itself, not NSS: the binaries are static.
 */
int passwd_find(const char *name, uid_t *uid, gid_t *gid, char *found,
		size_t size);
/* "4294967294-4294967294" and its NUL. */
#define OWNER_TEXT_MAX	24

struct owner_range {
	uid_t first;
	uid_t last;	/* == first for one uid */
};

struct owner_list {
	struct owner_range item[OWNERS_MAX];
	size_t count;	/* 0: the kernel's default, real root's namespaces */
};

/*
 * owner_list_add: parse who and append it.  Refuses a malformed uid or
 * range, an unknown name, an entry that overlaps one already listed and
 * a seventeenth entry, each with a message that starts with option and
 * who, as the user wrote them ("--owner bob", "owner=bob").
 */
int owner_list_add(struct owner_list *list, const char *option, const char *who,
		   struct error *e);

/*
 * owner_list_add_group: the members of group name at this moment, added
 * as owners: the users /etc/group lists as its members and those of
 * /etc/passwd whose login group it is, their uids sorted and consecutive
 * ones joined into ranges (each range one of the OWNERS_MAX).  A uid
 * listed already (an owner= of the same line, another group) is left
 * out, not refused: a group is a set.  Refuses an unknown group, a
 * member /etc/passwd does not list and more owners than a mark takes,
 * with a message that starts with option and name ("group=hpc").  A
 * group without members adds nothing.  The mark keeps uids, not the
 * group: a change of membership counts only once the store is marked
 * again (shiftbind apply-config; shiftbind-allow-refresh.path does it
 * when /etc/group or /etc/passwd changes).
 */
int owner_list_add_group(struct owner_list *list, const char *option,
			 const char *name, struct error *e);

/* owner_format: "1001" or "100000-165535", as the kernel takes it. */
void owner_format(const struct owner_range *r, char *buf, size_t size);

/*
 * owner_list_describe: the owners for a person, "uid 0 (root), uids
 * 100000-165535", into buf (cut if it does not fit).
 */
void owner_list_describe(const struct owner_list *list, char *buf, size_t size);

/* owner_list_has: uid is one of the owners. */
bool owner_list_has(const struct owner_list *list, uid_t uid);

#endif /* SHIFTBIND_OWNERS_H */
