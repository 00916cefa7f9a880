// SPDX-License-Identifier: GPL-2.0
/* status.c: see status.h. */
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "common.h"
#include "fileio.h"
#include "json.h"
#include "jsonwriter.h"
#include "mountinfo.h"
#include "mounts.h"
#include "status.h"

static bool interesting(const struct mount_entry *m, const char *under)
{
	if (!mount_allow_shift(m, NULL, NULL) && !mount_options_shifted(m->options))
		return false;
	return !under || path_within(m->mountpoint, under, false);
}

/* "allow-shift", "shift" or both: a shifted bind inherits the mark. */
static const char *marks(const struct mount_entry *m)
{
	bool allow = mount_allow_shift(m, NULL, NULL);
	bool shifted = mount_options_shifted(m->options);

	if (allow && shifted)
		return "allow-shift,shift";
	return allow ? "allow-shift" : "shift";
}

/*
 * The subject of the mark, as mountinfo gives it ("0:1001:100000-165535"):
 * "any" for the plain mark of kernels before owners (it delegated to
 * every user namespace), "-" for a shifted mount without a mark.
 */
static void owners_text(const struct mount_entry *m, char *buf, size_t size)
{
	const char *owners;
	size_t len;

	if (!mount_allow_shift(m, &owners, &len))
		snprintf(buf, size, "-");
	else if (!owners)
		snprintf(buf, size, "any");
	else
		snprintf(buf, size, "%.*s", (int)len, owners);
}

/*
 * A mount point as mountinfo escapes it (\ooo), for output that must stay
 * one line per mount and must not reach a terminal as control codes: a
 * newline in a mount point would otherwise forge a row of the table.
 * Spaces, backslashes, control and non-ASCII bytes are escaped.
 */
static void escape_path(const char *in, char *out, size_t size)
{
	size_t len = 0;

	for (; *in && len + 5 < size; in++) {
		unsigned char c = (unsigned char)*in;

		if (c <= ' ' || c >= 0x7f || c == '\\')
			len += (size_t)snprintf(out + len, size - len, "\\%03o", c);
		else
			out[len++] = (char)c;
	}
	out[len] = '\0';
}

/* A JSON array of the items of list (len bytes) between separators. */
static void gen_list(struct json_writer *w, const char *list, size_t len,
		     char separator)
{
	const char *p = list, *end = list + len;

	jw_array_open(w);
	while (p < end) {
		const char *sep = memchr(p, separator, (size_t)(end - p));
		size_t n = sep ? (size_t)(sep - p) : (size_t)(end - p);

		jw_string_len(w, p, n);
		p += n + (sep != NULL);
	}
	jw_array_close(w);
}

/* The mark's owners as strings ("1001", "100000-165535"); null: none listed. */
static void gen_owners(struct json_writer *w, const struct mount_entry *m)
{
	const char *owners = NULL;
	size_t len = 0;

	jw_string(w, "owners");
	if (mount_allow_shift(m, &owners, &len) && owners)
		gen_list(w, owners, len, ':');
	else
		jw_null(w);
}

/* JSON strings are UTF-8: a path that is not is given escaped. */
static void gen_path(struct json_writer *w, const char *key, const char *path)
{
	char escaped[4 * PATH_MAX];

	jw_string(w, key);
	if (utf8_valid(path)) {
		jw_string(w, path);
		return;
	}
	escape_path(path, escaped, sizeof(escaped));
	jw_string(w, escaped);
}

static void gen_mount(struct json_writer *w, const struct mount_entry *m)
{
	jw_map_open(w);
	jw_string(w, "id");
	jw_integer(w, m->id);
	jw_string(w, "parent");
	jw_integer(w, m->parent);
	gen_path(w, "mountpoint", m->mountpoint);
	gen_path(w, "root", m->root);
	jw_string(w, "fstype");
	jw_string(w, m->fstype);
	jw_string(w, "source");
	jw_string(w, m->source);
	jw_string(w, "options");
	gen_list(w, m->options, strlen(m->options), ',');
	jw_string(w, "allow_shift");
	jw_bool(w, mount_allow_shift(m, NULL, NULL));
	gen_owners(w, m);
	jw_string(w, "shifted");
	jw_bool(w, mount_options_shifted(m->options));
	jw_map_close(w);
}

static int print_json(char *mountinfo, const char *under, FILE *out,
		      struct error *e)
{
	__attribute__((cleanup(json_writer_free))) struct json_writer w = { NULL, 0 };
	const unsigned char *buf;
	struct mount_entry m;
	size_t len;
	int ret;

	ret = json_writer_init(&w, e);
	if (ret < 0)
		return ret;
	jw_map_open(&w);
	jw_string(&w, "mounts");
	jw_array_open(&w);
	while ((ret = mountinfo_next(&mountinfo, &m, e)) > 0)
		if (interesting(&m, under))
			gen_mount(&w, &m);
	if (ret < 0)
		return ret;
	jw_array_close(&w);
	jw_map_close(&w);
	ret = json_writer_finish(&w, "status", &buf, &len, e);
	if (ret < 0)
		return ret;
	fwrite(buf, 1, len, out);
	return 0;
}

static int print_table(char *mountinfo, const char *under, FILE *out,
		       struct error *e)
{
	char mountpoint[4 * PATH_MAX], owners[512];
	struct mount_entry m;
	size_t shown = 0;
	int ret;

	while ((ret = mountinfo_next(&mountinfo, &m, e)) > 0) {
		if (!interesting(&m, under))
			continue;
		if (shown++ == 0)
			fprintf(out, "%-18s %-8s %-32s %-16s %s\n", "MARK", "FSTYPE",
				"MOUNTPOINT", "OWNERS", "OPTIONS");
		escape_path(m.mountpoint, mountpoint, sizeof(mountpoint));
		owners_text(&m, owners, sizeof(owners));
		fprintf(out, "%-18s %-8s %-32s %-16s %s\n", marks(&m), m.fstype,
			mountpoint, owners, m.options);
	}
	if (ret < 0)
		return ret;
	if (shown == 0)
		fprintf(out, "no mount%s%s is marked allow-shift or shifted\n",
			under ? " at or below " : "", under ? under : "");
	return 0;
}

int status_print(char *mountinfo, const char *under, bool json, FILE *out,
		 struct error *e)
{
	return json ? print_json(mountinfo, under, out, e) :
		      print_table(mountinfo, under, out, e);
}
