// SPDX-License-Identifier: GPL-2.0
/* privsep.c: see privsep.h. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <stdbool.h>
#include <linux/capability.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common.h"
#include "fileio.h"
#include "idmap.h"
#include "log.h"
#include "owners.h"
#include "privsep.h"
#include "sandbox.h"
#include "spec.h"
#include "timing.h"
#include "wire.h"

enum reply_tag {
	REPLY_NOTE = 1,		/* text for the hook's log; more follows */
	REPLY_STATE,		/* the state parsed: container id, bundle */
	REPLY_INPUT,		/* config.json parsed: the whole hook_input */
	REPLY_ERROR,		/* errno, message, container id if known */
};

/* --- the flat hook_input -------------------------------------------- */

static void put_idmap(struct wire_writer *w, const struct idmap *map)
{
	size_t i;

	wire_put_u32(w, (uint32_t)map->count);
	for (i = 0; i < map->count; i++) {
		wire_put_u32(w, map->extent[i].container);
		wire_put_u32(w, map->extent[i].host);
		wire_put_u32(w, map->extent[i].size);
	}
}

void hook_input_encode(const struct hook_input *in, struct wire_writer *w)
{
	size_t i;

	wire_put_str(w, in->id);
	wire_put_u32(w, (uint32_t)in->pid);
	wire_put_str(w, in->bundle);
	wire_put_str(w, in->root_path);
	wire_put_bool(w, in->root_readonly);
	wire_put_bool(w, in->has_userns);
	wire_put_str(w, in->userns_path);
	wire_put_bool(w, in->maps_given);
	put_idmap(w, &in->uid_map);
	put_idmap(w, &in->gid_map);
	wire_put_bool(w, in->have_annotations);
	wire_put_bool(w, in->opts.opt_out);
	wire_put_u32(w, (uint32_t)in->opts.extra_count);
	for (i = 0; i < in->opts.extra_count; i++)
		wire_put_str(w, in->opts.extra_mounts[i]);
}

static int get_idmap(struct wire_reader *r, struct idmap *map, struct error *e)
{
	uint32_t count, i;
	int ret = wire_get_u32(r, IDMAP_MAX_EXTENTS, &count, e);

	if (ret < 0 || count == 0)
		return ret;
	map->extent = calloc(count, sizeof(*map->extent));
	if (!map->extent)
		return error_errno(e, ENOMEM, "%s", r->what);
	map->count = count;
	for (i = 0; ret == 0 && i < count; i++) {
		struct idmap_extent *x = &map->extent[i];

		ret = wire_get_u32(r, UINT32_MAX, &x->container, e);
		if (ret == 0)
			ret = wire_get_u32(r, UINT32_MAX, &x->host, e);
		if (ret == 0)
			ret = wire_get_u32(r, UINT32_MAX, &x->size, e);
	}
	return ret;
}

static int get_absolute_path(struct wire_reader *r, const char *field,
			     bool optional, char **out, struct error *e)
{
	int ret = wire_get_str(r, PATH_MAX - 1, optional, out, e);

	if (ret == 0 && *out && (*out)[0] != '/')
		return error_msg(e, EPROTO, "%s: %s from the parser child is not absolute",
				 r->what, field);
	return ret;
}

static int get_extra_mounts(struct wire_reader *r, struct hook_options *opts,
			    struct error *e)
{
	uint32_t count, i;
	int ret = wire_get_u32(r, EXTRA_MOUNTS_MAX, &count, e);

	if (ret < 0)
		return ret;
	opts->extra_mounts = calloc(EXTRA_MOUNTS_MAX + 1, sizeof(*opts->extra_mounts));
	if (!opts->extra_mounts)
		return error_errno(e, ENOMEM, "%s", r->what);
	for (i = 0; ret == 0 && i < count; i++) {
		char **dst = &opts->extra_mounts[i];

		ret = wire_get_str(r, PATH_MAX - 1, false, dst, e);
		if (ret < 0)
			break;
		opts->extra_count++;
		ret = annotation_check_destination(r->what, *dst, strlen(*dst), e);
	}
	return ret;
}

