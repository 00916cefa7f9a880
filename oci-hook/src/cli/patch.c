// SPDX-License-Identifier: GPL-2.0
/*
 * patch.c: see patch.h.
 *
 * yajl has no tree writer, so the parsed tree is written back member by
 * member with yajl_gen; numbers are copied as the text they were read
 * from, so nothing is rounded.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <fcntl.h>
#include <limits.h>
#include <string.h>
#include <sys/stat.h>

#include "common.h"
#include "fileio.h"
#include "json.h"
#include "jsonwriter.h"
#include "patch.h"
#include "spec.h"
#include "storepath.h"

#define HOOK_NAME "shiftbind-hook"

struct registration {
	const char *hook_path;
	const char *stage;	/* where the hook belongs */
	const char *others[2];	/* the other stages, where it must not be */
};

/* stage is one of the stages r rewrites: its own or one of the others. */
static bool is_other(const struct registration *r, const char *stage)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(r->others); i++)
		if (!strcmp(stage, r->others[i]))
			return true;
	return false;
}

static bool rewrites(const struct registration *r, const char *stage)
{
	return !strcmp(stage, r->stage) || is_other(r, stage);
}

/* Recursion depth is bounded by json_parse's JSON_MAX_DEPTH. */
static void write_value(struct json_writer *w, yajl_val v)
{
	size_t i;

	if (YAJL_IS_STRING(v)) {
		jw_string(w, YAJL_GET_STRING(v));
	} else if (YAJL_IS_NUMBER(v)) {
		jw_number(w, YAJL_GET_NUMBER(v));
	} else if (YAJL_IS_OBJECT(v)) {
		jw_map_open(w);
		for (i = 0; i < v->u.object.len; i++) {
			jw_string(w, v->u.object.keys[i]);
			write_value(w, v->u.object.values[i]);
		}
		jw_map_close(w);
	} else if (YAJL_IS_ARRAY(v)) {
		jw_array_open(w);
		for (i = 0; i < v->u.array.len; i++)
			write_value(w, v->u.array.values[i]);
		jw_array_close(w);
	} else if (YAJL_IS_TRUE(v) || YAJL_IS_FALSE(v)) {
		jw_bool(w, YAJL_IS_TRUE(v));
	} else {
		jw_null(w);
	}
}

/* Ours whatever the install prefix: the executable's name decides. */
static bool is_our_hook(yajl_val entry)
{
	yajl_val path = YAJL_IS_OBJECT(entry) ? json_member(entry, "path") : NULL;
	const char *s = path ? YAJL_GET_STRING(path) : NULL;
	const char *base;

	if (!s)
		return false;
	base = strrchr(s, '/');
	return !strcmp(base ? base + 1 : s, HOOK_NAME);
}

/*
 * entry runs our hook as write_our_hook() writes it for r: at r's path,
 * with an argv whose stage is r's.  The hook takes its stage from its
 * argv (createRuntime and prestart join the container's namespaces,
 * createContainer is already in them), so an entry with another stage's
 * argument is no registration, whatever stage lists it.
 */
static bool is_registration(yajl_val entry, const struct registration *r)
{
	yajl_val args = YAJL_IS_OBJECT(entry) ? json_member(entry, "args") : NULL;
	const char *path, *stage;

	if (!is_our_hook(entry) || !args || !YAJL_IS_ARRAY(args) ||
	    args->u.array.len != 2 || !YAJL_IS_STRING(args->u.array.values[0]))
		return false;
	path = YAJL_GET_STRING(json_member(entry, "path"));
	stage = YAJL_GET_STRING(args->u.array.values[1]);
	return path && stage && !strcmp(path, r->hook_path) && !strcmp(stage, r->stage);
}

/* Our hook's entries in stage: *all of them, *right as r registers it. */
static void count_ours(yajl_val hooks, const char *stage,
		       const struct registration *r, size_t *all, size_t *right)
{
	yajl_val list = hooks ? json_member(hooks, stage) : NULL;
	size_t i;

	*all = *right = 0;
	for (i = 0; list && YAJL_IS_ARRAY(list) && i < list->u.array.len; i++) {
		*all += is_our_hook(list->u.array.values[i]);
		*right += is_registration(list->u.array.values[i], r);
	}
}

