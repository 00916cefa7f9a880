// SPDX-License-Identifier: GPL-2.0
/* privsep.c: see privsep.h. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
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
#include "log.h"
#include "privsep.h"
#include "sandbox.h"
#include "spec.h"
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

/*
 * The runtime's stdin, stdout and the hook's log are none of the
 * child's business: only its two pipes and stderr stay open.
 */
static int child_keep_only_pipes(int request, int reply, struct error *e)
{
	if (dup2(request, PARSER_REQUEST_FD) < 0 || dup2(reply, PARSER_REPLY_FD) < 0)
		return error_errno(e, errno, "parser child: dup2");
	if (syscall(SYS_close_range, STDERR_FILENO + 1, ~0U, 0) == 0)
		return 0;
	if (errno != ENOSYS)
		return error_errno(e, errno, "parser child: close_range");
	for (int fd = STDERR_FILENO + 1; fd < 1024; fd++)
		close(fd);
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
 * nobody where this namespace maps it (the host, a rootful runtime);
 * inside a rootless runtime's user namespace 65534 is often unmapped
 * (EINVAL) and the child stays the namespace's root, powerless over
 * the host.  Either way every capability goes, and the child is not
 * dumpable: no other process of the same uid can ptrace it.
 */
static int child_drop_privileges(struct error *e)
{
	struct __user_cap_header_struct hdr = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct none[2];

	memset(none, 0, sizeof(none));
	if (setgroups(0, NULL) < 0 && errno != EPERM)
		return error_errno(e, errno, "parser child: setgroups");
	/* EINVAL: not mapped here; EPERM: a caller without CAP_SETUID. */
	if (setresgid(PARSER_GID, PARSER_GID, PARSER_GID) == 0 &&
	    setresuid(PARSER_UID, PARSER_UID, PARSER_UID) < 0 &&
	    errno != EINVAL && errno != EPERM)
		return error_errno(e, errno, "parser child: setresuid(%d)", PARSER_UID);
	if (syscall(SYS_capset, &hdr, none) < 0)
		return error_errno(e, errno, "parser child: dropping capabilities");
	if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) < 0)
		return error_errno(e, errno, "parser child: prctl(PR_SET_DUMPABLE)");
	if (!no_capabilities())
		return error_msg(e, EPERM,
				 "parser child: capabilities left after dropping them all");
	return 0;
}

/*
 * The child ends with the hook: a runtime's hook timeout kills the hook,
 * and a child parsing on would outlive it.  Set after the uid change,
 * which clears it; the parent may have gone already in between.  Its
 * CPU time is bounded too, whatever the input makes of the parser.
 */
static int child_tie_to_hook(pid_t hook, struct error *e)
{
	struct rlimit cpu = { PARSER_CPU_SECONDS, PARSER_CPU_SECONDS };

	if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) < 0)
		return error_errno(e, errno, "parser child: prctl(PR_SET_PDEATHSIG)");
	if (getppid() != hook)
		return error_msg(e, ESRCH, "parser child: the hook is gone");
	if (setrlimit(RLIMIT_CPU, &cpu) < 0)
		return error_errno(e, errno, "parser child: setrlimit(RLIMIT_CPU)");
	return 0;
}

/* What the child is and may do, for the hook's log. */
static void child_self_test(void)
{
	struct error e = { 0, "" };
	char note[512];

	snprintf(note, sizeof(note), "parser child: uid %d, gid %d, no capabilities",
		 (int)getuid(), (int)getgid());
	child_note(note);
	if (sandbox_self_test(SANDBOX_PARSER, note, sizeof(note), &e) < 0)
		child_fail(&e, NULL);
	child_note(note);
}

static void __attribute__((noreturn)) parser_main(pid_t hook, int request,
						   int reply, bool self_test)
{
	struct hook_input in;
	struct wire_writer w = { 0 };
	struct error e = { 0, "" };
	size_t len;
	char *text;

	memset(&in, 0, sizeof(in));
	if (child_keep_only_pipes(request, reply, &e) < 0 ||
	    child_drop_privileges(&e) < 0 || child_tie_to_hook(hook, &e) < 0 ||
	    sandbox_install(SANDBOX_PARSER, &e) < 0)
		child_fail(&e, NULL);
	if (self_test)
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

/* --- the hook's side ------------------------------------------------ */

struct parser {
	pid_t pid;
	int request;		/* write end */
	int reply;		/* read end */
};

static int parser_start(struct parser *p, bool self_test, struct error *e)
{
	pid_t hook = getpid();
	int request[2], reply[2];

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
		parser_main(hook, request[0], reply[1], self_test);
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
	if (WIFSIGNALED(status))
		return error_msg(e, EPROTO,
				 "parser child killed by signal %d%s", WTERMSIG(status),
				 WTERMSIG(status) == SIGSYS ?
				 " (a syscall outside its seccomp filter)" : "");
	if (ret < 0)
		return ret;
	if (WEXITSTATUS(status))
		return error_msg(e, EPROTO, "parser child exited with status %d",
				 WEXITSTATUS(status));
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

int parse_untrusted_input(int state_fd, bool self_test, struct hook_input *in,
			  struct error *e)
{
	struct parser p = { -1, -1, -1 };
	_cleanup_free_ char *bundle = NULL;
	int ret;

	/* A child that dies mid-document is an error, not a SIGPIPE. */
	signal(SIGPIPE, SIG_IGN);
	ret = parser_start(&p, self_test, e);
	if (ret < 0)
		return ret;
	ret = exchange_state(&p, state_fd, in, &bundle, e);
	if (ret == 0)
		ret = exchange_config(&p, bundle, in, e);
	return parser_finish(&p, ret, e);
}