int hook_input_decode(const char *data, size_t len, struct hook_input *in,
		      struct error *e)
{
	struct wire_reader r = { data, len, "parsed input" };
	uint32_t pid;
	int ret;

	ret = wire_get_str(&r, CONTAINER_ID_MAX, false, &in->id, e);
	if (ret == 0)
		ret = wire_get_u32(&r, INT_MAX, &pid, e);
	if (ret == 0) {
		in->pid = (pid_t)pid;
		ret = get_absolute_path(&r, "bundle", false, &in->bundle, e);
	}
	if (ret == 0)
		ret = get_absolute_path(&r, "root.path", false, &in->root_path, e);
	if (ret == 0)
		ret = wire_get_bool(&r, &in->root_readonly, e);
	if (ret == 0)
		ret = wire_get_bool(&r, &in->has_userns, e);
	if (ret == 0)
		ret = get_absolute_path(&r, "user namespace path", true,
					&in->userns_path, e);
	if (ret == 0)
		ret = wire_get_bool(&r, &in->maps_given, e);
	if (ret == 0)
		ret = get_idmap(&r, &in->uid_map, e);
	if (ret == 0)
		ret = get_idmap(&r, &in->gid_map, e);
	if (ret == 0)
		ret = wire_get_bool(&r, &in->have_annotations, e);
	if (ret == 0)
		ret = wire_get_bool(&r, &in->opts.opt_out, e);
	if (ret == 0)
		ret = get_extra_mounts(&r, &in->opts, e);
	if (ret == 0)
		ret = wire_end(&r, e);
	return ret;
}

/* --- frames: a 32-bit length, then that many bytes ------------------ */

static int send_frame(int fd, const void *data, size_t len)
{
	uint32_t n = (uint32_t)len;
	int ret;

	if (len > UINT32_MAX)
		return -EMSGSIZE;
	ret = write_all(fd, &n, sizeof(n));
	return ret < 0 ? ret : write_all(fd, data, len);
}

/* A frame of at most max bytes into a new NUL-terminated *out; 0 at EOF. */
static ssize_t recv_frame(int fd, size_t max, char **out)
{
	uint32_t n;
	ssize_t got = read_exact(fd, &n, sizeof(n));
	char *buf;

	if (got <= 0)
		return got;
	if ((size_t)got < sizeof(n))
		return -EPROTO;
	if (n > max)
		return -EMSGSIZE;
	buf = malloc((size_t)n + 1);
	if (!buf)
		return -ENOMEM;
	got = read_exact(fd, buf, n);
	if (got != (ssize_t)n) {
		free(buf);
		return got < 0 ? got : -EPROTO;
	}
	buf[n] = '\0';
	*out = buf;
	return (ssize_t)n + 1;
}

/* --- the parser child ----------------------------------------------- */

static int send_reply(struct wire_writer *w)
{
	struct error e = { 0, "" };

	if (wire_done(w, &e) < 0)
		return -ENOMEM;
	return send_frame(PARSER_REPLY_FD, w->data, w->len);
}

static void __attribute__((noreturn)) child_exit(struct wire_writer *w,
						  int status)
{
	wire_writer_free(w);
	_exit(status);
}

/* Sent instead of what was asked: the hook logs it as its own error. */
static void __attribute__((noreturn)) child_fail(const struct error *e,
						  const char *id)
{
	struct wire_writer w = { 0 };

	wire_put_u32(&w, REPLY_ERROR);
	wire_put_u32(&w, (uint32_t)(e->code > 0 ? e->code : EINVAL));
	wire_put_str(&w, e->msg);
	wire_put_str(&w, id);
	child_exit(&w, send_reply(&w) < 0);
}

