// SPDX-License-Identifier: GPL-2.0
/*
 * shiftbind-hook: OCI hook that shifts a container's rootfs bind in
 * place, so that files owned by real root in a shared image appear owned
 * by the container's root.  See shiftbind-hook(8).
 *
 *   shiftbind-hook createRuntime     rootful runtimes: runs as host root in
 *                                    the host's namespaces, joins the
 *                                    container's mount namespace
 *   shiftbind-hook prestart          the same, for bundles registered
 *                                    before createRuntime (prestart is
 *                                    deprecated by the OCI runtime spec)
 *   shiftbind-hook createContainer   rootless runtimes: runs inside the
 *                                    container's user and mount namespaces
 *
 * Order: the container's JSON is parsed by an unprivileged, confined
 * child (the hook's binary re-executed) into a plain struct (privsep.h);
 * the hook decides, opens what it acts on and prepares each shift on a
 * configfd, confines itself to running those shifts (sandbox.h),
 * checks, and only then shifts.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "common.h"
#include "configfd.h"
#include "fileio.h"
#include "kernel.h"
#include "log.h"
#include "mounts.h"
#include "shift.h"
#include "privsep.h"
#include "sandbox.h"
#include "spec.h"
#include "timing.h"

/* Where the hook runs, which decides what it joins. */
enum stage {
	STAGE_RUNTIME,		/* host root, the runtime's namespaces: joins the container's */
	STAGE_CREATE_CONTAINER,	/* already in the container's namespaces */
};

/*
 * The stage arguments.  crun runs createRuntime and prestart hooks at
 * the same point, in the runtime's namespaces, with the container's
 * pid in the state: both are STAGE_RUNTIME.
 */
static const struct {
	const char *name;
	enum stage stage;
} stage_args[] = {
	{ "createRuntime", STAGE_RUNTIME },
	{ "prestart", STAGE_RUNTIME },
	{ "createContainer", STAGE_CREATE_CONTAINER },
};

/* /proc/<pid>/uid_map is at most 340 short lines. */
#define PROC_MAP_MAX (64 * 1024)

static void usage(FILE *out)
{
	fprintf(out,
		"Usage: shiftbind-hook createRuntime|createContainer|prestart\n"
		"\n"
		"OCI hook: reads the container state on stdin and shifts the container's\n"
		"rootfs bind mount (configfd bind, flag shift), so that real-root-owned\n"
		"files of a shared image appear owned by the container's root.\n"
		"\n"
		"  createRuntime    register here for rootful runtimes\n"
		"  createContainer  register here for rootless runtimes\n"
		"  prestart         as createRuntime, for bundles registered before it\n"
		"\n"
		"A container without a user namespace is left alone.  Annotations:\n"
		"  org.shiftbind.shift=false          do not shift this container\n"
		"  org.shiftbind.extra-mounts=/a,/b   also shift these bind mounts\n"
		"\n"
		"Logs to stderr, syslog and $" LOG_FILE_ENV " (default " LOG_FILE_DEFAULT
		" if /run/shiftbind exists).\n"
		"See shiftbind-hook(8).\n");
}

static int parse_stage(const char *arg, enum stage *out)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(stage_args); i++)
		if (!strcmp(arg, stage_args[i].name)) {
			*out = stage_args[i].stage;
			return 0;
		}
	return -EINVAL;
}

/*
 * /proc/<pid> of the process the state names, and no other: the pid is
 * pinned with a pidfd first, and still alive once the directory is open,
 * so the number was not reused in between (the directory then stays
 * that process's, and reads ESRCH once it is gone).
 */
static int open_pinned_proc_dir(pid_t pid, const char *display, int *out,
				struct error *e)
{
	_cleanup_close_ int pidfd = (int)syscall(__NR_pidfd_open, pid, 0);
	_cleanup_close_ int fd = -1;