static void write_our_hook(struct json_writer *w, const struct registration *r)
{
	jw_map_open(w);
	jw_string(w, "path");
	jw_string(w, r->hook_path);
	jw_string(w, "args");
	jw_array_open(w);
	jw_string(w, HOOK_NAME);
	jw_string(w, r->stage);
	jw_array_close(w);
	jw_string(w, "timeout");
	jw_integer(w, HOOK_TIMEOUT);
	jw_map_close(w);
}

/*
 * A stage's hook list: at our stage, the existing hooks and then ours
 * (the rootfs is shifted after what runs before it); at the other
 * stages, the existing hooks but ours.
 */
static void write_stage(struct json_writer *w, const char *stage, yajl_val list,
			const struct registration *r)
{
	bool ours = !strcmp(stage, r->stage);
	size_t i;

	jw_array_open(w);
	for (i = 0; list && i < list->u.array.len; i++) {
		yajl_val entry = list->u.array.values[i];

		if (!is_our_hook(entry))
			write_value(w, entry);
	}
	if (ours)
		write_our_hook(w, r);
	jw_array_close(w);
}

static void write_hooks(struct json_writer *w, yajl_val hooks,
			const struct registration *r)
{
	bool have_stage = false;
	size_t i;

	jw_map_open(w);
	for (i = 0; hooks && i < hooks->u.object.len; i++) {
		const char *key = hooks->u.object.keys[i];
		yajl_val list = hooks->u.object.values[i];

		jw_string(w, key);
		/* A stage given as null is an empty list (check_hooks_shape). */
		if (rewrites(r, key)) {
			have_stage |= !strcmp(key, r->stage);
			write_stage(w, key, YAJL_IS_ARRAY(list) ? list : NULL, r);
		} else {
			write_value(w, list);
		}
	}
	if (!have_stage) {
		jw_string(w, r->stage);
		write_stage(w, r->stage, NULL, r);
	}
	jw_map_close(w);
}

static void write_config(struct json_writer *w, yajl_val config,
			 const struct registration *r)
{
	bool have_hooks = false;
	size_t i;

	jw_map_open(w);
	for (i = 0; i < config->u.object.len; i++) {
		const char *key = config->u.object.keys[i];

		jw_string(w, key);
		if (!strcmp(key, "hooks")) {
			have_hooks = true;
			write_hooks(w, json_member(config, "hooks"), r);
		} else {
			write_value(w, config->u.object.values[i]);
		}
	}
	if (!have_hooks) {
		jw_string(w, "hooks");
		write_hooks(w, NULL, r);
	}
	jw_map_close(w);
}

/* Every element of entry's optional array key is a string. */
static int check_strings(yajl_val entry, const char *what, const char *key,
			 struct error *e)
{
	yajl_val list, v;
	size_t i;
	int ret = json_opt_array(entry, what, key, &list, e);

	for (i = 0; ret == 0 && list && i < list->u.array.len; i++) {
		v = list->u.array.values[i];
		if (!YAJL_IS_STRING(v))
			ret = error_msg(e, EINVAL, "%s.%s[%zu]: expected a string, got %s",
					what, key, i, json_type_name(v));
	}
	return ret;
}

/*
 * One hook entry as the OCI runtime spec has it (config.md, "POSIX-
 * platform Hooks"): path an absolute path, args and env arrays of
 * strings, timeout an integer above 0.  what: "config.json:
 * hooks.STAGE[I]".
 */
static int check_entry(yajl_val entry, const char *what, struct error *e)
{
	const char *path;
	long long timeout;
	int ret;

	if (!YAJL_IS_OBJECT(entry))
		return error_msg(e, EINVAL, "%s: expected an object, got %s", what,
				 json_type_name(entry));
	ret = json_get_string(entry, what, "path", &path, e);
	if (ret == 0 && path[0] != '/')
		ret = error_msg(e, EINVAL, "%s.path: \"%.256s\" is not an absolute path",
				what, path);
	if (ret == 0)
		ret = check_strings(entry, what, "args", e);
	if (ret == 0)
		ret = check_strings(entry, what, "env", e);
	if (ret == 0 && json_member(entry, "timeout"))
		ret = json_get_integer(entry, what, "timeout", 1, INT_MAX, &timeout, e);
	return ret;
}

/* The reason check_entry gave, and what to do. */
static int refuse_entry(struct error *e)
{
	char reason[sizeof(e->msg)];

	snprintf(reason, sizeof(reason), "%s", e->msg);
	return error_msg(e, e->code,
			 "%s; patch-config writes every other hook back as it is, and keeps none the runtime cannot run: fix or remove that entry (a hook is {\"path\": ABSOLUTE PATH, \"args\": [STRING...], \"env\": [STRING...], \"timeout\": SECONDS > 0}, only path required)",
			 reason);
}

