// SPDX-License-Identifier: GPL-2.0
/*
 * probe: a static multi-call program run inside test containers.
 *
 * Containers in the tests run this instead of distro tools, so that what
 * they print is exactly what the tests assert on and does not depend on
 * the image's userland.  Every command prints one line per result and
 * exits 0 on success, 1 when the operation failed (with "errno=NAME"
 * printed, so tests can assert on the exact error), 2 on bad usage.
 *
 *   probe id                     uid=U gid=G euid=U egid=G
 *   probe stat PATH...           UID:GID MODE PATH      (lstat)
 *   probe create PATH [MODE]     creates a file, then prints its stat line
 *   probe mkdir PATH [MODE]      creates a directory, then prints its stat line
 *   probe chown UID:GID PATH     lchown, then prints the stat line
 *   probe chmod MODE PATH        chmod (octal MODE), then prints the stat line
 *   probe open PATH ro|rw        opens PATH (a device node, say) and closes it
 *   probe setcap PATH            writes a v2 security.capability granting
 *                                cap_net_raw (what setcap(8) writes)
 *   probe getxattr PATH NAME     NAME: N bytes, or the errno (ENODATA: none)
 *   probe setxattr PATH NAME VALUE  lsetxattr of the text VALUE
 *   probe remount-rw PATH        tries MS_REMOUNT|MS_BIND without MS_RDONLY
 *   probe hold DIR SECONDS       opens the directory DIR, prints "holding DIR
 *                                as fd N", and sleeps SECONDS with it open
 *   probe clone-tree SRC CMD...  a detached read-only copy of the mount at
 *                                SRC (open_tree + mount_setattr), then runs
 *                                CMD with its fd number in $TREE_FD
 *   probe setattr-fd FD rw       mount_setattr of the detached mount FD,
 *                                clearing read-only
 *   probe move-mount FD DST      attaches the detached mount FD at DST
 *   probe idmap-tree SRC PATH    what runtimes do for an idmapped mount: a
 *                                detached clone of SRC (open_tree), idmapped
 *                                with this process's user namespace
 *                                (mount_setattr MOUNT_ATTR_IDMAP), then the
 *                                stat line of SRC's PATH through it
 *   probe idmap-attach SRC DST   the same idmapped clone of SRC, attached
 *                                at DST (move_mount)
 *   probe exit N                 exits with status N
 *   probe now                    SECONDS.NANOSECONDS of CLOCK_REALTIME (the
 *                                benchmark's "first instruction" time)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>

struct command {
	const char *name;
	int min_args;
	int (*run)(int argc, char **argv);
};

static int fail(const char *op, const char *path)
{
	int err = errno;

	printf("%s %s: errno=%s (%s)\n", op, path, strerrorname_np(err),
	       strerror(err));
	return 1;
}

static int print_stat(const char *path)
{
	struct stat st;

	if (lstat(path, &st) < 0)
		return fail("stat", path);
	printf("%u:%u %04o %s\n", (unsigned int)st.st_uid,
	       (unsigned int)st.st_gid, (unsigned int)(st.st_mode & 07777),
	       path);
	return 0;
}

static mode_t mode_arg(int argc, char **argv, int index, mode_t fallback)
{
	return argc > index ? (mode_t)strtoul(argv[index], NULL, 8) : fallback;
}

static int cmd_id(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	printf("uid=%u gid=%u euid=%u egid=%u\n", getuid(), getgid(),
	       geteuid(), getegid());
	return 0;
}

static int cmd_stat(int argc, char **argv)
{
	int status = 0;

	for (int i = 0; i < argc; i++)
		status |= print_stat(argv[i]);
	return status;
}

static int cmd_create(int argc, char **argv)
{
	int fd = open(argv[0], O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC,
		      mode_arg(argc, argv, 1, 0644));

	if (fd < 0)
		return fail("create", argv[0]);
	close(fd);
	return print_stat(argv[0]);
}

static int cmd_mkdir(int argc, char **argv)
{
	if (mkdir(argv[0], mode_arg(argc, argv, 1, 0755)) < 0)
		return fail("mkdir", argv[0]);
	return print_stat(argv[0]);
}

static int cmd_chown(int argc, char **argv)
{
	unsigned int uid, gid;

	(void)argc;
	if (sscanf(argv[0], "%u:%u", &uid, &gid) != 2) {
		fprintf(stderr, "probe chown: expected UID:GID, got '%s'\n",
			argv[0]);
		return 2;
	}
	if (lchown(argv[1], uid, gid) < 0)
		return fail("chown", argv[1]);
	return print_stat(argv[1]);
}

static int cmd_chmod(int argc, char **argv)
{
	if (chmod(argv[1], mode_arg(argc, argv, 0, 0)) < 0)
		return fail("chmod", argv[1]);
	return print_stat(argv[1]);
}

static int cmd_open(int argc, char **argv)
{
	int flags = strcmp(argv[1], "rw") == 0 ? O_RDWR : O_RDONLY;
	int fd;

	(void)argc;
	fd = open(argv[0], flags | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return fail("open", argv[0]);
	close(fd);
	printf("open %s %s: ok\n", argv[0], argv[1]);
	return 0;
}

/* struct vfs_cap_data, revision 2: permitted and effective cap_net_raw. */
static int cmd_setcap(int argc, char **argv)
{
	const unsigned int cap_net_raw = 13;
	const unsigned int caps[5] = { 0x02000000 | 1, 1u << cap_net_raw, 0, 0, 0 };

	(void)argc;
	if (setxattr(argv[0], "security.capability", caps, sizeof(caps), 0) < 0)
		return fail("setcap", argv[0]);
	printf("setcap %s: ok\n", argv[0]);
	return 0;
}

