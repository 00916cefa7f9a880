// SPDX-License-Identifier: GPL-2.0
/* store.c: see store.h. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <fcntl.h>
#include <limits.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "allowconf.h"
#include "common.h"
#include "configfd.h"
#include "fileio.h"
#include "kernel.h"
#include "mounts.h"
#include "podman.h"
#include "marks.h"
#include "store.h"
#include "storepath.h"
#include "hostpaths.h"
#include "systemdirs.h"

/*
 * The checked directory fd: marked in place when it is a mount root,
 * else through a marked bind of itself moved onto itself.  The bind is
 * detached until the move, so a failure at any step leaves nothing.
 */
static int mark_store(int fd, const char *canon, const struct mark *m,
		      struct error *e)
{
	_cleanup_close_ int bindfd = -1;
	struct mount_facts facts;
	int ret = mount_facts_of(fd, canon, &facts, e);

	if (ret < 0)
		return ret;
	if (facts.mount_root)
		return mark_mount(fd, canon, m, e);
	ret = create_marked_bind(fd, canon, m, &bindfd, e);
	if (ret < 0)
		return ret;
	return attach_mount_at(bindfd, fd, canon, e);
}

/* What the mark hands out, and to whom, in words. */
static void report_mark(FILE *report, const char *canon, const struct mark *m)
{
	bool rw = m->flags & MARK_WRITABLE, suid = m->flags & MARK_SUID;
	bool suid_host = m->flags & MARK_SUID_HOST;
	char owners[1024];

	fprintf(report, "marked %s allow-shift, %s, %s%s\n", canon,
		rw ? "read-write" : "read-only", suid_host ? "suid" : "nosuid",
		suid ? ", shift-suid" : "");
	if (m->owners.count == 0) {
		fprintf(report, "delegated to user namespaces created by real root (uid 0) only: rootful containers\n");
	} else {
		owner_list_describe(&m->owners, owners, sizeof(owners));
		fprintf(report, "delegated to user namespaces created by %s\n", owners);
		if (!owner_list_has(&m->owners, 0))
			fprintf(report, "not delegated to real root's own user namespaces (rootful containers): list owner 0 for them\n");
	}
	fprintf(report, "root in those namespaces may shift binds of %s: its containers read every file there as its owner, ",
		canon);
	if (rw)
		fprintf(report, "and write there as real root (what they create is owned by uid 0 on disk)");
	else
		fprintf(report, "and cannot write there (read-only)");
	fprintf(report, "; set-user-ID and set-group-ID bits are %s in its containers' shifts, and %s on the host path; device nodes open in neither (nodev)\n",
		suid ? "honoured (shift-suid: as the container's root)" : "ignored",
		suid_host ? "honoured (suid-host: as real root, for every local user)" :
			    "ignored (nosuid)");
}

#define PROTECTED_HARDLINKS "/proc/sys/fs/protected_hardlinks"

/*
 * A read-write shift writes as real root through names, not inodes: a
 * hard link into the store lets it rewrite the file outside.  With
 * fs.protected_hardlinks at 0 any local user can link real root's files
 * into the store, so a read-write mark is refused there.
 */
static int check_hardlinks_protected(const char *canon, struct error *e)
{
	_cleanup_free_ char *text = NULL;
	size_t len;
	int ret;

	ret = read_regular_file_at(AT_FDCWD, PROTECTED_HARDLINKS,
				   PROTECTED_HARDLINKS, FOLLOW_SYMLINKS, 16,
				   &text, &len, e);
	if (ret < 0)
		return error_context(e, "refusing to mark `%s` read-write: cannot tell whether hard links are protected",
				     canon);
	if (text[0] != '0')
		return 0;
	return error_msg(e, EPERM,
			 "refusing to mark `%s` read-write: fs.protected_hardlinks is 0, so any local user can hard-link real root's files into the store and a read-write shift would rewrite them; run `sysctl fs.protected_hardlinks=1` first (and set it in /etc/sysctl.d)",
			 canon);
}

/*
 * What a read-write shift costs the host: its writes are charged to uid
 * 0 (no user quota applies) and may use the blocks a filesystem keeps for
 * root.  Bounded when the store is a filesystem of its own, or under an
 * ext4/xfs project quota; said otherwise.
 */
static void warn_unbounded_writes(int fd, const char *canon, FILE *report)
{
	_cleanup_close_ int dirfd = -1;
	struct mount_facts facts;
	struct error ignored;
	struct fsxattr fsx;

	/* A fact that cannot be had counts as not bounded: say so. */
	if (mount_facts_of(fd, canon, &facts, &ignored) == 0 && facts.fs_root)
		return;
	/* The ioctl needs an open directory, not the checked O_PATH fd. */
	dirfd = openat(fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dirfd >= 0 && ioctl(dirfd, FS_IOC_FSGETXATTR, &fsx) == 0 &&
	    fsx.fsx_projid != 0 && (fsx.fsx_xflags & FS_XFLAG_PROJINHERIT))
		return;
	fprintf(report, "warning: %s is neither a filesystem of its own nor under a project quota: what its read-write shifts write is charged to uid 0, past any user's quota, and may fill the blocks the filesystem reserves for root; give the store its own filesystem, or an ext4 project quota (chattr +P -p ID, with the prjquota mount option)\n",
		canon);
}

