// SPDX-License-Identifier: GPL-2.0
/*
 * hook-confined-attacker: code running with shiftbind-hook's credentials
 * under its seccomp filter, as an exploit of the confined hook would
 * (hook.confined_hook_cannot_mark).  It does what the hook does before
 * confining, with the hook's own functions: joins the mount namespace of
 * PID, opens TARGET (a bind mount made there) and prepares its shift
 * (shift_prepare), then installs the hook's filter (sandbox_install)
 * and tries, against the marked STORE as seen from that namespace,
 * everything that would mark, unmark or relax a mount with real root's
 * power.  Each attempt prints "NAME: ok" or "NAME: ERRNO-NAME".  Last
 * it runs the prepared shift, the one thing the hook is there for.
 *
 *   hook-confined-attacker [--unconfined] [--only NAME] PID TARGET STORE
 *
 * --unconfined skips the filter (the control: the same attempt with the
 * same credentials); --only runs one attempt and not the shift.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "common.h"
#include "configfd.h"
#include "shift.h"
#include "sandbox.h"

static int store_fd = -1;	/* STORE, opened under the filter (read-only open) */
static int prepared = -1;	/* the configfd of TARGET's shift */
static int elsewhere = -1;	/* the same configfd at a number the filter does not reserve */
static const char *store_path;

/* 0, or the errno of the first step that failed. */
static int result(long ret)
{
	return ret < 0 ? errno : 0;
}

struct step {
	unsigned int cmd;
	const char *key;
	const char *value;
};

/* steps on a new configfd opened for CMD_RECONFIGURE, pathfd STORE first. */
static int on_new_configfd(const struct step *steps, size_t n)
{
	int fd = (int)syscall(__NR_configfd_open, "bind", O_CLOEXEC, CONFIGFD_CMD_RECONFIGURE);
	int err = result(fd);
	size_t i;

	if (!err)
		err = result(sys_configfd_action(fd, CONFIGFD_SET_FD, "pathfd", NULL, store_fd));
	for (i = 0; !err && i < n; i++)
		err = result(sys_configfd_action(fd, steps[i].cmd, steps[i].key,
						 (void *)steps[i].value, 0));
	if (fd >= 0)
		close(fd);
	return err;
}

/* The mark `shiftbind allow --owner 65534 STORE` makes. */
static int try_mark(void)
{
	static const struct step mark[] = {
		{ CONFIGFD_SET_FLAG, "allow-shift", NULL },
		{ CONFIGFD_SET_STRING, "owner", "65534" },
		{ CONFIGFD_CMD_RECONFIGURE, NULL, NULL },
	};

	return on_new_configfd(mark, ARRAY_SIZE(mark));
}

/* `shiftbind disallow STORE`. */
static int try_unmark(void)
{
	static const struct step unmark[] = {
		{ CONFIGFD_SET_FLAG, "disallow-shift", NULL },
		{ CONFIGFD_CMD_RECONFIGURE, NULL, NULL },
	};

	return on_new_configfd(unmark, ARRAY_SIZE(unmark));
}

/* The prepared configfd turned to another purpose, one step each. */
static int try_prepared_retarget(void)
{
	return result(sys_configfd_action(prepared, CONFIGFD_SET_FD, "pathfd", NULL, store_fd));
}

static int try_prepared_allow_shift(void)
{
	return result(sys_configfd_action(prepared, CONFIGFD_SET_FLAG, "allow-shift", NULL, 0));
}

static int try_prepared_owner(void)
{
	return result(sys_configfd_action(prepared, CONFIGFD_SET_STRING, "owner", "65534", 0));
}

static int try_prepared_create(void)
{
	return result(sys_configfd_action(prepared, CONFIGFD_CMD_CREATE, NULL, NULL, 0));
}

/* CMD_RECONFIGURE on an fd number the filter does not reserve. */
static int try_other_fd_reconfigure(void)
{
	return result(sys_configfd_action(elsewhere, CONFIGFD_CMD_RECONFIGURE, NULL, NULL, 0));
}

/* The mount API on the store: clear read-only and nosuid, clone, move. */
static int try_mount_setattr(void)
{
	struct { uint64_t set, clr, propagation, userns_fd; } attr = {
		0, MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID, 0, 0
	};

	return result(syscall(__NR_mount_setattr, store_fd, "", AT_EMPTY_PATH, &attr,
			      sizeof(attr)));
}

static int try_open_tree(void)
{
	int fd = (int)syscall(__NR_open_tree, store_fd, "",
			      OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_EMPTY_PATH);

	if (fd >= 0)
		close(fd);
	return result(fd);
}