static void child_note(const char *text)
{
	struct wire_writer w = { 0 };

	wire_put_u32(&w, REPLY_NOTE);
	wire_put_str(&w, text);
	if (send_reply(&w) < 0)
		child_exit(&w, 1);
	wire_writer_free(&w);
}

/* One request: a document the hook read for the child. */
static char *child_request(size_t max, size_t *len)
{
	char *text = NULL;
	ssize_t n = recv_frame(PARSER_REQUEST_FD, max, &text);

	/* EOF: the hook gave up (it reports why); anything else is a bug. */
	if (n <= 0)
		_exit(n < 0);
	*len = (size_t)n - 1;
	return text;
}

/* --- starting the child: fork, drop, re-exec ------------------------ */

/*
 * Who the child runs as.  Real root in the initial user namespace (a
 * rootful runtime's createRuntime) hands it to PARSER_USER, whom nothing else
 * runs as: no other uid can signal it (kill(2) gets EPERM), nor trace
 * it.  Anywhere else (a rootless runtime's createContainer, inside the
 * container's user namespace) that uid is not mapped, and the child
 * keeps the hook's own, without capabilities: the runtime's user and
 * host root alone can signal it, and killing it fails only the
 * container that user is starting.
 */
struct parser_identity {
	bool switch_ids;
	uid_t uid;
	gid_t gid;
};

/*
 * uid_map "0 0 4294967295": the initial user namespace (or one as wide).
 * Read as the hook reads the container's maps (no stdio: its code is
 * translated afresh at every start under TCG, docs/benchmarks.md); a
 * map that cannot be read is not the initial one.
 */
static bool in_initial_user_namespace(void)
{
	struct idmap_extent all = { 0, 0, 4294967295U };
	const struct idmap initial = { &all, 1 };
	_cleanup_free_ char *text = NULL;
	struct idmap self = { NULL, 0 };
	struct error ignored = { 0, "" };
	bool same;
	size_t len;

	if (read_regular_file_at(AT_FDCWD, "/proc/self/uid_map", "/proc/self/uid_map",
				 FOLLOW_SYMLINKS, 4096, &text, &len, &ignored) < 0 ||
	    idmap_parse_proc(text, "/proc/self/uid_map", &self, &ignored) < 0)
		return false;
	same = idmap_same(&self, &initial);
	idmap_free(&self);
	return same;
}

static int parser_identity(struct parser_identity *id, struct error *e)
{
	static const char fix[] =
		"create it: useradd --system --user-group --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin "
		PARSER_USER " (shiftbind-hook(8), PARSER USER)";
	int ret;

	id->switch_ids = geteuid() == 0 && in_initial_user_namespace();
	if (!id->switch_ids)
		return 0;
	ret = passwd_find(PARSER_USER, &id->uid, &id->gid, NULL, 0);
	if (ret < 0)
		return error_errno(e, -ret, "parser child: reading `%s` for user %s",
				   OWNERS_PASSWD, PARSER_USER);
	if (ret == 0)
		return error_msg(e, ENOENT,
				 "parser child: user %s is not in %s: the hook parses each container's JSON as this user; %s",
				 PARSER_USER, OWNERS_PASSWD, fix);
	if (id->uid == 0 || id->gid == 0 || id->uid == PARSER_SHARED_UID ||
	    id->gid == PARSER_SHARED_UID)
		return error_msg(e, EINVAL,
				 "parser child: user %s has uid %u, gid %u, which other processes run as (root, nobody): give it ids of its own; %s",
				 PARSER_USER, (unsigned int)id->uid, (unsigned int)id->gid, fix);
	return 0;
}

/*
 * The runtime's stdin, stdout and the hook's log are none of the
 * child's business: only its two pipes, stderr and the hook's binary
 * (close-on-exec) stay open.  *exe is moved above the pipes first.
 */
static int child_keep_only_pipes(int request, int reply, int *exe,
				 struct error *e)
{
	int fd = fcntl(*exe, F_DUPFD_CLOEXEC, STDERR_FILENO + 1);