/*
 * Every stage patch_config writes back is a list (or null), and every
 * entry it keeps is a hook the runtime can run: it is written back as
 * it is, and a bad one would fail every container of the bundle, or be
 * read differently by each runtime.  Our own entries in the two stages
 * it rewrites (its own and the other two) are replaced, not kept.
 */
static int check_hooks_shape(yajl_val config, const struct registration *r,
			     struct error *e)
{
	char stage_what[128], what[192];
	yajl_val hooks, list;
	const char *stage;
	size_t i, j;
	bool ours;
	int ret;

	ret = json_opt_object(config, "config.json", "hooks", &hooks, e);
	for (i = 0; ret == 0 && hooks && i < hooks->u.object.len; i++) {
		stage = hooks->u.object.keys[i];
		ours = rewrites(r, stage);
		ret = json_opt_array(hooks, "config.json: hooks", stage, &list, e);
		snprintf(stage_what, sizeof(stage_what), "config.json: hooks.%.64s", stage);
		for (j = 0; ret == 0 && list && j < list->u.array.len; j++) {
			if (ours && is_our_hook(list->u.array.values[j]))
				continue;
			snprintf(what, sizeof(what), "%s[%zu]", stage_what, j);
			ret = check_entry(list->u.array.values[j], what, e);
			if (ret < 0)
				ret = refuse_entry(e);
		}
	}
	return ret;
}

/*
 * A target the runtime will bind into the container must exist in a
 * real-root-owned image: before the shift, the runtime cannot create
 * it.  Looked up inside the rootfs, as the runtime will.
 */
static bool target_exists(int rootfd, const char *dst)
{
	int fd = open_resolved(rootfd, dst, O_PATH, SCOPE_IN_ROOT);

	if (fd < 0)
		return fd != -ENOENT;
	close(fd);
	return true;
}

static const char *destination(yajl_val mount)
{
	yajl_val dst = YAJL_IS_OBJECT(mount) ? json_member(mount, "destination") : NULL;

	return dst ? YAJL_GET_STRING(dst) : NULL;
}

/*
 * A target below an earlier mount (/dev/pts below /dev) is created in
 * that mount by the runtime, not in the image: only the others count.
 */
static bool target_in_image(yajl_val mounts, size_t i)
{
	const char *dst = destination(mounts->u.array.values[i]);
	size_t j;

	for (j = 0; j < i; j++) {
		const char *earlier = destination(mounts->u.array.values[j]);

		if (earlier && path_within(dst, earlier, true))
			return false;
	}
	return true;
}

/*
 * The rootfs as root.path names it: relative to the bundle directory
 * that was checked (bundlefd), or absolute.  Only looked at, for notes.
 */
static int open_rootfs(int bundlefd, const char *path)
{
	return openat(path[0] == '/' ? AT_FDCWD : bundlefd, path,
		      O_PATH | O_DIRECTORY | O_CLOEXEC);
}

static void note_missing_targets(yajl_val config, int bundlefd,
				 const char *bundle, FILE *report)
{
	yajl_val root = json_member(config, "root");
	yajl_val path = root ? json_member(root, "path") : NULL;
	yajl_val mounts = json_member(config, "mounts");
	_cleanup_close_ int rootfd = -1;
	const char *rootfs;
	size_t i, missing = 0;

	if (!mounts || !YAJL_IS_ARRAY(mounts) || !path || !YAJL_IS_STRING(path))
		return;
	rootfs = YAJL_GET_STRING(path);
	rootfd = open_rootfs(bundlefd, rootfs);
	if (rootfd < 0)
		return;
	for (i = 0; i < mounts->u.array.len; i++) {
		const char *dst = destination(mounts->u.array.values[i]);

		if (!dst || !target_in_image(mounts, i) || target_exists(rootfd, dst))
			continue;
		fprintf(report, "%s %s", missing++ ? "" : "note: mount targets missing in the image:",
			dst);
	}
	if (missing)
		fprintf(report,
			"\n  in a real-root-owned shared image the runtime cannot create them before the shift; run as root: shiftbind prepare-image %s%s%s\n",
			rootfs[0] == '/' ? "" : bundle, rootfs[0] == '/' ? "" : "/", rootfs);
}

