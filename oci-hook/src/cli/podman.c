// SPDX-License-Identifier: GPL-2.0
/* podman.c: see podman.h. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "common.h"
#include "configfd.h"
#include "fileio.h"
#include "kernel.h"
#include "mounts.h"
#include "podman.h"
#include "marks.h"
#include "storepath.h"
#include "systemdirs.h"
#include "treewalk.h"

/* --- prepare-store (real root) ------------------------------------- */

/*
 * What prepare-store changes, and nothing else: the metadata rootless
 * podman reads before its shift exists (the image and layer lists,
 * manifests, configs and lock files, which hold no file of any image)
 * readable by all, the store's own directory searchable (and so every
 * other entry at its top private), and the layers' opaque marks copied
 * to the form overlayfs reads in a user namespace.
 * The layers keep the modes containers/storage gives them (overlay/ and
 * each layer's directory 0700 root): rootless podman reads them through
 * its shift, where real root's files are its namespace root's, so no
 * local user reaches an image's file, nor runs its setuid programs,
 * from the store's path.
 */
struct prepared {
	unsigned int dirs;	/* metadata directories made searchable by all */
	unsigned int files;	/* metadata files made readable by all */
	unsigned int opaque;	/* user.overlay.opaque set */
	unsigned int hidden;	/* top-level entries made private */
	char hidden_names[512];	/* their names, for the report */
	struct walk_stats walk;
};

#define EROFS_HINT \
	" (an allow-shift mark makes the store read-only: run prepare-store before `shiftbind allow`, or `shiftbind disallow` first)"

/* @add to the mode of the entry, by its fd; nothing else changes. */
static int add_mode(const struct walk_entry *ent, mode_t add, struct prepared *p,
		    struct error *e)
{
	mode_t mode = ent->st->st_mode & 07777;

	if ((mode | add) == mode)
		return 0;
	if (fchmod(ent->fd, mode | add) < 0)
		return error_errno(e, errno, "chmod `%s` to %04o%s", ent->path,
				   mode | add, errno == EROFS ? EROFS_HINT : "");
	if (S_ISDIR(ent->st->st_mode))
		p->dirs++;
	else
		p->files++;
	return 0;
}

/* overlay-images/ and overlay-layers/: readable (and searchable) by all. */
static int readable_entry(const struct walk_entry *ent, void *arg,
			  struct error *e)
{
	return add_mode(ent, S_ISDIR(ent->st->st_mode) ? 0555 : 0444, arg, e);
}

static bool has_suffix(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && !strcmp(s + n - m, suffix);
}

static int top_entry(const struct walk_entry *ent, void *arg, struct error *e);
static int readable_entry(const struct walk_entry *ent, void *arg,
			  struct error *e);
static int layer_entry(const struct walk_entry *ent, void *arg, struct error *e);

/*
 * prepare-store's walks: the store's top, then each top-level directory
 * rootless podman reads; with the top-level lock files, all that the
 * store's directory, searchable by every user, may show them.
 */
static const struct {
	const char *sub;
	walk_fn fn;
} store_walks[] = {
	{ "", top_entry },
	{ "overlay-images", readable_entry },
	{ "overlay-layers", readable_entry },
	{ "overlay", layer_entry },
};

static bool walked_on_its_own(const char *name)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(store_walks); i++)
		if (*store_walks[i].sub && !strcmp(name, store_walks[i].sub))
			return true;
	return false;
}

/*
 * Anything else at the top (defaultNetworkBackend, db.sql, libpod/,
 * volumes/, a file an administrator left there) would be reached by
 * every user through the store's directory once it is searchable: its
 * group's and others' access is taken away.  Only real root's podman
 * uses them, and real root needs no mode.
 */
static int hide_entry(const struct walk_entry *ent, struct prepared *p,
		      struct error *e)
{
	mode_t mode = ent->st->st_mode & 07777;
	const char *name = strrchr(ent->path, '/') + 1;
	size_t len = strlen(p->hidden_names);

	if (!(mode & 077))
		return 0;
	if (fchmod(ent->fd, mode & ~(mode_t)077) < 0)
		return error_errno(e, errno, "chmod `%s` to %04o%s", ent->path,
				   mode & ~(mode_t)077, errno == EROFS ? EROFS_HINT : "");
	/* Cut with "..." when the names do not fit. */
	if (len + 64 + 6 < sizeof(p->hidden_names))
		snprintf(p->hidden_names + len, sizeof(p->hidden_names) - len,
			 "%s%.64s", p->hidden ? ", " : "", name);
	else if (strcmp(p->hidden_names + len - 3, "..."))
		snprintf(p->hidden_names + len, sizeof(p->hidden_names) - len, ", ...");
	p->hidden++;
	return 0;
}

/*
 * The store's directory: searchable; its top-level lock files: readable;
 * the directories podman reads: walked on their own; the rest: private.
 */
static int top_entry(const struct walk_entry *ent, void *arg, struct error *e)
{
	const char *name = strrchr(ent->path, '/') + 1;
	bool dir = S_ISDIR(ent->st->st_mode);
	int ret;

	if (ent->depth == 0)
		return add_mode(ent, 0111, arg, e);
	if (dir && walked_on_its_own(name))
		return WALK_SKIP_CONTENTS;
	if (!dir && has_suffix(name, ".lock"))
		return add_mode(ent, 0444, arg, e);
	ret = hide_entry(ent, arg, e);
	return ret < 0 ? ret : dir ? WALK_SKIP_CONTENTS : 0;
}

#define OPAQUE_XATTR		"trusted.overlay.opaque"
#define OPAQUE_USER_XATTR	"user.overlay.opaque"