	if (fd < 0)
		return error_errno(e, errno, "parser child: fcntl(F_DUPFD_CLOEXEC)");
	*exe = fd;
	if (dup2(request, PARSER_REQUEST_FD) < 0 || dup2(reply, PARSER_REPLY_FD) < 0)
		return error_errno(e, errno, "parser child: dup2");
	if (syscall(SYS_close_range, STDERR_FILENO + 1, fd - 1, 0) == 0 &&
	    syscall(SYS_close_range, fd + 1, ~0U, 0) == 0)
		return 0;
	if (errno != ENOSYS)
		return error_errno(e, errno, "parser child: close_range");
	for (int other = STDERR_FILENO + 1; other < 1024; other++)
		if (other != fd)
			close(other);
	return 0;
}

static bool no_capabilities(void)
{
	struct __user_cap_header_struct hdr = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct data[2];
	size_t i;

	memset(data, 0, sizeof(data));
	if (syscall(SYS_capget, &hdr, data) < 0)
		return false;
	for (i = 0; i < ARRAY_SIZE(data); i++)
		if (data[i].effective || data[i].permitted || data[i].inheritable)
			return false;
	return true;
}

/*
 * Before the exec, in the forked child, which runs nothing but this:
 * the parser's ids, no capabilities, and no_new_privs, so that the exec
 * cannot give any back (a uid 0 that stays, in a user namespace, would
 * otherwise regain them).  Its CPU time is bounded too, whatever the
 * input makes of the parser.
 */
static int child_drop_privileges(const struct parser_identity *id,
				 struct error *e)
{
	struct __user_cap_header_struct hdr = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct none[2];
	struct rlimit cpu = { PARSER_CPU_SECONDS, PARSER_CPU_SECONDS };

	memset(none, 0, sizeof(none));
	if (setrlimit(RLIMIT_CPU, &cpu) < 0)
		return error_errno(e, errno, "parser child: setrlimit(RLIMIT_CPU)");
	if (id->switch_ids &&
	    (setgroups(0, NULL) < 0 || setresgid(id->gid, id->gid, id->gid) < 0 ||
	     setresuid(id->uid, id->uid, id->uid) < 0))
		return error_errno(e, errno, "parser child: becoming %s (uid %u, gid %u)",
				   PARSER_USER, (unsigned int)id->uid, (unsigned int)id->gid);
	if (syscall(SYS_capset, &hdr, none) < 0)
		return error_errno(e, errno, "parser child: dropping capabilities");
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return error_errno(e, errno, "parser child: prctl(PR_SET_NO_NEW_PRIVS)");
	return 0;
}

/*
 * The child is a fresh image of the hook's binary, as OpenSSH re-execs
 * sshd for its unprivileged child: nothing of the privileged process's
 * memory (its input buffers, its heap layout) is in it.  The binary is
 * the one the hook opened at its start (privsep_open_self).
 */
static void __attribute__((noreturn)) parser_exec(int exe, pid_t hook,
						   const struct parser_identity *id,
						   int request, int reply,
						   bool self_test)
{
	char hook_pid[16];
	char *const argv[] = {
		"shiftbind-hook", PARSER_MODE, hook_pid, self_test ? "1" : "0", NULL
	};
	char *const envp[] = { NULL };
	struct error e = { 0, "" };

	snprintf(hook_pid, sizeof(hook_pid), "%d", (int)hook);
	if (child_keep_only_pipes(request, reply, &exe, &e) == 0 &&
	    child_drop_privileges(id, &e) == 0) {
		fexecve(exe, argv, envp);
		error_errno(&e, errno, "parser child: executing the hook's own binary (fd %d) in parser mode",
			    exe);
	}
	child_fail(&e, NULL);
}

/*
 * The child ends with the hook: a runtime's hook timeout kills the hook,
 * and a child parsing on would outlive it.  Set after the exec (a uid
 * change clears it); the hook may have gone already in between.
 */
