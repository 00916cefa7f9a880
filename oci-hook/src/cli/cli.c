// SPDX-License-Identifier: GPL-2.0
/*
 * shiftbind: administer shift bind mounts.  See shiftbind(8).
 *
 *   shiftbind allow [--rw] [--suid] [--suid-host] [--owner WHO]... [--group NAME]... [--force] PATH
 *   shiftbind disallow [--revoke] PATH
 *   shiftbind shift SRC DST
 *   shiftbind status [--json] [PATH]
 *   shiftbind prepare-image DIR
 *   shiftbind prepare-store STORE
 *   shiftbind podman-setup STORE...
 *   shiftbind apply-config [FILE]
 *   shiftbind patch-config [--rootless] [--hook PATH] BUNDLE
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "allowconf.h"
#include "common.h"
#include "configfd.h"
#include "kernel.h"
#include "mountinfo.h"
#include "owners.h"
#include "patch.h"
#include "paths.h"	/* generated: SHIFTBIND_HOOK_PATH, SHIFTBIND_ALLOW_CONF */
#include "podman.h"
#include "prepare.h"
#include "marks.h"
#include "status.h"
#include "store.h"

/* A command's result when its arguments are wrong: usage, exit 2. */
#define USAGE 1

struct command {
	const char *name;
	const char *args;
	const char *summary;
	int (*run)(int argc, char **argv, struct error *e);
};

/*
 * getopt_long over a command's own argv (argv[0] is the command name),
 * options and operands in any order; "--" ends the options.
 */
static int next_option(int argc, char **argv, const struct option *longopts)
{
	return getopt_long(argc, argv, "", longopts, NULL);
}

static int cmd_allow(int argc, char **argv, struct error *e)
{
	static const struct option longopts[] = {
		{ "rw", no_argument, NULL, 'w' },
		{ "suid", no_argument, NULL, 's' },
		{ "suid-host", no_argument, NULL, 'S' },
		{ "owner", required_argument, NULL, 'o' },
		{ "group", required_argument, NULL, 'g' },
		{ "force", no_argument, NULL, 'f' },
		{ NULL, 0, NULL, 0 },
	};
	struct mark m = { .flags = 0, .owners = { .count = 0 } };
	bool force = false;
	int c;

	while ((c = next_option(argc, argv, longopts)) != -1) {
		switch (c) {
		case 'w':
			m.flags |= MARK_WRITABLE;
			break;
		case 's':
			m.flags |= MARK_SUID;
			break;
		case 'S':
			m.flags |= MARK_SUID_HOST;
			break;
		case 'f':
			force = true;
			break;
		case 'o':
			/* A bad owner is said before the path is looked at. */
			if (owner_list_add(&m.owners, "--owner ", optarg, e) < 0)
				return -e->code;
			break;
		case 'g':
			if (owner_list_add_group(&m.owners, "--group ", optarg, e) < 0)
				return -e->code;
			break;
		default:
			return USAGE;
		}
	}
	if (argc - optind != 1)
		return USAGE;
	return allow_store(argv[optind], &m, force, stdout, e);
}

/*
 * A command's one operand, after its one flag option (--@flag, *set when
 * given): NULL for a usage error.
 */