/* A directory overlayfs sees as opaque is seen so in a user namespace too. */
static int copy_opaque(const struct walk_entry *ent, struct prepared *p,
		       struct error *e)
{
	char value[16], user[16];
	ssize_t n, m;

	n = fgetxattr(ent->fd, OPAQUE_XATTR, value, sizeof(value));
	if (n < 0)
		return errno == ENODATA ? 0 :
			error_errno(e, errno, "read " OPAQUE_XATTR " of `%s`", ent->path);
	m = fgetxattr(ent->fd, OPAQUE_USER_XATTR, user, sizeof(user));
	if (m == n && !memcmp(user, value, (size_t)n))
		return 0;
	if (fsetxattr(ent->fd, OPAQUE_USER_XATTR, value, (size_t)n, 0) < 0)
		return error_errno(e, errno, "set " OPAQUE_USER_XATTR " on `%s`%s",
				   ent->path, errno == EROFS ? EROFS_HINT : "");
	p->opaque++;
	return 0;
}

/*
 * overlay/: into each layer's diff/ (depth 2), where every directory's
 * opaque mark is copied; l/ (the short names), work/ and merged/ are
 * not entered, and no mode changes.
 */
static int layer_entry(const struct walk_entry *ent, void *arg, struct error *e)
{
	const char *name = strrchr(ent->path, '/') + 1;

	if (!S_ISDIR(ent->st->st_mode))
		return 0;
	if (ent->depth == 1 && !strcmp(name, "l"))
		return WALK_SKIP_CONTENTS;
	if (ent->depth == 2 && strcmp(name, "diff"))
		return WALK_SKIP_CONTENTS;
	return ent->depth >= 2 ? copy_opaque(ent, arg, e) : 0;
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

/*
 * Whether the file @path below @fd holds the byte @c: a JSON array with
 * an object in it ('{'), an object with a member in it ('"').
 */
static bool file_contains(int fd, const char *path, char c)
{
	_cleanup_close_ int file = open_resolved(fd, path, O_RDONLY | O_NONBLOCK,
						 SCOPE_SAME_MOUNT);
	char buf[4096];
	ssize_t n;

	if (file < 0)
		return false;
	while ((n = read(file, buf, sizeof(buf))) > 0)
		if (memchr(buf, c, (size_t)n))
			return true;
	return false;
}

static bool dir_has_entries(int fd, const char *path)
{
	int dfd = open_resolved(fd, path, O_RDONLY | O_DIRECTORY,
				SCOPE_SAME_MOUNT);
	struct dirent *de;
	bool found = false;
	DIR *dir;

	if (dfd < 0)
		return false;
	dir = fdopendir(dfd);
	if (!dir) {
		close(dfd);
		return false;
	}
	while (!found && (de = readdir(dir)))
		found = strcmp(de->d_name, ".") && strcmp(de->d_name, "..");
	closedir(dir);
	return found;
}

/* What makes a containers/storage root more than an image store, or NULL. */
static const char *live_state(int fd)
{
	if (file_contains(fd, "overlay-containers/containers.json", '{'))
		return "overlay-containers/containers.json lists containers";
	if (dir_has_entries(fd, "volumes"))
		return "volumes/ holds volumes";
	if (file_contains(fd, "secrets/filedriver/secretsdata.json", '"'))
		return "secrets/ holds secrets";
	return NULL;
}

int store_check_image_only(int fd, const char *canon, struct error *e)
{
	const char *what = live_state(fd);

	if (!what)
		return 0;
	return error_msg(e, EPERM,
			 "refusing `%s`: it is a live podman graphroot (%s), and a mark lends all of it to the delegated users' shifts, root's containers' files, volumes and secrets included; share an image-only store instead (`podman --root DIR pull|import|build` used for nothing else, or podman's --imagestore DIR), or give --force",
			 canon, what);
}

static int prepare_walk(int fd, const char *canon, const char *sub, walk_fn fn,
			struct prepared *p, FILE *report, struct error *e)
{
	char display[PATH_MAX + 32];

	snprintf(display, sizeof(display), "%s%s%s", canon, *sub ? "/" : "", sub);
	return treewalk(fd, *sub ? sub : ".", display, fn, p, &p->walk, report, e);
}

int prepare_store(const char *path, bool force, FILE *report, struct error *e)
{
	struct prepared p = { 0, 0, 0, 0, "", { 0 } };
	_cleanup_close_ int fd = -1;
	char canon[PATH_MAX];
	size_t i;
	int ret;

	ret = store_open(path, STORE_CHECK_OWNERS, &fd, canon, sizeof(canon), e);
	if (ret == 0 && !force)
		ret = store_check_not_system(fd, canon, e);
	if (ret == 0)
		ret = check_overlay_store(fd, canon, e);
	if (ret == 0 && !force)
		ret = store_check_image_only(fd, canon, e);
	for (i = 0; ret == 0 && i < ARRAY_SIZE(store_walks); i++)
		ret = prepare_walk(fd, canon, store_walks[i].sub, store_walks[i].fn,
				   &p, report, e);
	if (ret < 0)
		return error_context(e, "preparing store %s", path);
	fprintf(report,
		"%s: prepared for rootless podman: %u directories and %u files of its metadata made readable by all users (no image file, and the layers' modes unchanged), %u opaque directories marked " OPAQUE_USER_XATTR "\n",
		canon, p.dirs, p.files, p.opaque);
	if (p.hidden)
		fprintf(report, "%s: %u entries at its top that rootless podman does not read made private to their owner (chmod go-rwx), since every user can now search the store's directory: %s\n",
			canon, p.hidden, p.hidden_names);
	if (p.walk.skipped)
		fprintf(report, "%s: %u entries skipped, listed above: changed while prepare-store ran, other mounts, or too deep; run it again when the store is quiet\n",
			canon, p.walk.skipped);
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