static int child_tie_to_hook(pid_t hook, struct error *e)
{
	if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) < 0)
		return error_errno(e, errno, "parser child: prctl(PR_SET_PDEATHSIG)");
	if (getppid() != hook)
		return error_msg(e, ESRCH, "parser child: the hook is gone");
	return 0;
}

/* What the child is and may do, for the hook's log. */
static void child_self_test(void)
{
	struct error e = { 0, "" };
	char note[512];

	snprintf(note, sizeof(note), "parser child: uid %d, gid %d, no capabilities, re-executed",
		 (int)getuid(), (int)getgid());
	child_note(note);
	if (sandbox_self_test(SANDBOX_PARSER, note, sizeof(note), &e) < 0)
		child_fail(&e, NULL);
	child_note(note);
}

/* The hook's pid from argv, as parser_exec wrote it; 0 if it is none. */
static pid_t parse_hook_pid(const char *arg)
{
	char *end;
	long pid;

	errno = 0;
	pid = strtol(arg, &end, 10);
	return errno || *end || pid <= 1 || pid > INT_MAX ? 0 : (pid_t)pid;
}

/*
 * Not dumpable before anything else: until then only the parser's own
 * uid could trace it, and from here on nobody but root can.  A process
 * started as the parser any other way than by the hook (by hand, as
 * root) refuses, holding capabilities it must not have.
 */
static void __attribute__((noreturn)) parser_main(int argc, char **argv)
{
	struct hook_input in;
	struct wire_writer w = { 0 };
	struct error e = { 0, "" };
	pid_t hook = argc == 4 ? parse_hook_pid(argv[2]) : 0;
	size_t len;
	char *text;

	memset(&in, 0, sizeof(in));
	if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) < 0)
		error_errno(&e, errno, "parser child: prctl(PR_SET_DUMPABLE)");
	else if (!hook)
		error_msg(&e, EINVAL, "parser child: started without the hook's pid: only the hook starts it");
	else if (!no_capabilities())
		error_msg(&e, EPERM, "parser child: holds capabilities: only the hook starts it, without any");
	else if (child_tie_to_hook(hook, &e) == 0)
		sandbox_install(SANDBOX_PARSER, &e);
	if (e.code)
		child_fail(&e, NULL);
	if (!strcmp(argv[3], "1"))
		child_self_test();

	text = child_request(STATE_MAX, &len);
	if (state_parse(text, len, &in, &e) < 0)
		child_fail(&e, in.id);
	free(text);
	wire_put_u32(&w, REPLY_STATE);
	wire_put_str(&w, in.id);
	wire_put_str(&w, in.bundle);
	if (send_reply(&w) < 0)
		child_exit(&w, 1);
	wire_writer_free(&w);

	text = child_request(CONFIG_MAX, &len);
	if (config_parse(text, len, &in, &e) < 0)
		child_fail(&e, in.id);
	free(text);
	wire_put_u32(&w, REPLY_INPUT);
	hook_input_encode(&in, &w);
	child_exit(&w, send_reply(&w) < 0);
}

void privsep_parser_dispatch(int argc, char **argv)
{
	if (argc >= 2 && !strcmp(argv[1], PARSER_MODE))
		parser_main(argc, argv);
}

int privsep_open_self(int *exe, struct error *e)
{
	int fd = open("/proc/self/exe", O_PATH | O_CLOEXEC);

	if (fd < 0)
		return error_errno(e, errno,
				   "open `/proc/self/exe`: the hook re-executes its own binary to parse its input; it needs /proc mounted");
	*exe = fd;
	return 0;
}

/* --- the hook's side ------------------------------------------------ */

struct parser {
	pid_t pid;
	int request;		/* write end */
	int reply;		/* read end */
};

