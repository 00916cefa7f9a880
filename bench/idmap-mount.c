// SPDX-License-Identifier: GPL-2.0
/*
 * idmap-mount: what a rootful runtime can do on a stock kernel since 5.12:
 * mount an idmapped view of an image for one container, as real root.
 *
 *   idmap-mount SRC DST UID_MAP GID_MAP       (maps: CONTAINER:HOST:SIZE)
 *
 * Makes a user namespace holding the container's mapping (mount_setattr(2)
 * takes the mapping as a namespace fd), clones SRC with open_tree(2), sets
 * MOUNT_ATTR_IDMAP on the clone with mount_setattr(2) and attaches it on
 * DST with move_mount(2).  Undo with `umount DST`.
 *
 * Needs CAP_SYS_ADMIN in the initial user namespace: this is the reference
 * point the benchmark compares shiftbind with, not something a rootless
 * runtime can do.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/wait.h>
#include <unistd.h>

#include "util.h"

static struct mapping_args opt;

static void write_map(pid_t pid, const char *file, const struct id_extent *e)
{
	char path[64], line[64];
	int fd, len;

	snprintf(path, sizeof(path), "/proc/%d/%s", (int)pid, file);
	len = snprintf(line, sizeof(line), "%u %u %u\n", e->inside, e->outside,
		       e->count);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		err(1, "open %s", path);
	if (write(fd, line, (size_t)len) != len)
		err(1, "write '%u %u %u' to %s (idmap-mount must run as real root)",
		    e->inside, e->outside, e->count, path);
	close(fd);
}

/* The child only holds the new namespace until the parent has its fd. */
static _Noreturn void userns_holder(int ready, int release)
{
	char c;

	if (unshare(CLONE_NEWUSER) < 0) {
		warn("unshare(CLONE_NEWUSER)");
		_exit(1);
	}
	if (write(ready, "r", 1) != 1)
		_exit(1);
	/* Returns when the parent closes its end. */
	if (read(release, &c, 1) < 0)
		_exit(1);
	_exit(0);
}

/* An fd of a new user namespace with the mappings of opt. */
static int make_userns(void)
{
	int ready[2], release[2], nsfd;
	char path[64], c;
	pid_t pid;

	if (pipe2(ready, O_CLOEXEC) < 0 || pipe2(release, O_CLOEXEC) < 0)
		err(1, "pipe2");
	pid = fork();
	if (pid < 0)
		err(1, "fork");
	if (pid == 0) {
		close(ready[0]);
		close(release[1]);
		userns_holder(ready[1], release[0]);
	}
	close(ready[1]);
	close(release[0]);
	if (read(ready[0], &c, 1) != 1)
		errx(1, "the helper process could not make a user namespace (see above); is CONFIG_USER_NS set?");
	write_map(pid, "uid_map", &opt.uid);
	write_map(pid, "gid_map", &opt.gid);
	snprintf(path, sizeof(path), "/proc/%d/ns/user", (int)pid);
	nsfd = open(path, O_RDONLY | O_CLOEXEC);
	if (nsfd < 0)
		err(1, "open %s", path);
	close(release[1]);
	close(ready[0]);
	if (waitpid(pid, NULL, 0) < 0)
		err(1, "waitpid %d", (int)pid);
	return nsfd;
}

int main(int argc, char **argv)
{
	struct mount_attr attr = { .attr_set = MOUNT_ATTR_IDMAP };
	int tree;

	parse_mapping_args(argc, argv, "idmap-mount", &opt);

	attr.userns_fd = (unsigned int)make_userns();
	tree = open_tree(AT_FDCWD, opt.src, OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC);
	if (tree < 0)
		err(1, "open_tree %s", opt.src);
	if (mount_setattr(tree, "", AT_EMPTY_PATH, &attr, sizeof(attr)) < 0)
		err(1, "mount_setattr(MOUNT_ATTR_IDMAP) on a clone of %s (needs real root and a file system with idmapped mounts: ext4, xfs, btrfs, ...)",
		    opt.src);
	if (move_mount(tree, "", AT_FDCWD, opt.dst, MOVE_MOUNT_F_EMPTY_PATH) < 0)
		err(1, "move_mount onto %s", opt.dst);
	return 0;
}