static int try_move_mount(void)
{
	return result(syscall(__NR_move_mount, store_fd, "", AT_FDCWD, "/tmp",
			      MOVE_MOUNT_F_EMPTY_PATH));
}

static int try_fsopen(void)
{
	int fd = (int)syscall(__NR_fsopen, "tmpfs", FSOPEN_CLOEXEC);

	if (fd >= 0)
		close(fd);
	return result(fd);
}

static int try_fspick(void)
{
	int fd = (int)syscall(__NR_fspick, store_fd, "", FSPICK_CLOEXEC | FSPICK_EMPTY_PATH);

	if (fd >= 0)
		close(fd);
	return result(fd);
}

static int try_remount(void)
{
	return result(mount(NULL, store_path, NULL, MS_REMOUNT | MS_BIND, NULL));
}

static int try_umount(void)
{
	return result(umount2(store_path, MNT_DETACH));
}

static int try_socket_unix(void)
{
	int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	if (fd >= 0)
		close(fd);
	return result(fd);
}

static const struct attempt {
	const char *name;
	int (*call)(void);
} attempts[] = {
	{ "mark", try_mark },
	{ "unmark", try_unmark },
	{ "prepared-configfd-retarget", try_prepared_retarget },
	{ "prepared-configfd-allow-shift", try_prepared_allow_shift },
	{ "prepared-configfd-owner", try_prepared_owner },
	{ "prepared-configfd-create", try_prepared_create },
	{ "other-fd-reconfigure", try_other_fd_reconfigure },
	{ "mount_setattr", try_mount_setattr },
	{ "open_tree", try_open_tree },
	{ "move_mount", try_move_mount },
	{ "fsopen", try_fsopen },
	{ "fspick", try_fspick },
	{ "remount", try_remount },
	{ "umount2", try_umount },
	{ "socket", try_socket_unix },
};

static void report(const char *name, int err)
{
	printf("%s: %s\n", name, err ? strerrorname_np(err) : "ok");
}

/* Setup failed (ret: error_errno's, unused): the test fails on exit 2. */
static int die(const struct error *e, int ret)
{
	(void)ret;
	fprintf(stderr, "hook-confined-attacker: %s\n", e->msg);
	return 2;
}

int main(int argc, char **argv)
{
	struct error e = { 0, "" };
	bool confined = true;
	const char *only = NULL;
	int procfd, target, i = 1;
	char proc[32];
	size_t n;

	for (; i < argc && argv[i][0] == '-'; i++) {
		if (!strcmp(argv[i], "--unconfined"))
			confined = false;
		else if (!strcmp(argv[i], "--only") && i + 1 < argc)
			only = argv[++i];
	}
	if (argc - i != 3) {
		fprintf(stderr, "usage: hook-confined-attacker [--unconfined] [--only NAME] PID TARGET STORE\n");
		return 2;
	}
	store_path = argv[i + 2];
	setvbuf(stdout, NULL, _IOLBF, 0);

	/* What the hook does before its filter, with its own functions. */
	snprintf(proc, sizeof(proc), "/proc/%d", atoi(argv[i]));
	procfd = open(proc, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (procfd < 0)
		return die(&e, error_errno(&e, errno, "open `%s`", proc));
	if (join_mount_namespace(procfd, (pid_t)atoi(argv[i]), &e) < 0)
		return die(&e, 0);
	target = open(argv[i + 1], O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (target < 0)
		return die(&e, error_errno(&e, errno, "open `%s`", argv[i + 1]));
	if (shift_prepare(target, argv[i + 1], SANDBOX_CONFIGFD_FIRST, &prepared, &e) < 0)
		return die(&e, 0);
	elsewhere = fcntl(prepared, F_DUPFD_CLOEXEC, 3);
	if (elsewhere < 0)
		return die(&e, error_errno(&e, errno, "fcntl(F_DUPFD_CLOEXEC)"));
	if (confined && sandbox_install(SANDBOX_HOOK, &e) < 0)
		return die(&e, 0);

	/* Code under the filter from here on: what can it do? */
	store_fd = open(store_path, O_PATH | O_DIRECTORY | O_CLOEXEC);
	report("open-store-read-only", result(store_fd));
	for (n = 0; n < ARRAY_SIZE(attempts); n++)
		if (!only || !strcmp(only, attempts[n].name))
			report(attempts[n].name, attempts[n].call());
	if (only)
		return 0;
	report("prepared-shift", shift_commit(prepared, argv[i + 1], &e) < 0 ? e.code : 0);
	if (e.code)
		fprintf(stderr, "hook-confined-attacker: %s\n", e.msg);
	return 0;
}