static int parser_start(struct parser *p, int exe, bool self_test,
			struct error *e)
{
	struct parser_identity id;
	pid_t hook = getpid();
	int request[2], reply[2];
	int ret = parser_identity(&id, e);

	timing_mark("parser_user");
	if (ret < 0)
		return ret;
	if (pipe2(request, O_CLOEXEC) < 0)
		return error_errno(e, errno, "parser child: pipe");
	if (pipe2(reply, O_CLOEXEC) < 0) {
		error_errno(e, errno, "parser child: pipe");
		close(request[0]);
		close(request[1]);
		return -e->code;
	}
	p->pid = fork();
	if (p->pid == 0)
		parser_exec(exe, hook, &id, request[0], reply[1], self_test);
	timing_mark("fork");
	close(request[0]);
	close(reply[1]);
	p->request = request[1];
	p->reply = reply[0];
	if (p->pid < 0) {
		closep(&p->request);
		closep(&p->reply);
		return error_errno(e, errno, "parser child: fork");
	}
	return 0;
}

/*
 * The child's end: reaped, and how it ended checked.  A child killed by
 * a signal says more than the "no reply" its death caused.
 */
static int parser_finish(struct parser *p, int ret, struct error *e)
{
	int status;

	closep(&p->request);
	closep(&p->reply);
	while (waitpid(p->pid, &status, 0) < 0)
		if (errno != EINTR)
			return ret < 0 ? ret : error_errno(e, errno, "parser child: waitpid");
	if (WIFSIGNALED(status) && WTERMSIG(status) == SIGSYS)
		return error_msg(e, EPROTO,
				 "parser child (pid %d) killed by SIGSYS: a syscall outside its seccomp filter; the container's input was not parsed, so it is not started: report this as a bug of shiftbind-hook",
				 (int)p->pid);
	if (WIFSIGNALED(status))
		return error_msg(e, EPROTO,
				 "parser child (pid %d) killed by signal %d (%s) before it answered: the container's input was not parsed, so it is not started; only root (and the parser's own uid) can signal it: find what did (for example with auditd), then start the container again",
				 (int)p->pid, WTERMSIG(status), strsignal(WTERMSIG(status)));
	if (ret < 0)
		return ret;
	if (WEXITSTATUS(status))
		return error_msg(e, EPROTO,
				 "parser child (pid %d) exited with status %d after it answered: the container is not started; see the lines before this one",
				 (int)p->pid, WEXITSTATUS(status));
	return 0;
}

static int child_error(struct wire_reader *r, struct hook_input *in,
		       struct error *e)
{
	_cleanup_free_ char *msg = NULL;
	_cleanup_free_ char *id = NULL;
	uint32_t code;
	int ret;

	ret = wire_get_u32(r, 4095, &code, e);
	if (ret == 0)
		ret = wire_get_str(r, ERROR_MSG_MAX - 1, false, &msg, e);
	if (ret == 0)
		ret = wire_get_str(r, CONTAINER_ID_MAX, true, &id, e);
	if (ret == 0)
		ret = wire_end(r, e);
	if (ret < 0)
		return ret;
	/* The state's reply named the container already, if it got that far. */
	if (!in->id)
		in->id = steal_pointer(&id);
	return error_msg(e, code ? (int)code : EINVAL, "%s", msg);
}

/* A note of the child's (its self-test), logged as the hook's. */
static int log_note(struct wire_reader *r, struct error *e)
{
	_cleanup_free_ char *note = NULL;
	int ret = wire_get_str(r, ERROR_MSG_MAX - 1, false, &note, e);

	if (ret == 0)
		ret = wire_end(r, e);
	if (ret == 0)
		log_msg(LOG_INFO, "%s", note);
	return ret;
}

/*
 * The next reply, which must be want (an error instead is the child's
 * error; notes are logged on the way).  *buf holds what r reads.
 */