static const char *flag_and_operand(int argc, char **argv, const char *flag,
				    bool *set)
{
	const struct option longopts[] = {
		{ flag, no_argument, NULL, 'f' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	*set = false;
	while ((c = next_option(argc, argv, longopts)) != -1) {
		if (c != 'f')
			return NULL;
		*set = true;
	}
	return argc - optind == 1 ? argv[optind] : NULL;
}

static int cmd_disallow(int argc, char **argv, struct error *e)
{
	bool revoke;
	const char *path = flag_and_operand(argc, argv, "revoke", &revoke);

	return path ? disallow_store(path, revoke, stdout, e) : USAGE;
}

/*
 * As root of a user namespace (unshare -Urm): a detached shift bind of
 * SRC, then moved onto DST.  Until the move nothing is attached, and
 * closing the fd frees it, so a failure leaves nothing mounted.
 */
static int cmd_shift(int argc, char **argv, struct error *e)
{
	static const struct option longopts[] = { { NULL, 0, NULL, 0 } };
	_cleanup_close_ int srcfd = -1, bindfd = -1;
	const char *src, *dst;
	int ret;

	if (next_option(argc, argv, longopts) != -1 || argc - optind != 2)
		return USAGE;
	src = argv[optind];
	dst = argv[optind + 1];
	ret = kernel_check_configfd(configfd_probe(), e);
	if (ret < 0)
		return ret;
	srcfd = open(src, O_PATH | O_CLOEXEC);
	if (srcfd < 0)
		return error_errno(e, errno, "open `%s`", src);
	ret = create_shift_bind(srcfd, src, &bindfd, e);
	if (ret == 0)
		ret = attach_mount(bindfd, dst, e);
	if (ret < 0)
		return ret;
	printf("shifted %s onto %s\n", src, dst);
	return 0;
}

static int cmd_status(int argc, char **argv, struct error *e)
{
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ NULL, 0, NULL, 0 },
	};
	_cleanup_free_ char *text = NULL;
	char real[PATH_MAX];
	const char *under = NULL;
	bool json = false;
	int c, ret;

	while ((c = next_option(argc, argv, longopts)) != -1) {
		if (c != 'j')
			return USAGE;
		json = true;
	}
	if (argc - optind > 1)
		return USAGE;
	/* mountinfo has canonical paths; a PATH that is not there is a typo. */
	if (argc - optind == 1) {
		if (!realpath(argv[optind], real))
			return error_errno(e, errno, "status: `%s`", argv[optind]);
		under = real;
	}
	ret = mountinfo_read(&text, e);
	if (ret < 0)
		return ret;
	return status_print(text, under, json, stdout, e);
}

static int cmd_prepare_image(int argc, char **argv, struct error *e)
{
	static const struct option longopts[] = { { NULL, 0, NULL, 0 } };

	if (next_option(argc, argv, longopts) != -1 || argc - optind != 1)
		return USAGE;
	return prepare_image(argv[optind], stdout, e);
}

static int cmd_prepare_store(int argc, char **argv, struct error *e)
{
	bool force;
	const char *store = flag_and_operand(argc, argv, "force", &force);

	return store ? prepare_store(store, force, stdout, e) : USAGE;
}

/* PODMAN_INSIDE_OPTION is how the command finds itself in podman's namespace. */
static int cmd_podman_setup(int argc, char **argv, struct error *e)
{
	static const struct option longopts[] = {
		{ PODMAN_INSIDE_NAME, no_argument, NULL, 'i' },
		{ NULL, 0, NULL, 0 },
	};
	bool inside = false;
	int c;

	while ((c = next_option(argc, argv, longopts)) != -1) {
		if (c != 'i')
			return USAGE;
		inside = true;
	}
	if (argc - optind < 1)
		return USAGE;
	return podman_setup(argv + optind, argc - optind, inside, stdout, e);
}

static int cmd_apply_config(int argc, char **argv, struct error *e)
{
	static const struct option longopts[] = { { NULL, 0, NULL, 0 } };

	if (next_option(argc, argv, longopts) != -1 || argc - optind > 1)
		return USAGE;
	return apply_config(argc - optind == 1 ? argv[optind] : SHIFTBIND_ALLOW_CONF,
			    stdout, e);
}

