/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mountinfo.h: /proc/<pid>/mountinfo, parsed in place.
 *
 *   36 35 98:0 /mnt1 /mnt2 rw,noatime,allow-shift master:1 - ext3 /dev/root rw
 *   (1)(2)(3)   (4)   (5)      (6)                  (7)   (8) (9)   (10)   (11)
 *
 * The shiftbind kernel shows its marks among the options:
 * allow-shift=OWNERS on a store an administrator delegated (OWNERS:
 * ":"-separated uids and ranges FIRST-LAST, in the reader's user
 * namespace; kernels before issue 14 show a plain allow-shift, for every
 * user namespace), shift (and 6.1's idmapped) on a shifted bind.
 */
#ifndef SHIFTBIND_MOUNTINFO_H
#define SHIFTBIND_MOUNTINFO_H

#include <stdbool.h>
#include <stddef.h>

#include "error.h"

#define MOUNTINFO_PATH	"/proc/self/mountinfo"
/* Thousands of mounts fit; a bound keeps a hostile mount storm finite. */
#define MOUNTINFO_MAX	(16 * 1024 * 1024)

struct mount_entry {
	int id;
	int parent;
	const char *dev;	/* the filesystem's major:minor */
	const char *root;	/* fields unescaped (\040 is a space) */
	const char *mountpoint;
	const char *options;	/* per-mount options */
	const char *fstype;
	const char *source;
	const char *super_options;
};

/*
 * mountinfo_parse_line: split one line (no newline) in place.  Returns
 * 0, or -EINVAL when it does not have mountinfo's shape.
 */
int mountinfo_parse_line(char *line, struct mount_entry *m);

/* mount_has_option: opt is one of the comma-separated options. */
bool mount_has_option(const char *options, const char *opt);

/*
 * mount_allow_shift: m carries the allow-shift mark (per-mount or
 * superblock options).  *owners, when owners is not NULL, is then the
 * mark's owner list (*len bytes, inside m's options, not terminated),
 * or NULL for the plain mark of earlier kernels.
 */
bool mount_allow_shift(const struct mount_entry *m, const char **owners,
		       size_t *len);

/*
 * mountinfo_next: the next entry of text (modified in place; *cursor
 * starts at text).  Returns 1 with *m set, 0 at the end, or -EINVAL
 * with a message naming the line.
 */
int mountinfo_next(char **cursor, struct mount_entry *m, struct error *e);

/* mountinfo_read: /proc/self/mountinfo, whole, NUL-terminated. */
int mountinfo_read(char **text, struct error *e);

#endif /* SHIFTBIND_MOUNTINFO_H */