static int cmd_getxattr(int argc, char **argv)
{
	ssize_t size;

	(void)argc;
	size = lgetxattr(argv[0], argv[1], NULL, 0);
	if (size < 0)
		return fail("getxattr", argv[0]);
	printf("%s: %zd bytes\n", argv[1], size);
	return 0;
}

static int cmd_setxattr(int argc, char **argv)
{
	(void)argc;
	if (lsetxattr(argv[0], argv[1], argv[2], strlen(argv[2]), 0) < 0)
		return fail("setxattr", argv[0]);
	printf("%s: set\n", argv[1]);
	return 0;
}

static int cmd_remount_rw(int argc, char **argv)
{
	(void)argc;
	if (mount(NULL, argv[0], NULL, MS_REMOUNT | MS_BIND, NULL) < 0)
		return fail("remount-rw", argv[0]);
	printf("remount-rw %s: ok\n", argv[0]);
	return 0;
}

/* An fd of DIR that other processes can reach as /proc/<pid>/fd/N. */
static int cmd_hold(int argc, char **argv)
{
	int fd = open(argv[0], O_RDONLY | O_DIRECTORY);

	(void)argc;
	if (fd < 0)
		return fail("hold", argv[0]);
	printf("holding %s as fd %d\n", argv[0], fd);
	fflush(stdout);
	sleep((unsigned int)atoi(argv[1]));
	return 0;
}

/* The new mount API, by number: what the guest's runtimes call. */
#define OPEN_TREE_CLONE_	1
#define MOVE_MOUNT_F_EMPTY_PATH_ 0x00000004
#define MOUNT_ATTR_RDONLY_	0x00000001
#define MOUNT_ATTR_IDMAP_	0x00100000

struct mount_attr_ {
	unsigned long long attr_set, attr_clr, propagation, userns_fd;
};

static int mount_setattr_fd(int fd, unsigned long long set,
			    unsigned long long clr)
{
	struct mount_attr_ attr = { .attr_set = set, .attr_clr = clr };

	return (int)syscall(SYS_mount_setattr, fd, "", AT_EMPTY_PATH, &attr,
			    sizeof(attr));
}

static int cmd_clone_tree(int argc, char **argv)
{
	char num[16];
	int fd;

	if (argc < 2)
		return 2;
	fd = (int)syscall(SYS_open_tree, AT_FDCWD, argv[0], OPEN_TREE_CLONE_);
	if (fd < 0)
		return fail("open_tree", argv[0]);
	if (mount_setattr_fd(fd, MOUNT_ATTR_RDONLY_, 0) < 0)
		return fail("mount_setattr ro", argv[0]);
	snprintf(num, sizeof(num), "%d", fd);
	setenv("TREE_FD", num, 1);
	execvp(argv[1], argv + 1);
	return fail("exec", argv[1]);
}

/*
 * A detached clone of @src idmapped with this process's user namespace,
 * as runtimes make one: its fd, or -1 after printing what failed.
 */
