/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fileio.h: bounded reads.  Everything the hook reads (state, config.json,
 * /proc files) is read whole, with a size cap, into a NUL-terminated
 * buffer before it is parsed.
 */
#ifndef SHIFTBIND_FILEIO_H
#define SHIFTBIND_FILEIO_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include <sys/stat.h>

#include "error.h"

/*
 * read_fd_capped: read fd to end of file into a new buffer (*out, NUL
 * after the *len bytes).  More than cap bytes is an error (EFBIG) naming
 * what.
 */
int read_fd_capped(int fd, const char *what, size_t cap, char **out,
		   size_t *len, struct error *e);

enum open_policy {
	FOLLOW_SYMLINKS,
	REFUSE_SYMLINK,		/* the last component must not be a symlink */
};

/*
 * read_regular_file_at: read the regular file name under dirfd (a FIFO
 * or device is refused, never opened for a blocking read).  display is
 * the path used in messages.
 */
int read_regular_file_at(int dirfd, const char *name, const char *display,
			 enum open_policy policy, size_t cap, char **out,
			 size_t *len, struct error *e);

/*
 * How the hook and the CLI, both run by real root, resolve a path below
 * a directory that someone else can change (a container's rootfs, an
 * image, a store and the path to it): always in one openat2(2) call,
 * so that the kernel, not a loop of ours, keeps the walk where the
 * scope says, whatever is renamed or swapped meanwhile.  No scope
 * follows a magic link (/proc/PID/fd/N, /proc/PID/root).
 */
enum resolve_scope {
	/*
	 * Inside dirfd as if it were "/", symbolic links followed there
	 * (RESOLVE_IN_ROOT): where a runtime puts a container's mount.
	 */
	SCOPE_IN_ROOT,
	/*
	 * Below dirfd, through no symbolic link: a trailing one is opened
	 * itself with O_PATH and refused (ELOOP) otherwise.  Mounts are
	 * crossed: a store's path from "/".
	 */
	SCOPE_NO_SYMLINKS,
	/*
	 * As SCOPE_NO_SYMLINKS, and on dirfd's mount only: what users
	 * can change inside a store.
	 */
	SCOPE_SAME_MOUNT,
};

/*
 * open_resolved: openat2(dirfd, path) with flags (O_CLOEXEC always) in
 * scope.  An empty path (or only slashes, for SCOPE_IN_ROOT) is dirfd
 * itself.  The fd, or -errno (-ENOSYS without openat2, except for one
 * name in SCOPE_NO_SYMLINKS, which openat(2) resolves alike).
 */
int open_resolved(int dirfd, const char *path, int flags,
		  enum resolve_scope scope);

/*
 * path_within: the absolute path is dir or below it, whole components
 * compared ("/srv" is not within "/sr"); with strictly, below it only
 * ("/dev/pts" within "/dev", "/dev" not).  Trailing slashes of dir do
 * not count; "/" holds every path.
 */
bool path_within(const char *path, const char *dir, bool strictly);

/*
 * write_file_atomic: replace the file name in the directory dirfd (the
 * one it was read through; display names it in messages) with data,
 * through a temporary file in the same directory, fsync and rename, so
 * readers see the old or the new content, never a part.  The new file
 * gets the old one's owner and group, and its permission bits (0777 of
 * mode: no setuid, setgid or sticky bit).
 */
int write_file_atomic(int dirfd, const char *display, const char *name,
		      const void *data, size_t len, const struct stat *old,
		      struct error *e);

/*
 * read_bundle_config: <bundle>/config.json, a regular file and not a
 * symlink, of at most cap bytes, into a new *text (as
 * read_regular_file_at).  With dirfd, the bundle directory's O_PATH fd
 * is left there for the caller to write back through.
 */
int read_bundle_config(const char *bundle, size_t cap, int *dirfd, char **text,
		       size_t *len, struct error *e);

/* write_all: all len bytes (retrying short writes and EINTR): 0 or -errno. */
int write_all(int fd, const void *data, size_t len);

/*
 * read_exact: up to len bytes, stopping early only at end of file: the
 * count read, or -errno.
 */
ssize_t read_exact(int fd, void *buf, size_t len);

#endif /* SHIFTBIND_FILEIO_H */