int allow_store(const char *path, const struct mark *m, bool force,
		FILE *report, struct error *e)
{
	_cleanup_close_ int fd = -1;
	char canon[PATH_MAX];
	int ret;

	/* Every refusal of the path comes before the kernel is asked. */
	ret = store_open(path, STORE_CHECK_OWNERS, &fd, canon, sizeof(canon), e);
	if (ret == 0 && !force)
		ret = store_check_not_system(fd, canon, e);
	if (ret == 0)
		ret = store_check_host_paths(fd, canon, m->flags & MARK_SUID_HOST, e);
	if (ret == 0 && !force)
		ret = store_check_image_only(fd, canon, e);
	if (ret == 0 && (m->flags & MARK_WRITABLE))
		ret = check_hardlinks_protected(canon, e);
	if (ret == 0)
		ret = kernel_check_configfd(configfd_probe(), e);
	if (ret == 0)
		ret = mark_store(fd, canon, m, e);
	if (ret < 0)
		return ret;
	report_mark(report, canon, m);
	if (m->flags & MARK_WRITABLE)
		warn_unbounded_writes(fd, canon, report);
	return 0;
}

int disallow_store(const char *path, bool revoke, FILE *report,
		   struct error *e)
{
	_cleanup_close_ int fd = -1;
	struct mount_facts facts;
	char canon[PATH_MAX];
	int ret;

	/* Withdrawing delegates nothing: only links are refused on the way. */
	ret = store_open(path, 0, &fd, canon, sizeof(canon), e);
	if (ret == 0)
		ret = mount_facts_of(fd, canon, &facts, e);
	if (ret < 0)
		return ret;
	if (!facts.mount_root)
		return error_msg(e, EINVAL,
				 "`%s` is not a mount point, so it carries no mark of its own; name the marked store (`shiftbind status` lists them)",
				 canon);
	/*
	 * A mark withdrawn before is not in mountinfo, but its shifts can
	 * still be revoked: the kernel says whether the mount holds one.
	 */
	if (!facts.allow_shift && !revoke)
		return error_msg(e, EINVAL,
				 "`%s` is not marked allow-shift (or its mark was withdrawn already): nothing to withdraw (`shiftbind status` lists the marks; --revoke takes back the shifts of a withdrawn mark)",
				 canon);
	ret = kernel_check_configfd(configfd_probe(), e);
	if (ret == 0)
		ret = withdraw_mark(fd, canon, revoke, e);
	if (ret < 0)
		return ret;
	fprintf(report, "withdrew the allow-shift mark of %s: no user namespace can make a new shift through it or any copy of it, in any mount namespace\n",
		canon);
	if (revoke)
		fprintf(report, "revoked every shift made through it: in every mount namespace, attached or held detached, each refuses all access from now on (EACCES), and files opened for write through them write nothing more\n");
	else
		fprintf(report, "shifts made before stay until they are unmounted (a running container keeps its shifted root until it stops; `shiftbind disallow --revoke` takes them back at once); the mount itself stays, with its flags\n");
	return 0;
}

/*
 * One line of the file: its store marked, or its reason said on stderr
 * with FILE:LINE, as the other lines' are.  Returns whether it failed.
 */
static bool apply_entry(const char *file, const struct allow_entry *x,
			FILE *report)
{
	struct error one = { 0, "" };

	if (!x->error && allow_store(x->path, &x->mark, x->force, report, &one) == 0)
		return false;
	fprintf(stderr, "shiftbind: %s:%zu: %s\n", file, x->line,
		x->error ? x->error : one.msg);
	return true;
}

/* "2, 5 and 9": the lines that failed, cut with "..." when too long. */
static void describe_lines(const struct allow_list *list, const bool *failed,
			   size_t nfailed, char *buf, size_t size)
{
	size_t i, said = 0, len = 0;

	buf[0] = '\0';
	for (i = 0; i < list->count && len < size; i++) {
		if (!failed[i])
			continue;
		said++;
		len += snprintf(buf + len, size - len, "%s%zu",
				said == 1 ? "" : said == nfailed ? " and " : ", ",
				list->entry[i].line);
	}
	if (len >= size)
		snprintf(buf + size - 4, 4, "...");
}

/*
 * Every line is applied on its own: a bad one (an owner that no longer
 * exists, a store that is missing or refused) costs that store only.
 * The command still fails, so that shiftbind-allow.service shows as
 * failed in `systemctl status`, with these lines in its log.
 */
int apply_config(const char *file, FILE *report, struct error *e)
{
	_cleanup_free_ char *text = NULL;
	_cleanup_free_ bool *failed = NULL;
	struct allow_list list = { NULL, 0 };
	_cleanup_close_ int fd = -1;
	size_t i, len, nfailed = 0;
	char lines[256], canon[PATH_MAX];
	int ret;

	/*
	 * Read whole and parsed before anything is marked: a store listed
	 * twice is found before either line could mark it.
	 */
	ret = conf_file_open(file, &fd, canon, sizeof(canon), e);
	if (ret < 0)
		return error_context(e, "refusing %s, nothing marked", file);
	ret = read_fd_capped(fd, canon, ALLOW_CONF_MAX, &text, &len, e);
	if (ret == 0)
		ret = allowconf_parse(text, len, file, &list, e);
	if (ret < 0)
		return ret;
	failed = calloc(list.count + 1, sizeof(*failed));
	if (!failed) {
		allow_list_free(&list);
		return error_errno(e, ENOMEM, "%s", file);
	}
	for (i = 0; i < list.count; i++) {
		failed[i] = apply_entry(file, &list.entry[i], report);
		nfailed += failed[i];
	}
	if (list.count == 0)
		fprintf(report, "%s: no stores listed\n", file);
	if (nfailed) {
		describe_lines(&list, failed, nfailed, lines, sizeof(lines));
		ret = error_msg(e, EIO,
				"%s: %zu of %zu stores could not be marked (line%s %s, said above)%s; fix %s and run `shiftbind apply-config` again",
				file, nfailed, list.count, nfailed == 1 ? "" : "s", lines,
				nfailed < list.count ? ", the others are marked" : "",
				nfailed == 1 ? "that line" : "those lines");
	}
	allow_list_free(&list);
	return ret;
}