	/* ENOSYS: before Linux 5.3 (or under valgrind), nothing to pin with. */
	if (pidfd < 0 && errno != ENOSYS)
		return error_errno(e, errno, "state: pid %d", (int)pid);
	fd = open(display, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return error_errno(e, errno, "open `%s`", display);
	if (pidfd >= 0 && syscall(__NR_pidfd_send_signal, pidfd, 0, NULL, 0) < 0)
		return error_errno(e, errno,
				   "state: pid %d ended while the hook opened %s",
				   (int)pid, display);
	*out = steal_fd(&fd);
	return 0;
}

/*
 * The directory of the process whose id mappings and mount namespace
 * count: the container's init at createRuntime (or prestart), the hook
 * itself at createContainer, where it runs inside the container's
 * namespaces (crun 1.8.1 passes pid 0 there).  At createRuntime it is pinned
 * (open_pinned_proc_dir).
 */
static int open_proc_dir(enum stage stage, pid_t pid, int *out, char *display,
			 size_t size, struct error *e)
{
	int fd;

	switch (stage) {
	case STAGE_RUNTIME:
		if (pid <= 0)
			return error_msg(e, EINVAL,
					 "state: pid: %d is no process; at createRuntime and prestart the runtime must pass the container's pid",
					 (int)pid);
		snprintf(display, size, "/proc/%d", (int)pid);
		break;
	case STAGE_CREATE_CONTAINER:
		snprintf(display, size, "/proc/self");
		break;
	}
	if (stage == STAGE_RUNTIME)
		return open_pinned_proc_dir(pid, display, out, e);
	fd = open(display, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return error_errno(e, errno, "open `%s`", display);
	*out = fd;
	return 0;
}

/*
 * The kernel's view must be the one config.json states: the shift maps
 * through the namespace's real mapping, and a mismatch means the hook is
 * looking at the wrong process or namespace.
 */
static int check_proc_map(int procfd, const char *proc, const char *file,
			  const struct idmap *expected, const char *key,
			  struct error *e)
{
	_cleanup_free_ char *text = NULL;
	struct idmap actual = { NULL, 0 };
	char display[64], want[256], got[256];
	size_t len;
	int ret;

	snprintf(display, sizeof(display), "%s/%s", proc, file);
	ret = read_regular_file_at(procfd, file, display, FOLLOW_SYMLINKS,
				   PROC_MAP_MAX, &text, &len, e);
	if (ret == 0)
		ret = idmap_parse_proc(text, display, &actual, e);
	if (ret < 0)
		return ret;
	if (!idmap_same(&actual, expected)) {
		idmap_format(&actual, got, sizeof(got));
		idmap_format(expected, want, sizeof(want));
		ret = error_msg(e, EINVAL,
				"%s (%s) does not match config.json linux.%s (%s): refusing",
				display, got[0] ? got : "empty", key, want);
	}
	idmap_free(&actual);
	return ret;
}

/*
 * The container's maps are what config.json says; a joined namespace
 * whose config.json restates none has the maps /proc shows, with nothing
 * to compare them to.
 */
static int check_mappings(int procfd, const char *proc,
			  const struct hook_input *in, struct error *e)
{
	int ret;

	if (!in->maps_given)
		return 0;
	ret = check_proc_map(procfd, proc, "uid_map", &in->uid_map,
				     "uidMappings", e);
	if (ret == 0)
		ret = check_proc_map(procfd, proc, "gid_map", &in->gid_map,
				     "gidMappings", e);
	return ret;
}

/* A mount the hook will shift: crun's bind of the rootfs, or an extra one. */
struct target {
	int fd;
	char *path;
	int mnt_id;		/* the mount, whatever path led to it */
	int configfd;		/* its prepared shift (shift_prepare), or -1 */
};

struct targets {
	struct target item[1 + EXTRA_MOUNTS_MAX];
	size_t count;
};

static void targets_close(struct targets *t)
{
	size_t i;

	for (i = 0; i < t->count; i++) {
		closep(&t->item[i].fd);
		closep(&t->item[i].configfd);
		free(t->item[i].path);
	}
	t->count = 0;
}

/*
 * Refuse before the kernel would, with the fix in the message.  The
 * kernel checks the same again: this only makes the common mistakes
 * readable.
 */
static int check_shiftable(struct target *t, const char *role,
			   struct error *e)
{
	struct mount_facts f;
	int ret = mount_facts_of(t->fd, t->path, &f, e);

	if (ret < 0)
		return ret;
	t->mnt_id = f.mnt_id;
	if (!f.mount_root)
		return error_msg(e, EINVAL,
				 "%s %s is not a mount root in the container's mount namespace (expected the runtime's bind mount of it)",
				 role, t->path);
	if (!f.allow_shift)
		return error_msg(e, EPERM,
				 "%s %s is not in a store marked allow-shift; run: shiftbind allow <store>",
				 role, t->path);
	if (f.shifted)
		return error_msg(e, EALREADY, "%s %s is already shifted", role,
				 t->path);
	return 0;
}

/* Takes fd and path (malloc'ed, may be NULL after ENOMEM), also on failure. */
static int add_target(struct targets *t, int fd, char *path, struct error *e)
{
	struct target *x = &t->item[t->count++];

	x->fd = fd;
	x->path = path;
	x->configfd = -1;
	if (!x->path)
		return error_errno(e, ENOMEM, "target %d", fd);
	return 0;
}

/*
 * Opened only: nothing of them is read until the hook is confined
 * (their mountinfo lines carry mount points the container chose).
 */
static int open_targets(const struct hook_input *in, struct targets *t,
			struct error *e)
{
	int rootfd, ret;
	size_t i;

	rootfd = open(in->root_path, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (rootfd < 0)
		return error_errno(e, errno, "open rootfs `%s`", in->root_path);
	ret = add_target(t, rootfd, strdup(in->root_path), e);
	for (i = 0; ret == 0 && i < in->opts.extra_count; i++) {
		const char *dst = in->opts.extra_mounts[i];
		char *path;
		int fd;

		if (asprintf(&path, "%s%s", in->root_path, dst) < 0)
			return error_errno(e, ENOMEM, "extra mount %s", dst);
		/*
		 * Resolved inside the rootfs, as the runtime resolved it, so
		 * that an image's symlink cannot lead the hook to a mount
		 * outside the container.
		 */
		fd = open_resolved(rootfd, dst, O_PATH, SCOPE_IN_ROOT);
		if (fd < 0) {
			ret = error_errno(e, -fd, "open extra mount `%s` (annotation "
					  ANNOTATION_EXTRA_MOUNTS ")", path);
			free(path);
			return ret;
		}
		ret = add_target(t, fd, path, e);
	}
	return ret;
}

/*
 * Each target shiftable, and each a mount of its own: paths can alias (a
 * symlink in the image, "/x/.."), and one mount named twice would be
 * shifted, then refused by the kernel, halfway.
 */
static int check_targets(struct targets *t, struct error *e)
{
	size_t i, j;
	int ret;

	for (i = 0; i < t->count; i++) {
		struct target *x = &t->item[i];
		const char *role = i ? "extra mount" : "rootfs";

		ret = check_shiftable(x, role, e);
		for (j = 0; ret == 0 && j < i; j++)
			if (t->item[j].mnt_id == x->mnt_id)
				ret = error_msg(e, EINVAL,
						"%s %s is the same mount as %s (mount %d): each mount is shifted once; drop it from "
						ANNOTATION_EXTRA_MOUNTS,
						role, x->path, t->item[j].path, x->mnt_id);
		if (ret < 0)
			return ret;
	}
	return 0;
}

/*
 * Each target's shift set up on a configfd of its own, at the fd number
 * the hook's filter reserves for it (sandbox.h): once confined, the hook
 * can run these shifts and no other configfd command.
 */
static int prepare_shifts(struct targets *t, struct error *e)
{
	size_t i;
	int ret;

	for (i = 0; i < t->count; i++) {
		struct target *x = &t->item[i];

		ret = shift_prepare(x->fd, x->path, SANDBOX_CONFIGFD_FIRST + (int)i,
				    &x->configfd, e);
		if (ret < 0)
			return error_context(e, "preparing the shift of %s", x->path);
	}
	return 0;
}

/*
 * Every target was checked before the first is shifted.  Should the
 * kernel still refuse one, the container fails and its mount namespace,
 * the only place anything changed, goes away with it.
 */
static int shift_targets(const struct targets *t, struct error *e)
{
	size_t i;
	int ret;

	for (i = 0; i < t->count; i++) {
		ret = shift_commit(t->item[i].configfd, t->item[i].path, e);
		if (ret < 0)
			return error_context(e, "shifting %s", t->item[i].path);
		log_msg(LOG_INFO, "shifted %s", t->item[i].path);
	}
	return 0;
}

/* Why nothing is to be done, or NULL. */
static const char *nothing_to_do(const struct hook_input *in)
{
	if (!in->has_userns)
		return "no user namespace in config.json: nothing to do";
	if (in->opts.opt_out)
		return ANNOTATION_SHIFT "=false: not shifting, nothing to do";
	return NULL;
}

static int check_stage_credentials(enum stage stage, const char *name,
				   struct error *e)
{
	if (stage == STAGE_RUNTIME && geteuid() != 0)
		return error_msg(e, EPERM,
				 "%s runs as uid %d, not root: rootless runtimes must register the hook at createContainer (createRuntime is for rootful runtimes); run: shiftbind patch-config --rootless BUNDLE",
				 name, (int)geteuid());
	return 0;
}

static bool self_test_requested(void)
{
	const char *v = getenv(SANDBOX_TEST_ENV);

	return v && !strcmp(v, "1");
}

/*
 * From here on the hook reads what the container can influence
 * (mountinfo lines with the mount points it chose) and only runs the
 * shifts it prepared: it gives up creating, writing or truncating
 * files, new sockets, setns, openat2, the mount API and every configfd
 * call but those shifts first.
 */
static int confine(bool self_test, struct error *e)
{
	char report[512];
	int ret = sandbox_install(SANDBOX_HOOK, e);

	if (ret < 0)
		return error_context(e, "confining the hook");
	if (!self_test)
		return 0;
	ret = sandbox_self_test(SANDBOX_HOOK, report, sizeof(report), e);
	if (ret == 0)
		log_msg(LOG_INFO, "%s", report);
	return ret;
}

/*
 * Everything needed to act is opened first (the syslog socket, the
 * container's /proc directory, its mount namespace, the mounts to shift,
 * a configfd prepared for each shift), then the hook confines itself,
 * checks the mounts and runs the prepared shifts.
 */
static int act(enum stage stage, const char *name, bool self_test,
	       const struct hook_input *in, struct error *e)
{
	__attribute__((cleanup(targets_close))) struct targets t = { .count = 0 };
	_cleanup_close_ int procfd = -1;
	char proc[32];
	int ret;

	/* A syslog daemon started since the hook did still gets its lines. */
	log_connect();
	ret = check_stage_credentials(stage, name, e);
	if (ret == 0)
		ret = hook_input_validate(in, e);
	if (ret == 0)
		ret = open_proc_dir(stage, in->pid, &procfd, proc, sizeof(proc), e);
	/* The kernel writes the maps, and only the runtime could set them. */
	if (ret == 0)
		ret = check_mappings(procfd, proc, in, e);
	if (ret == 0)
		ret = kernel_check_configfd(configfd_probe(), e);
	timing_mark("checks");
	if (ret < 0)
		return ret;
	if (stage == STAGE_RUNTIME) {
		ret = join_mount_namespace(procfd, in->pid, e);
		if (ret < 0)
			return error_context(e, "joining the container's mount namespace");
		log_msg(LOG_INFO, "joined the mount namespace of pid %d", (int)in->pid);
		timing_mark("setns");
	}
	ret = open_targets(in, &t, e);
	timing_mark("open");
	if (ret == 0)
		ret = prepare_shifts(&t, e);
	timing_mark("prepare");
	if (ret == 0)
		ret = confine(self_test, e);
	timing_mark("confine");
	if (ret == 0)
		ret = check_targets(&t, e);
	timing_mark("check");
	if (ret == 0)
		ret = shift_targets(&t, e);
	timing_mark("shift");
	return ret;
}

static void log_input(const struct hook_input *in)
{
	log_msg(LOG_INFO, "bundle %s, rootfs %s%s, user namespace %s%s",
		in->bundle, in->root_path, in->root_readonly ? " (read-only)" : "",
		in->has_userns ? "yes" : "no",
		in->userns_path ? " (joined)" : "");
}

/* The input, parsed by a re-executed copy of the hook (privsep.h). */
static int parse_input(bool self_test, struct hook_input *in, struct error *e)
{
	_cleanup_close_ int exe = -1;
	int ret = privsep_open_self(&exe, e);

	return ret < 0 ? ret : parse_untrusted_input(exe, STDIN_FILENO, self_test, in, e);
}

static int run(enum stage stage, const char *name, struct hook_input *in,
	       struct error *e)
{
	bool self_test = self_test_requested();
	const char *why;
	int ret;

	ret = parse_input(self_test, in, e);
	/* Name the container even when a later part of its input was refused. */
	if (in->id)
		log_set_context("%s: container %s", name, in->id);
	if (ret < 0)
		return ret;
	log_input(in);
	why = nothing_to_do(in);
	if (why) {
		log_msg(LOG_INFO, "%s", why);
		return 0;
	}
	ret = act(stage, name, self_test, in, e);
	if (ret == 0)
		log_msg(LOG_INFO, "done: %zu mount(s) shifted", 1 + in->opts.extra_count);
	return ret;
}

int main(int argc, char **argv)
{
	struct hook_input in;
	struct error err = { 0, "" };
	enum stage stage;
	int ret;

	privsep_parser_dispatch(argc, argv);
	timing_start();
	if (argc == 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		usage(stdout);
		return 0;
	}
	if (argc != 2 || parse_stage(argv[1], &stage) < 0) {
		usage(stderr);
		return 2;
	}
	memset(&in, 0, sizeof(in));
	log_open("shiftbind-hook", LOG_SINK_STDERR | LOG_SINK_SYSLOG | LOG_SINK_FILE);
	/* Logged under the stage the runtime named: an old bundle's says prestart. */
	log_set_context("%s", argv[1]);
	timing_mark("log_open");
	ret = run(stage, argv[1], &in, &err);
	if (ret < 0)
		log_msg(LOG_ERR, "%s", err.msg);
	timing_report();
	hook_input_free(&in);
	log_close();
	return ret < 0 ? 1 : 0;
}