static int cmd_patch_config(int argc, char **argv, struct error *e)
{
	static const struct option longopts[] = {
		{ "rootless", no_argument, NULL, 'r' },
		{ "hook", required_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *hook = SHIFTBIND_HOOK_PATH;
	bool rootless = false;
	int c;

	while ((c = next_option(argc, argv, longopts)) != -1) {
		if (c == 'r')
			rootless = true;
		else if (c == 'h' && optarg[0] == '/')
			hook = optarg;
		else
			return USAGE;
	}
	if (argc - optind != 1)
		return USAGE;
	return patch_config(argv[optind], hook, rootless, stdout, e);
}

static const struct command commands[] = {
	{ "allow", "[--rw] [--suid] [--suid-host] [--owner WHO]... [--group NAME]... [--force] PATH",
	  "mark the store PATH allow-shift (real root): read-only, and set-ID bits\n"
	  "      ignored, unless --rw, --suid (in its containers' shifts) or\n"
	  "      --suid-host (on the host path too), for the user namespaces of the\n"
	  "      owners WHO (uid, user name or FIRST-LAST; default: real root's only)\n"
	  "      and of the members of group NAME now (their uids)",
	  cmd_allow },
	{ "disallow", "[--revoke] PATH",
	  "withdraw the allow-shift mark of the store PATH (real root); --revoke also takes back the shifts made through it",
	  cmd_disallow },
	{ "shift", "SRC DST",
	  "mount a shift bind of SRC on DST (root of a user namespace)", cmd_shift },
	{ "status", "[--json] [PATH]",
	  "list marked and shifted mounts (at or below PATH)", cmd_status },
	{ "prepare-image", "DIR",
	  "create the mount targets runtimes need in image DIR (real root)",
	  cmd_prepare_image },
	{ "prepare-store", "[--force] STORE",
	  "make the podman overlay store STORE usable by rootless podman users:\n"
	  "      metadata readable, opaque directories marked for user namespaces\n"
	  "      (real root); a live graphroot is refused unless --force",
	  cmd_prepare_store },
	{ "podman-setup", "STORE...",
	  "shift each STORE over itself in your rootless podman's mount namespace\n"
	  "      (the store's user, after boot or podman system migrate)",
	  cmd_podman_setup },
	{ "apply-config", "[FILE]",
	  "mark every store listed in FILE (default " SHIFTBIND_ALLOW_CONF ")",
	  cmd_apply_config },
	{ "patch-config", "[--rootless] [--hook PATH] BUNDLE",
	  "register the hook (default " SHIFTBIND_HOOK_PATH ") in BUNDLE/config.json",
	  cmd_patch_config },
};

static const struct command *find_command(const char *name)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(commands); i++)
		if (!strcmp(name, commands[i].name))
			return &commands[i];
	return NULL;
}

static void usage(FILE *out)
{
	size_t i;

	fprintf(out, "Usage: shiftbind COMMAND [ARGS]\n\nCommands:\n");
	for (i = 0; i < ARRAY_SIZE(commands); i++)
		fprintf(out, "  %s %s\n      %s\n", commands[i].name,
			commands[i].args, commands[i].summary);
	fprintf(out, "\n`shiftbind COMMAND --help` shows one command.  See shiftbind(8).\n");
}

static bool wants_help(int argc, char **argv)
{
	int i;

	for (i = 1; i < argc; i++)
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h"))
			return true;
	return false;
}

int main(int argc, char **argv)
{
	struct error err = { 0, "" };
	const struct command *cmd;
	int ret;

	if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		usage(argc < 2 ? stderr : stdout);
		return argc < 2 ? 2 : 0;
	}
	cmd = find_command(argv[1]);
	if (!cmd) {
		fprintf(stderr, "shiftbind: unknown command \"%s\"\n", argv[1]);
		usage(stderr);
		return 2;
	}
	if (wants_help(argc - 1, argv + 1)) {
		printf("Usage: shiftbind %s %s\n  %s\n", cmd->name, cmd->args,
		       cmd->summary);
		return 0;
	}
	opterr = 1;
	ret = cmd->run(argc - 1, argv + 1, &err);
	if (ret == USAGE) {
		fprintf(stderr, "Usage: shiftbind %s %s\n", cmd->name, cmd->args);
		return 2;
	}
	if (ret < 0) {
		fprintf(stderr, "shiftbind %s: %s\n", cmd->name, err.msg);
		return 1;
	}
	return 0;
}