static int idmapped_clone(const char *src)
{
	struct mount_attr_ attr = { .attr_set = MOUNT_ATTR_IDMAP_ };
	int fd, userns;

	userns = open("/proc/self/ns/user", O_RDONLY | O_CLOEXEC);
	if (userns < 0) {
		fail("open", "/proc/self/ns/user");
		return -1;
	}
	fd = (int)syscall(SYS_open_tree, AT_FDCWD, src, OPEN_TREE_CLONE_);
	if (fd < 0) {
		fail("open_tree", src);
		return -1;
	}
	attr.userns_fd = (unsigned long long)userns;
	if (syscall(SYS_mount_setattr, fd, "", AT_EMPTY_PATH, &attr, sizeof(attr)) < 0) {
		fail("mount_setattr idmap", src);
		return -1;
	}
	return fd;
}

static int cmd_idmap_tree(int argc, char **argv)
{
	char path[PATH_MAX];
	int fd;

	(void)argc;
	fd = idmapped_clone(argv[0]);
	if (fd < 0)
		return 1;
	snprintf(path, sizeof(path), "/proc/self/fd/%d/%s", fd, argv[1]);
	return print_stat(path);
}

static int cmd_idmap_attach(int argc, char **argv)
{
	int fd;

	(void)argc;
	fd = idmapped_clone(argv[0]);
	if (fd < 0)
		return 1;
	if (syscall(SYS_move_mount, fd, "", AT_FDCWD, argv[1],
		    MOVE_MOUNT_F_EMPTY_PATH_) < 0)
		return fail("move_mount", argv[1]);
	printf("idmap-attach %s %s: ok\n", argv[0], argv[1]);
	return 0;
}

static int cmd_setattr_fd(int argc, char **argv)
{
	(void)argc;
	if (strcmp(argv[1], "rw") != 0)
		return 2;
	if (mount_setattr_fd(atoi(argv[0]), 0, MOUNT_ATTR_RDONLY_) < 0)
		return fail("mount_setattr rw fd", argv[0]);
	printf("setattr-fd %s rw: ok\n", argv[0]);
	return 0;
}

static int cmd_move_mount(int argc, char **argv)
{
	(void)argc;
	if (syscall(SYS_move_mount, atoi(argv[0]), "", AT_FDCWD, argv[1],
		    MOVE_MOUNT_F_EMPTY_PATH_) < 0)
		return fail("move_mount", argv[1]);
	printf("move-mount %s %s: ok\n", argv[0], argv[1]);
	return 0;
}

static int cmd_exit(int argc, char **argv)
{
	(void)argc;
	return atoi(argv[0]);
}

/*
 * CLOCK_REALTIME, not CLOCK_MONOTONIC: the benchmark's start time is taken
 * by bash's $EPOCHREALTIME, and the guest runs no clock adjustment.
 */
static int cmd_now(int argc, char **argv)
{
	struct timespec ts;

	(void)argc;
	(void)argv;
	if (clock_gettime(CLOCK_REALTIME, &ts) < 0)
		return fail("clock_gettime", "CLOCK_REALTIME");
	printf("%lld.%09ld\n", (long long)ts.tv_sec, ts.tv_nsec);
	return 0;
}

static const struct command commands[] = {
	{ "id", 0, cmd_id },
	{ "stat", 1, cmd_stat },
	{ "create", 1, cmd_create },
	{ "mkdir", 1, cmd_mkdir },
	{ "chown", 2, cmd_chown },
	{ "chmod", 2, cmd_chmod },
	{ "open", 2, cmd_open },
	{ "setcap", 1, cmd_setcap },
	{ "getxattr", 2, cmd_getxattr },
	{ "setxattr", 3, cmd_setxattr },
	{ "remount-rw", 1, cmd_remount_rw },
	{ "hold", 2, cmd_hold },
	{ "clone-tree", 2, cmd_clone_tree },
	{ "setattr-fd", 2, cmd_setattr_fd },
	{ "move-mount", 2, cmd_move_mount },
	{ "idmap-tree", 2, cmd_idmap_tree },
	{ "idmap-attach", 2, cmd_idmap_attach },
	{ "exit", 1, cmd_exit },
	{ "now", 0, cmd_now },
};

static void usage(void)
{
	fputs("usage: probe COMMAND [ARGS]; commands:", stderr);
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(stderr, " %s", commands[i].name);
	fputc('\n', stderr);
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc < 2) {
		usage();
		return 2;
	}
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++) {
		const struct command *c = &commands[i];

		if (strcmp(argv[1], c->name) != 0)
			continue;
		if (argc - 2 < c->min_args) {
			fprintf(stderr, "probe %s: needs %d argument(s)\n",
				c->name, c->min_args);
			return 2;
		}
		return c->run(argc - 2, argv + 2);
	}
	fprintf(stderr, "probe: unknown command '%s'\n", argv[1]);
	usage();
	return 2;
}
