// SPDX-License-Identifier: GPL-2.0
/* podman.c: see podman.h. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <fcntl.h>
#include <fts.h>
#include <limits.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "common.h"
#include "configfd.h"
#include "kernel.h"
#include "mounts.h"
#include "podman.h"
#include "privileged.h"
#include "storepath.h"

/* --- prepare-store (real root) ------------------------------------- */

struct prepared {
	unsigned int dirs;	/* directories made searchable by all */
	unsigned int files;	/* files made readable by all */
	unsigned int opaque;	/* user.overlay.opaque set */
};

/* Read (and search) for everybody; nothing else of the mode changes. */
static int make_readable(const char *path, const struct stat *st,
			 struct prepared *p, struct error *e)
{
	mode_t mode = st->st_mode & 07777;
	mode_t want = mode | (S_ISDIR(st->st_mode) ? 0555 : 0444);

	if (S_ISLNK(st->st_mode) || want == mode)
		return 0;
	if (chmod(path, want) < 0)
		return error_errno(e, errno, "chmod `%s` to %04o%s", path, want,
				   errno == EROFS ?
				   " (an allow-shift mark makes the store read-only: run prepare-store before `shiftbind allow`, or `shiftbind disallow` first)" : "");
	if (S_ISDIR(st->st_mode))
		p->dirs++;
	else
		p->files++;
	return 0;
}

/*
 * Calls fn on every entry of the tree at root (root included), without
 * following links or leaving its file system.  fn may skip a directory's
 * contents by returning 1.
 */
static int walk(const char *root,
		int (*fn)(FTSENT *ent, struct prepared *p, struct error *e),
		struct prepared *p, struct error *e)
{
	char *paths[] = { (char *)root, NULL };
	FTS *fts = fts_open(paths, FTS_PHYSICAL | FTS_XDEV | FTS_NOCHDIR, NULL);
	FTSENT *ent;
	int ret = 0;

	if (!fts)
		return error_errno(e, errno, "walk `%s`", root);
	for (;;) {
		errno = 0;
		ent = fts_read(fts);
		if (!ent) {
			/* errno 0: the whole tree was returned. */
			if (errno)
				ret = error_errno(e, errno, "walk `%s`", root);
			break;
		}
		if (ent->fts_info == FTS_DP)
			continue;
		if (ent->fts_info == FTS_ERR || ent->fts_info == FTS_DNR ||
		    ent->fts_info == FTS_NS) {
			ret = error_errno(e, ent->fts_errno, "walk `%s`", ent->fts_path);
			break;
		}
		ret = fn(ent, p, e);
		if (ret < 0)
			break;
		if (ret == 1) {
			fts_set(fts, ent, FTS_SKIP);
			ret = 0;
		}
	}
	fts_close(fts);
	return ret;
}

/* overlay-images/ and overlay-layers/: lists, manifests, configs, locks. */
static int readable_entry(FTSENT *ent, struct prepared *p, struct error *e)
{
	return make_readable(ent->fts_path, ent->fts_statp, p, e);
}

#define OPAQUE_XATTR		"trusted.overlay.opaque"
#define OPAQUE_USER_XATTR	"user.overlay.opaque"

/* A directory overlayfs sees as opaque is seen so in a user namespace too. */
static int copy_opaque(FTSENT *ent, struct prepared *p, struct error *e)
{
	char value[16], user[16];
	ssize_t n, m;

	if (!S_ISDIR(ent->fts_statp->st_mode))
		return 0;
	n = lgetxattr(ent->fts_path, OPAQUE_XATTR, value, sizeof(value));
	if (n < 0)
		return errno == ENODATA ? 0 :
			error_errno(e, errno, "read " OPAQUE_XATTR " of `%s`", ent->fts_path);
	m = lgetxattr(ent->fts_path, OPAQUE_USER_XATTR, user, sizeof(user));
	if (m == n && !memcmp(user, value, (size_t)n))
		return 0;
	if (lsetxattr(ent->fts_path, OPAQUE_USER_XATTR, value, (size_t)n, 0) < 0)
		return error_errno(e, errno, "set " OPAQUE_USER_XATTR " on `%s`",
				   ent->fts_path);
	p->opaque++;
	return 0;
}

/*
 * overlay/: the directory, l/ (the short names), each layer's directory
 * and its link and lower files become readable; in a layer's diff/, the
 * image's own files, only opaque marks are copied; work/ and merged/,
 * where they exist, are left alone.
 */
static int prepare_layer_entry(FTSENT *ent, struct prepared *p,
			       struct error *e)
{
	bool in_diff = ent->fts_level >= 3 ||
		       (ent->fts_level == 2 && !strcmp(ent->fts_name, "diff"));
	int ret;

	if (in_diff)
		return copy_opaque(ent, p, e);
	if (ent->fts_level == 2 && S_ISDIR(ent->fts_statp->st_mode))
		return 1;
	if (ent->fts_level == 2 && strcmp(ent->fts_name, "link") &&
	    strcmp(ent->fts_name, "lower"))
		return 0;
	ret = make_readable(ent->fts_path, ent->fts_statp, p, e);
	/* l/ holds only links. */
	return ret == 0 && ent->fts_level == 1 && !strcmp(ent->fts_name, "l") ? 1 : ret;
}