static int write_patched(int dirfd, const char *display, yajl_val config,
			 const struct stat *old, const struct registration *r,
			 struct error *e)
{
	__attribute__((cleanup(json_writer_free))) struct json_writer w = { NULL, 0 };
	const unsigned char *buf;
	size_t len;
	int ret;

	ret = json_writer_init(&w, e);
	if (ret < 0)
		return ret;
	write_config(&w, config, r);
	ret = json_writer_finish(&w, "config.json", &buf, &len, e);
	if (ret == 0)
		ret = write_file_atomic(dirfd, display, "config.json", buf, len, old, e);
	return ret;
}

/*
 * What was replaced, said: a wrong entry left in place would run the hook
 * at one stage believing it is at another, and fail every container.
 */
static void report_registered(FILE *report, const char *display,
			      const struct registration *r, size_t wrong,
			      const size_t elsewhere[])
{
	size_t i;

	fprintf(report, "%s: hook registered at %s", display, r->stage);
	if (wrong)
		fprintf(report, ", replacing %zu entr%s of %s there that did not run `%s %s`",
			wrong, wrong == 1 ? "y" : "ies", HOOK_NAME, r->hook_path,
			r->stage);
	for (i = 0; i < ARRAY_SIZE(r->others); i++)
		if (elsewhere[i])
			fprintf(report, ", removing %zu entr%s of %s at %s",
				elsewhere[i], elsewhere[i] == 1 ? "y" : "ies",
				HOOK_NAME, r->others[i]);
	fputc('\n', report);
}

int patch_config(const char *bundle, const char *hook_path, bool rootless,
		 FILE *report, struct error *e)
{
	const struct registration r = {
		.hook_path = hook_path,
		/*
		 * createRuntime, not the deprecated prestart: crun runs both
		 * at the same point, in the runtime's namespaces, with the
		 * container's pid.  Patching moves an old bundle's prestart
		 * entry here.
		 */
		.stage = rootless ? "createContainer" : "createRuntime",
		.others = { rootless ? "createRuntime" : "createContainer", "prestart" },
	};
	_cleanup_json_ yajl_val config = NULL;
	_cleanup_free_ char *text = NULL;
	_cleanup_close_ int dirfd = -1;
	char canon[PATH_MAX], display[PATH_MAX + sizeof("/config.json")];
	size_t len, ours, right, elsewhere[ARRAY_SIZE(r.others)], ignored, moved = 0, i;
	yajl_val hooks;
	struct stat st;
	int ret;

	/*
	 * The bundle is opened once, through no link and only below
	 * directories nobody else can change, and config.json is read and
	 * replaced through that fd alone: root run on a path another user
	 * controls rewrites nothing of theirs choosing.
	 */
	ret = bundle_open(bundle, &dirfd, canon, sizeof(canon), e);
	if (ret < 0)
		return error_context(e, "refusing bundle `%s`", bundle);
	snprintf(display, sizeof(display), "%s/config.json", canon);
	ret = read_regular_file_at(dirfd, "config.json", display, REFUSE_SYMLINK,
				   CONFIG_MAX, &text, &len, e);
	if (ret == 0 && fstatat(dirfd, "config.json", &st, AT_SYMLINK_NOFOLLOW) < 0)
		ret = error_errno(e, errno, "stat `%s`", display);
	/*
	 * Written back whole: a duplicate key anywhere would be kept, and
	 * two "hooks" would both become the first's patched copy.
	 */
	if (ret == 0)
		ret = json_parse("config.json", text, len, JSON_DUPLICATES_ANYWHERE,
				 &config, e);
	if (ret == 0)
		ret = check_hooks_shape(config, &r, e);
	if (ret < 0)
		return ret;
	hooks = json_member(config, "hooks");
	count_ours(hooks, r.stage, &r, &ours, &right);
	for (i = 0; i < ARRAY_SIZE(r.others); i++) {
		count_ours(hooks, r.others[i], &r, &elsewhere[i], &ignored);
		moved += elsewhere[i];
	}
	if (ours == 1 && right == 1 && moved == 0) {
		fprintf(report, "%s: hook already registered at %s\n", display, r.stage);
	} else {
		ret = write_patched(dirfd, display, config, &st, &r, e);
		if (ret < 0)
			return ret;
		report_registered(report, display, &r, ours - right, elsewhere);
	}
	note_missing_targets(config, dirfd, canon, report);
	return 0;
}