static int parser_reply(struct parser *p, uint32_t want, char **buf,
			struct wire_reader *r, struct hook_input *in,
			struct error *e)
{
	for (;;) {
		uint32_t tag;
		ssize_t n;
		int ret;

		free(*buf);
		*buf = NULL;
		n = recv_frame(p->reply, PARSER_REPLY_MAX, buf);
		if (n == 0)
			return error_msg(e, EPROTO, "parser child: no reply");
		if (n < 0)
			return error_errno(e, (int)-n, "parser child: reading its reply");
		*r = (struct wire_reader){ *buf, (size_t)n - 1, "parser child's reply" };
		ret = wire_get_u32(r, REPLY_ERROR, &tag, e);
		if (ret < 0)
			return ret;
		if (tag == want)
			return 0;
		if (tag == REPLY_ERROR)
			return child_error(r, in, e);
		if (tag != REPLY_NOTE)
			return error_msg(e, EPROTO, "parser child: reply %u, expected %u",
					 tag, want);
		ret = log_note(r, e);
		if (ret < 0)
			return ret;
	}
}

static int send_document(struct parser *p, const char *text, size_t len,
			 const char *what, struct error *e)
{
	int ret = send_frame(p->request, text, len);

	if (ret < 0)
		return error_errno(e, -ret, "parser child: sending it %s", what);
	return 0;
}

/* The state to the child; back: the container's id and its bundle. */
static int exchange_state(struct parser *p, int state_fd, struct hook_input *in,
			  char **bundle, struct error *e)
{
	_cleanup_free_ char *text = NULL;
	_cleanup_free_ char *buf = NULL;
	struct wire_reader r;
	size_t len;
	int ret;

	ret = read_fd_capped(state_fd, "state (stdin)", STATE_MAX, &text, &len, e);
	if (ret == 0)
		ret = send_document(p, text, len, "the state", e);
	if (ret == 0)
		ret = parser_reply(p, REPLY_STATE, &buf, &r, in, e);
	if (ret == 0)
		ret = wire_get_str(&r, CONTAINER_ID_MAX, false, &in->id, e);
	if (ret == 0)
		ret = get_absolute_path(&r, "bundle", false, bundle, e);
	if (ret == 0)
		ret = wire_end(&r, e);
	return ret;
}

/* The bundle's config.json to the child; back: the whole input. */
static int exchange_config(struct parser *p, const char *bundle,
			   struct hook_input *in, struct error *e)
{
	_cleanup_free_ char *text = NULL;
	_cleanup_free_ char *buf = NULL;
	struct wire_reader r;
	size_t len;
	int ret;

	ret = read_bundle_config(bundle, CONFIG_MAX, NULL, &text, &len, e);
	if (ret == 0)
		ret = send_document(p, text, len, "config.json", e);
	if (ret == 0)
		ret = parser_reply(p, REPLY_INPUT, &buf, &r, in, e);
	if (ret < 0)
		return ret;
	/* The id comes again, with everything else. */
	free(in->id);
	in->id = NULL;
	ret = hook_input_decode(r.p, r.left, in, e);
	if (ret == 0 && strcmp(in->bundle, bundle))
		ret = error_msg(e, EPROTO,
				"parser child: the input names another bundle than the state");
	return ret;
}

int parse_untrusted_input(int exe, int state_fd, bool self_test,
			  struct hook_input *in, struct error *e)
{
	struct parser p = { -1, -1, -1 };
	_cleanup_free_ char *bundle = NULL;
	int ret;

	/* A child that dies mid-document is an error, not a SIGPIPE. */
	signal(SIGPIPE, SIG_IGN);
	ret = parser_start(&p, exe, self_test, e);
	if (ret < 0)
		return ret;
	ret = exchange_state(&p, state_fd, in, &bundle, e);
	/* Mostly the child's exec and start: the state is small. */
	timing_mark("state");
	if (ret == 0)
		ret = exchange_config(&p, bundle, in, e);
	timing_mark("config");
	ret = parser_finish(&p, ret, e);
	timing_mark("parser_exit");
	return ret;
}