/* The store's own directory and its top-level lock files. */
static int readable_top(FTSENT *ent, struct prepared *p, struct error *e)
{
	size_t len = strlen(ent->fts_name);

	if (ent->fts_level == 0)
		return make_readable(ent->fts_path, ent->fts_statp, p, e);
	if (S_ISDIR(ent->fts_statp->st_mode))
		return 1;
	if (len > 5 && !strcmp(ent->fts_name + len - 5, ".lock"))
		return make_readable(ent->fts_path, ent->fts_statp, p, e);
	return 0;
}

static int check_overlay_store(int fd, const char *path, struct error *e)
{
	struct stat st;

	if (fstatat(fd, "overlay-layers/layers.json", &st, AT_SYMLINK_NOFOLLOW) < 0 ||
	    fstatat(fd, "overlay", &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISDIR(st.st_mode))
		return error_msg(e, EINVAL,
				 "%s is not a containers/storage store of the overlay driver (no overlay/ and overlay-layers/layers.json); fill it with: podman --root %s --storage-driver overlay pull|import|build ...",
				 path, path);
	return 0;
}

int prepare_store(const char *path, FILE *report, struct error *e)
{
	static const char *const metadata[] = { "overlay-images", "overlay-layers" };
	struct prepared p = { 0, 0, 0 };
	_cleanup_close_ int fd = -1;
	char canon[PATH_MAX], sub[PATH_MAX + sizeof("/overlay-layers")];
	size_t i;
	int ret;

	ret = store_open(path, STORE_CHECK_OWNERS | STORE_CHECK_SYSTEM, &fd, canon,
			 sizeof(canon), e);
	if (ret == 0)
		ret = check_overlay_store(fd, canon, e);
	if (ret == 0)
		ret = walk(canon, readable_top, &p, e);
	for (i = 0; ret == 0 && i < ARRAY_SIZE(metadata); i++) {
		snprintf(sub, sizeof(sub), "%s/%s", canon, metadata[i]);
		ret = walk(sub, readable_entry, &p, e);
	}
	snprintf(sub, sizeof(sub), "%s/overlay", canon);
	if (ret == 0)
		ret = walk(sub, prepare_layer_entry, &p, e);
	if (ret < 0)
		return error_context(e, "preparing store %s", path);
	fprintf(report,
		"%s: prepared for rootless podman: %u directories and %u files of its metadata made readable by all users, %u opaque directories marked " OPAQUE_USER_XATTR "\n",
		canon, p.dirs, p.files, p.opaque);
	return 0;
}

/* --- podman-setup (the rootless user) ------------------------------ */

static int setup_store(const char *store, FILE *report, struct error *e)
{
	_cleanup_close_ int fd = -1, bindfd = -1;
	struct mount_facts f;
	int ret;

	fd = open(store, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return error_errno(e, errno, "open store `%s`", store);
	ret = mount_facts_of(fd, store, &f, e);
	if (ret < 0)
		return ret;
	if (f.shifted) {
		fprintf(report, "%s: already shifted in podman's rootless mount namespace\n",
			store);
		return 0;
	}
	if (!f.allow_shift)
		return error_msg(e, EPERM,
				 "%s is not marked allow-shift in podman's rootless mount namespace: real root runs `shiftbind allow --owner YOUR-USER %s` (and `shiftbind prepare-store %s`); if it did so after podman started, run `podman system migrate`, then this again",
				 store, store, store);
	ret = create_shift_bind(fd, store, &bindfd, e);
	if (ret == 0)
		ret = attach_mount(bindfd, store, e);
	if (ret < 0)
		return error_context(e, "shifting %s in podman's rootless mount namespace",
				     store);
	fprintf(report, "%s: shifted in podman's rootless mount namespace\n", store);
	return 0;
}

/* Runs this command again inside podman's namespace: only returns on error. */
static int enter_podman_namespace(char *const *stores, int count,
				  struct error *e)
{
	_cleanup_free_ char **argv = calloc((size_t)count + 6, sizeof(*argv));
	char self[PATH_MAX];
	ssize_t n;
	int i;

	if (geteuid() == 0)
		return error_msg(e, EPERM,
				 "podman-setup is for a rootless podman user, not root: rootful containers are shifted by shiftbind-hook");
	if (!argv)
		return error_errno(e, ENOMEM, "podman-setup");
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n < 0)
		return error_errno(e, errno, "readlink /proc/self/exe");
	self[n] = '\0';
	argv[0] = "podman";
	argv[1] = "unshare";
	argv[2] = self;
	argv[3] = "podman-setup";
	argv[4] = PODMAN_INSIDE_OPTION;
	for (i = 0; i < count; i++)
		argv[5 + i] = stores[i];
	fflush(NULL);
	execvp(argv[0], argv);
	return error_errno(e, errno,
			   "run `podman unshare` (podman-setup enters podman's rootless namespace with it): is podman installed?");
}

int podman_setup(char *const *stores, int count, bool inside, FILE *report,
		 struct error *e)
{
	int i, ret;

	if (!inside)
		return enter_podman_namespace(stores, count, e);
	ret = kernel_check_configfd(configfd_probe(), e);
	for (i = 0; ret == 0 && i < count; i++)
		ret = setup_store(stores[i], report, e);
	return ret;
}
