// SPDX-License-Identifier: GPL-2.0
/*
 * hook-unit-test: the hook's and the CLI's parsers and checks, built
 * from the real sources (oci-hook/Makefile: asan, unit-test) and run on
 * the host.  Prints TAP; the plan is counted, at the end.  Exits 1 if a
 * check failed.
 *
 * The bad-input corpus is the table bad_inputs[]: each case is a state
 * and a config.json (written into a scratch bundle, or set up as a
 * symlink, directory, FIFO... by its setup) and the error text it must
 * produce.  Run as root: prepare-image creates files owned by 0:0, and
 * the unreadable-config case drops root's DAC capabilities in a child.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <fcntl.h>
#include <ftw.h>
#include <linux/capability.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "allowconf.h"
#include "common.h"
#include "error.h"
#include "fileio.h"
#include "idmap.h"
#include "json.h"
#include "log.h"
#include "mountinfo.h"
#include "owners.h"
#include "patch.h"
#include "prepare.h"
#include "privsep.h"
#include "spec.h"
#include "status.h"
#include "wire.h"
#include "../tap.h"

/* ---- scratch files ---------------------------------------------------- */

static char scratch[1024];	/* short, so that paths under it fit PATH_MAX */
static char bundle[sizeof(scratch) + sizeof("/bundle")];
static int self_exe = -1;	/* this program, for parse_untrusted_input */

static void die(const char *what)
{
	perror(what);
	exit(2);
}

static void write_file(const char *path, const char *text, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

	if (fd < 0 || write(fd, text, len) != (ssize_t)len || close(fd) < 0)
		die(path);
}

static int remove_one(const char *path, const struct stat *st, int flag,
		      struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

static void remove_tree(const char *path)
{
	nftw(path, remove_one, 16, FTW_DEPTH | FTW_PHYS);
}

static void bundle_path(char *buf, size_t size, const char *name)
{
	snprintf(buf, size, "%s/%s", bundle, name);
}

/* ---- the corpus --------------------------------------------------------- */

enum setup {
	CONFIG_FILE,		/* config.json is the case's text */
	CONFIG_SYMLINK,		/* a symlink to a file with the text */
	CONFIG_DIRECTORY,
	CONFIG_FIFO,
	CONFIG_MISSING,
	CONFIG_UNREADABLE,	/* mode 0000, read without DAC capabilities */
	CONFIG_HUGE,		/* the text padded past CONFIG_MAX */
	CONFIG_341_EXTENTS,	/* generated */
	CONFIG_340_EXTENTS,
};

struct parse_case {
	const char *name;
	const char *state;	/* "@B@" stands for the bundle's path */
	enum setup setup;
	const char *config;
	const char *expect;	/* substring of the error; NULL: success */
};

/* crun 1.8.1's exact output (do_hooks()), with the bundle filled in. */
#define STATE_OK \
	"{\"ociVersion\":\"1.0\",\"id\":\"c1\",\"pid\":1234,\"root\":\"/run/crun/c1\"," \
	"\"bundle\":\"@B@\",\"status\":\"created\"}"
#define STATE_WITH(extra) \
	"{\"ociVersion\":\"1.0\",\"id\":\"c1\",\"pid\":1234,\"bundle\":\"@B@\"," \
	"\"status\":\"created\"" extra "}"
#define MAP_OK "[{\"containerID\":0,\"hostID\":100000,\"size\":65536}]"
#define CONFIG_USERNS(uids, gids) \
	"{\"ociVersion\":\"1.0.0\",\"root\":{\"path\":\"rootfs\"},\"linux\":{" \
	"\"namespaces\":[{\"type\":\"pid\"},{\"type\":\"mount\"},{\"type\":\"user\"}]," \
	"\"uidMappings\":" uids ",\"gidMappings\":" gids "}}"
#define CONFIG_OK CONFIG_USERNS(MAP_OK, MAP_OK)
#define CONFIG_MAP(m) CONFIG_USERNS(m, MAP_OK)
#define CONFIG_ROOT(root) "{\"root\":" root ",\"linux\":{}}"

static const struct parse_case bad_inputs[] = {
	/* the state */
	{ "empty stdin", "", CONFIG_FILE, CONFIG_OK, "state: empty input" },
	{ "truncated state", "{\"ociVersion\":\"1.0\",\"id\":\"c1\"", CONFIG_FILE,
	  CONFIG_OK, "state: invalid JSON: parse error: premature EOF" },
	{ "state is an array", "[1,2]", CONFIG_FILE, CONFIG_OK,
	  "state: expected a JSON object, got an array" },
	{ "trailing garbage", STATE_OK " x", CONFIG_FILE, CONFIG_OK,
	  "state: invalid JSON: parse error: trailing garbage" },
	{ "pid as string",
	  "{\"ociVersion\":\"1.0\",\"id\":\"c1\",\"pid\":\"1234\",\"bundle\":\"@B@\"}",
	  CONFIG_FILE, CONFIG_OK, "state.pid: expected an integer, got a string" },
	{ "negative pid",
	  "{\"ociVersion\":\"1.0\",\"id\":\"c1\",\"pid\":-5,\"bundle\":\"@B@\"}",
	  CONFIG_FILE, CONFIG_OK, "state.pid: -5 out of range [0, 2147483647]" },
	{ "pid 2^40",
	  "{\"ociVersion\":\"1.0\",\"id\":\"c1\",\"pid\":1099511627776,\"bundle\":\"@B@\"}",
	  CONFIG_FILE, CONFIG_OK, "state.pid: 1099511627776 out of range" },
	{ "pid with a fraction",
	  "{\"ociVersion\":\"1.0\",\"id\":\"c1\",\"pid\":12.5,\"bundle\":\"@B@\"}",
	  CONFIG_FILE, CONFIG_OK, "state.pid: expected an integer, got 12.5" },
	{ "pid past 64 bits",
	  "{\"ociVersion\":\"1.0\",\"id\":\"c1\",\"pid\":99999999999999999999,\"bundle\":\"@B@\"}",
	  CONFIG_FILE, CONFIG_OK, "state.pid: expected an integer, got 99999999999999999999" },
	{ "pid missing", "{\"ociVersion\":\"1.0\",\"id\":\"c1\",\"bundle\":\"@B@\"}",
	  CONFIG_FILE, CONFIG_OK, "state.pid: missing" },
	{ "id missing", "{\"ociVersion\":\"1.0\",\"pid\":1,\"bundle\":\"@B@\"}",
	  CONFIG_FILE, CONFIG_OK, "state.id: missing" },
	{ "id empty", "{\"ociVersion\":\"1.0\",\"id\":\"\",\"pid\":1,\"bundle\":\"@B@\"}",
	  CONFIG_FILE, CONFIG_OK, "state: id: empty" },
	{ "id with a newline",
	  "{\"ociVersion\":\"1.0\",\"id\":\"a\\nb\",\"pid\":1,\"bundle\":\"@B@\"}",
	  CONFIG_FILE, CONFIG_OK, "state: id: contains control character 0x0a" },
	{ "ociVersion missing", "{\"id\":\"c1\",\"pid\":1,\"bundle\":\"@B@\"}",
	  CONFIG_FILE, CONFIG_OK, "state.ociVersion: missing" },
	{ "ociVersion 2.0", "{\"ociVersion\":\"2.0\",\"id\":\"c1\",\"pid\":1,\"bundle\":\"@B@\"}",
	  CONFIG_FILE, CONFIG_OK, "state: ociVersion: \"2.0\" is not 1.x" },
	{ "bundle missing", "{\"ociVersion\":\"1.0\",\"id\":\"c1\",\"pid\":1}",
	  CONFIG_FILE, CONFIG_OK, "state: bundle: missing (and no bundlePath)" },
	{ "bundle relative", "{\"ociVersion\":\"1.0\",\"id\":\"c1\",\"pid\":1,\"bundle\":\"b\"}",
	  CONFIG_FILE, CONFIG_OK, "state: bundle: \"b\" is not an absolute path" },
	{ "bundle not a string", "{\"ociVersion\":\"1.0\",\"id\":\"c1\",\"pid\":1,\"bundle\":7}",
	  CONFIG_FILE, CONFIG_OK, "state.bundle: expected a string, got an integer" },
	{ "bundle does not exist",
	  "{\"ociVersion\":\"1.0\",\"id\":\"c1\",\"pid\":1,\"bundle\":\"/nonexistent/shiftbind\"}",
	  CONFIG_FILE, CONFIG_OK,
	  "open bundle `/nonexistent/shiftbind`: No such file or directory" },
	{ "duplicate key",
	  "{\"ociVersion\":\"1.0\",\"id\":\"c1\",\"pid\":1,\"pid\":2,\"bundle\":\"@B@\"}",
	  CONFIG_FILE, CONFIG_OK, "state: duplicate key \"pid\"" },
	{ "duplicate key, the first null",
	  "{\"ociVersion\":\"1.0\",\"id\":\"c1\",\"pid\":1,\"bundle\":null,\"bundle\":\"@B@\"}",
	  CONFIG_FILE, CONFIG_OK, "state: duplicate key \"bundle\"" },
	{ "duplicate annotations object",
	  STATE_WITH(",\"annotations\":{},\"annotations\":{\"org.shiftbind.shift\":\"false\"}"),
	  CONFIG_FILE, CONFIG_OK, "state: duplicate key \"annotations\"" },
	/* The annotations are read whole: any key twice, ours or not. */
	{ "duplicate annotation key, foreign",
	  STATE_WITH(",\"annotations\":{\"a\":\"1\",\"a\":\"2\"}"),
	  CONFIG_FILE, CONFIG_OK, "state: annotations: duplicate key \"a\"" },
	{ "duplicate annotation key, ours",
	  STATE_WITH(",\"annotations\":{\"org.shiftbind.shift\":\"false\",\"x\":\"y\","
		     "\"org.shiftbind.shift\":\"true\"}"),
	  CONFIG_FILE, CONFIG_OK, "state: annotations: duplicate key \"org.shiftbind.shift\"" },
	{ "non-UTF-8 string",
	  "{\"ociVersion\":\"1.0\",\"id\":\"c\xff\",\"pid\":1,\"bundle\":\"@B@\"}",
	  CONFIG_FILE, CONFIG_OK, "state: not valid UTF-8 at byte 27 (0xff)" },
	{ "non-UTF-8 outside strings", "\xfe{}", CONFIG_FILE, CONFIG_OK,
	  "state: not valid UTF-8 at byte 0 (0xfe)" },
	{ "escaped NUL", "{\"ociVersion\":\"1.0\",\"id\":\"c1\\u0000x\",\"pid\":1,\"bundle\":\"@B@\"}",
	  CONFIG_FILE, CONFIG_OK, "state: string contains an escaped NUL" },
	{ "comment", "/* c */" STATE_OK, CONFIG_FILE, CONFIG_OK,
	  "state: comments are not JSON" },
	{ "nested 100 deep",
	  "{\"a\":[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[["
	  "]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]}",
	  CONFIG_FILE, CONFIG_OK, "state: nested deeper than 64 levels" },
	{ "annotations not an object", STATE_WITH(",\"annotations\":[]"), CONFIG_FILE,
	  CONFIG_OK, "state.annotations: expected an object, got an array" },
	{ "annotation value not a string", STATE_WITH(",\"annotations\":{\"x\":1}"),
	  CONFIG_FILE, CONFIG_OK, "state: annotations[\"x\"]: expected a string, got an integer" },
	{ "shift annotation neither true nor false",
	  STATE_WITH(",\"annotations\":{\"org.shiftbind.shift\":\"maybe\"}"), CONFIG_FILE,
	  CONFIG_OK, "org.shiftbind.shift: expected \"true\" or \"false\", got \"maybe\"" },
	{ "unknown org.shiftbind annotation",
	  STATE_WITH(",\"annotations\":{\"org.shiftbind.shfit\":\"false\"}"), CONFIG_FILE,
	  CONFIG_OK, "unknown annotation org.shiftbind.shfit" },
	{ "extra mount relative",
	  STATE_WITH(",\"annotations\":{\"org.shiftbind.extra-mounts\":\"data\"}"),
	  CONFIG_FILE, CONFIG_OK, "destination \"data\" is not absolute" },
	{ "extra mount with ..",
	  STATE_WITH(",\"annotations\":{\"org.shiftbind.extra-mounts\":\"/data/../etc\"}"),
	  CONFIG_FILE, CONFIG_OK, "must be a plain absolute path" },
	{ "extra mount /", STATE_WITH(",\"annotations\":{\"org.shiftbind.extra-mounts\":\"/\"}"),
	  CONFIG_FILE, CONFIG_OK, "destination \"/\" must be a plain absolute path" },
	{ "extra mount listed twice",
	  STATE_WITH(",\"annotations\":{\"org.shiftbind.extra-mounts\":\"/a,/b,/a\"}"),
	  CONFIG_FILE, CONFIG_OK, "org.shiftbind.extra-mounts: \"/a\" listed twice" },
	{ "extra mount empty entry",
	  STATE_WITH(",\"annotations\":{\"org.shiftbind.extra-mounts\":\"/a,,/b\"}"),
	  CONFIG_FILE, CONFIG_OK, "org.shiftbind.extra-mounts: empty destination" },

	/* config.json, as a file */
	{ "config.json missing", STATE_OK, CONFIG_MISSING, NULL,
	  "/config.json`: No such file or directory" },
	{ "config.json a symlink", STATE_OK, CONFIG_SYMLINK, CONFIG_OK,
	  "/config.json`: is a symbolic link, refused" },
	{ "config.json a directory", STATE_OK, CONFIG_DIRECTORY, NULL,
	  "/config.json`: a directory, expected a regular file" },
	{ "config.json a FIFO", STATE_OK, CONFIG_FIFO, NULL,
	  "/config.json`: a FIFO, expected a regular file" },
	{ "config.json unreadable", STATE_OK, CONFIG_UNREADABLE, CONFIG_OK,
	  "/config.json`: Permission denied" },
	{ "config.json over the cap", STATE_OK, CONFIG_HUGE, CONFIG_OK,
	  "/config.json: larger than 4194304 bytes" },
	{ "config.json truncated", STATE_OK, CONFIG_FILE, "{\"root\":{\"path\":\"r\"}",
	  "config.json: invalid JSON: parse error: premature EOF" },
	{ "config.json empty", STATE_OK, CONFIG_FILE, "", "config.json: empty input" },

	/* config.json, its members */
	{ "root missing", STATE_OK, CONFIG_FILE, "{\"linux\":{}}", "config.json: root: missing" },
	{ "root.path missing", STATE_OK, CONFIG_FILE, CONFIG_ROOT("{}"),
	  "config.json: root.path: missing" },
	{ "root.path empty", STATE_OK, CONFIG_FILE, CONFIG_ROOT("{\"path\":\"\"}"),
	  "config.json: root.path: empty" },
	{ "root.path not a string", STATE_OK, CONFIG_FILE, CONFIG_ROOT("{\"path\":[]}"),
	  "config.json: root.path: expected a string, got an array" },
	{ "root.readonly a string", STATE_OK, CONFIG_FILE,
	  CONFIG_ROOT("{\"path\":\"r\",\"readonly\":\"yes\"}"),
	  "config.json: root.readonly: expected a boolean, got a string" },
	{ "namespaces not an array", STATE_OK, CONFIG_FILE,
	  "{\"root\":{\"path\":\"r\"},\"linux\":{\"namespaces\":{}}}",
	  "config.json: linux.namespaces: expected an array, got an object" },
	{ "namespace entry not an object", STATE_OK, CONFIG_FILE,
	  "{\"root\":{\"path\":\"r\"},\"linux\":{\"namespaces\":[\"user\"]}}",
	  "config.json: linux.namespaces[0]: expected an object, got a string" },
	{ "two user namespaces", STATE_OK, CONFIG_FILE,
	  "{\"root\":{\"path\":\"r\"},\"linux\":{\"namespaces\":[{\"type\":\"user\"},{\"type\":\"user\"}]}}",
	  "config.json: linux.namespaces[1]: a second \"user\" namespace" },
	{ "user namespace without uidMappings", STATE_OK, CONFIG_FILE,
	  "{\"root\":{\"path\":\"r\"},\"linux\":{\"namespaces\":[{\"type\":\"user\"}]}}",
	  "config.json: linux.uidMappings: missing" },
	{ "mapping without size", STATE_OK, CONFIG_FILE,
	  CONFIG_MAP("[{\"containerID\":0,\"hostID\":1}]"),
	  "config.json: linux.uidMappings[0].size: missing" },
	{ "mapping entry not an object", STATE_OK, CONFIG_FILE, CONFIG_MAP("[0]"),
	  "config.json: linux.uidMappings[0]: expected an object, got an integer" },
	{ "mapping id past u32", STATE_OK, CONFIG_FILE,
	  CONFIG_MAP("[{\"containerID\":0,\"hostID\":4294967296,\"size\":1}]"),
	  "config.json: linux.uidMappings[0].hostID: 4294967296 out of range [0, 4294967295]" },
	{ "mapping negative id", STATE_OK, CONFIG_FILE,
	  CONFIG_MAP("[{\"containerID\":-1,\"hostID\":1,\"size\":1}]"),
	  "config.json: linux.uidMappings[0].containerID: -1 out of range" },
	{ "mapping zero size", STATE_OK, CONFIG_FILE,
	  CONFIG_MAP("[{\"containerID\":0,\"hostID\":100000,\"size\":0}]"),
	  "config.json: linux.uidMappings[0].size: must not be 0" },
	{ "mapping container overflow", STATE_OK, CONFIG_FILE,
	  CONFIG_MAP("[{\"containerID\":0,\"hostID\":100000,\"size\":10},"
		     "{\"containerID\":4294967290,\"hostID\":200000,\"size\":6}]"),
	  "config.json: linux.uidMappings[1]: containerID 4294967290 + size 6 overflows 32 bits" },
	{ "mapping host overflow", STATE_OK, CONFIG_FILE,
	  CONFIG_MAP("[{\"containerID\":0,\"hostID\":4294967000,\"size\":1000}]"),
	  "config.json: linux.uidMappings[0]: hostID 4294967000 + size 1000 overflows 32 bits" },
	{ "mapping overlap in container ids", STATE_OK, CONFIG_FILE,
	  CONFIG_MAP("[{\"containerID\":0,\"hostID\":100000,\"size\":1000},"
		     "{\"containerID\":999,\"hostID\":300000,\"size\":10}]"),
	  "config.json: linux.uidMappings[1] overlaps config.json: linux.uidMappings[0] in container ids" },
	{ "mapping overlap in host ids", STATE_OK, CONFIG_FILE,
	  CONFIG_MAP("[{\"containerID\":1000,\"hostID\":100500,\"size\":10},"
		     "{\"containerID\":0,\"hostID\":100000,\"size\":1000}]"),
	  "config.json: linux.uidMappings[1] overlaps config.json: linux.uidMappings[0] in host ids" },
	{ "mapping of 341 extents", STATE_OK, CONFIG_341_EXTENTS, NULL,
	  "config.json: linux.uidMappings: 341 extents, the kernel allows at most 340" },
	{ "mapping empty", STATE_OK, CONFIG_FILE, CONFIG_MAP("[]"),
	  "config.json: linux.uidMappings: empty" },
	{ "mapping without root", STATE_OK, CONFIG_FILE,
	  CONFIG_MAP("[{\"containerID\":1,\"hostID\":100000,\"size\":65535}]"),
	  "config.json: linux.uidMappings: does not map id 0" },
	{ "mapping is the identity", STATE_OK, CONFIG_FILE,
	  CONFIG_MAP("[{\"containerID\":0,\"hostID\":0,\"size\":4294967295}]"),
	  "config.json: linux.uidMappings: is the identity mapping, nothing to shift" },
	{ "gid mapping zero size", STATE_OK, CONFIG_FILE,
	  CONFIG_USERNS(MAP_OK, "[{\"containerID\":0,\"hostID\":1,\"size\":0}]"),
	  "config.json: linux.gidMappings[0].size: must not be 0" },
	{ "duplicate root", STATE_OK, CONFIG_FILE,
	  "{\"root\":{\"path\":\"r\"},\"linux\":{},\"root\":{\"path\":\"/x\"}}",
	  "config.json: duplicate key \"root\"" },
	{ "duplicate root.path", STATE_OK, CONFIG_FILE,
	  CONFIG_ROOT("{\"path\":\"r\",\"readonly\":false,\"path\":\"/x\"}"),
	  "config.json: root: duplicate key \"path\"" },
	{ "duplicate root.readonly", STATE_OK, CONFIG_FILE,
	  CONFIG_ROOT("{\"path\":\"r\",\"readonly\":false,\"readonly\":true}"),
	  "config.json: root: duplicate key \"readonly\"" },
	{ "duplicate linux", STATE_OK, CONFIG_FILE,
	  "{\"root\":{\"path\":\"r\"},\"linux\":{},\"linux\":{\"namespaces\":[{\"type\":\"user\"}]}}",
	  "config.json: duplicate key \"linux\"" },
	{ "duplicate linux.namespaces", STATE_OK, CONFIG_FILE,
	  "{\"root\":{\"path\":\"r\"},\"linux\":{\"namespaces\":[],"
	  "\"namespaces\":[{\"type\":\"user\"}]}}",
	  "config.json: linux: duplicate key \"namespaces\"" },
	{ "duplicate namespace type", STATE_OK, CONFIG_FILE,
	  "{\"root\":{\"path\":\"r\"},\"linux\":{\"namespaces\":[{\"type\":\"pid\","
	  "\"type\":\"user\"}]}}",
	  "config.json: linux.namespaces[0]: duplicate key \"type\"" },
	{ "duplicate user namespace path", STATE_OK, CONFIG_FILE,
	  "{\"root\":{\"path\":\"r\"},\"linux\":{\"namespaces\":[{\"type\":\"user\","
	  "\"path\":\"/proc/1/ns/user\",\"path\":\"/proc/2/ns/user\"}]}}",
	  "config.json: linux.namespaces[user]: duplicate key \"path\"" },
	{ "duplicate uidMappings", STATE_OK, CONFIG_FILE,
	  "{\"root\":{\"path\":\"r\"},\"linux\":{\"namespaces\":[{\"type\":\"user\"}],"
	  "\"uidMappings\":" MAP_OK ",\"gidMappings\":" MAP_OK ",\"uidMappings\":" MAP_OK "}}",
	  "config.json: linux: duplicate key \"uidMappings\"" },
	/* Joined namespace: a first null must not make the mappings absent. */
	{ "duplicate uidMappings, the first null, joined namespace", STATE_OK, CONFIG_FILE,
	  "{\"root\":{\"path\":\"r\"},\"linux\":{\"namespaces\":[{\"type\":\"user\","
	  "\"path\":\"/proc/1/ns/user\"}],\"uidMappings\":null,\"uidMappings\":" MAP_OK "}}",
	  "config.json: linux: duplicate key \"uidMappings\"" },
	{ "duplicate gidMappings", STATE_OK, CONFIG_FILE,
	  "{\"root\":{\"path\":\"r\"},\"linux\":{\"namespaces\":[{\"type\":\"user\"}],"
	  "\"uidMappings\":" MAP_OK ",\"gidMappings\":" MAP_OK ",\"gidMappings\":[]}}",
	  "config.json: linux: duplicate key \"gidMappings\"" },
	{ "duplicate key in a mapping extent", STATE_OK, CONFIG_FILE,
	  CONFIG_MAP("[{\"containerID\":0,\"hostID\":100000,\"size\":65536,\"hostID\":0}]"),
	  "config.json: linux.uidMappings[0]: duplicate key \"hostID\"" },
	{ "duplicate annotations in config.json", "{\"ociVersion\":\"1.0\",\"id\":\"c1\",\"pid\":1,"
	  "\"bundle\":\"@B@\"}", CONFIG_FILE,
	  "{\"root\":{\"path\":\"r\"},\"annotations\":{\"org.shiftbind.shift\":\"false\"},"
	  "\"annotations\":{}}",
	  "config.json: duplicate key \"annotations\"" },
	{ "duplicate config.json annotation key when the state has none",
	  "{\"ociVersion\":\"1.0\",\"id\":\"c1\",\"pid\":1,\"bundle\":\"@B@\"}", CONFIG_FILE,
	  "{\"root\":{\"path\":\"r\"},\"annotations\":{\"org.shiftbind.shift\":\"false\","
	  "\"org.shiftbind.shift\":\"true\"}}",
	  "config.json: annotations: duplicate key \"org.shiftbind.shift\"" },
	{ "config annotations checked when the state has none",
	  "{\"ociVersion\":\"1.0\",\"id\":\"c1\",\"pid\":1,\"bundle\":\"@B@\"}", CONFIG_FILE,
	  "{\"root\":{\"path\":\"r\"},\"annotations\":{\"org.shiftbind.shift\":\"no\"}}",
	  "config.json: annotations: org.shiftbind.shift: expected" },
};

/* The state with "@B@" replaced by the bundle's path. */
static char *expand_state(const char *text, size_t *len)
{
	const char *at = strstr(text, "@B@");
	char *out;

	if (!at) {
		out = strdup(text);
	} else if (asprintf(&out, "%.*s%s%s", (int)(at - text), text, bundle,
			    at + 3) < 0) {
		out = NULL;
	}
	if (!out)
		die("expand_state");
	*len = strlen(out);
	return out;
}

static char *extents_config(size_t n)
{
	size_t i, size = 256 + n * 64;
	char *text = malloc(size), *p;

	if (!text)
		die("malloc");
	p = text + sprintf(text, "{\"root\":{\"path\":\"r\"},\"linux\":{"
			   "\"namespaces\":[{\"type\":\"user\"}],\"uidMappings\":[");
	for (i = 0; i < n; i++)
		p += sprintf(p, "%s{\"containerID\":%zu,\"hostID\":%zu,\"size\":1}",
			     i ? "," : "", i, 100000 + i);
	sprintf(p, "],\"gidMappings\":" MAP_OK "}}");
	return text;
}

static void write_huge_config(const char *path, const char *text)
{
	size_t pad = CONFIG_MAX + 1, len = strlen(text);
	char *buf = malloc(pad + len);

	if (!buf)
		die("malloc");
	memset(buf, ' ', pad);
	memcpy(buf + pad, text, len);
	write_file(path, buf, pad + len);
	free(buf);
}

static void setup_bundle(const struct parse_case *c)
{
	char config[PATH_MAX], target[PATH_MAX];
	char *text;

	bundle_path(config, sizeof(config), "config.json");
	remove_tree(config);
	switch (c->setup) {
	case CONFIG_FILE:
	case CONFIG_UNREADABLE:
		write_file(config, c->config, strlen(c->config));
		chmod(config, c->setup == CONFIG_UNREADABLE ? 0000 : 0644);
		break;
	case CONFIG_SYMLINK:
		bundle_path(target, sizeof(target), "real-config.json");
		write_file(target, c->config, strlen(c->config));
		if (symlink(target, config) < 0)
			die("symlink");
		break;
	case CONFIG_DIRECTORY:
		if (mkdir(config, 0755) < 0)
			die("mkdir");
		break;
	case CONFIG_FIFO:
		if (mkfifo(config, 0644) < 0)
			die("mkfifo");
		break;
	case CONFIG_MISSING:
		break;
	case CONFIG_HUGE:
		write_huge_config(config, c->config);
		break;
	case CONFIG_341_EXTENTS:
	case CONFIG_340_EXTENTS:
		text = extents_config(c->setup == CONFIG_341_EXTENTS ? 341 : 340);
		write_file(config, text, strlen(text));
		free(text);
		break;
	}
}

/* The state as the hook's stdin would hold it. */
static int state_fd(const char *state, size_t len)
{
	int fd = memfd_create("state", MFD_CLOEXEC);

	if (fd < 0)
		die("memfd_create");
	if (write(fd, state, len) != (ssize_t)len || lseek(fd, 0, SEEK_SET) < 0)
		die("writing the state");
	return fd;
}

/*
 * What the hook does with its input before it acts: the parser child
 * parses the state and config.json (which the hook reads for it), and
 * the hook validates the mappings it would shift with.
 */
static int parse_input(const char *state, size_t len, struct hook_input *in,
		       struct error *e)
{
	int fd = state_fd(state, len);
	int ret = parse_untrusted_input(self_exe, fd, false, in, e);

	close(fd);
	if (ret == 0 && in->has_userns && !in->opts.opt_out)
		ret = hook_input_validate(in, e);
	return ret;
}

/*
 * Root reads any file through CAP_DAC_OVERRIDE and CAP_DAC_READ_SEARCH;
 * without them, a file of mode 0000 is unreadable even to its owner.
 */
static int drop_dac_capabilities(void)
{
	struct __user_cap_header_struct header = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct data[2];

	if (syscall(SYS_capget, &header, data) < 0)
		return -1;
	data[0].effective &= ~((1u << CAP_DAC_OVERRIDE) | (1u << CAP_DAC_READ_SEARCH));
	return (int)syscall(SYS_capset, &header, data);
}

/*
 * The unreadable case: parse in a child without those capabilities,
 * which sends back the error message (nothing if parsing succeeded).
 * The child frees what it holds before _exit, for valgrind.
 */
static int parse_unreadable(char *state, size_t len, struct error *e)
{
	int pipefd[2];
	ssize_t n;
	pid_t pid;

	if (pipe(pipefd) < 0)
		die("pipe");
	pid = fork();
	if (pid < 0)
		die("fork");
	if (pid == 0) {
		struct hook_input in = { 0 };
		struct error err = { 0, "" };

		close(pipefd[0]);
		if (drop_dac_capabilities() == 0 &&
		    parse_input(state, len, &in, &err) < 0 &&
		    write(pipefd[1], err.msg, strlen(err.msg)) < 0)
			err.code = EIO;
		hook_input_free(&in);
		free(state);
		_exit(0);
	}
	close(pipefd[1]);
	memset(e->msg, 0, sizeof(e->msg));
	n = read(pipefd[0], e->msg, sizeof(e->msg) - 1);
	close(pipefd[0]);
	waitpid(pid, NULL, 0);
	e->code = EACCES;
	return n > 0 ? -EACCES : 0;
}

static void run_bad_input(const struct parse_case *c)
{
	struct hook_input in = { 0 };
	struct error e = { 0, "" };
	size_t len;
	char *state = expand_state(c->state, &len);
	int ret;

	setup_bundle(c);
	if (c->setup == CONFIG_UNREADABLE)
		ret = parse_unreadable(state, len, &e);
	else
		ret = parse_input(state, len, &in, &e);
	if (!ok(ret < 0 && strstr(e.msg, c->expect), "bad input (corpus): %s", c->name))
		diag("expected error containing \"%s\", got %d \"%s\"", c->expect,
		     ret, e.msg);
	hook_input_free(&in);
	free(state);
}

/* Bytes of state past STATE_MAX, through the real reader on an fd. */
static void test_state_over_cap(void)
{
	struct hook_input in = { 0 };
	struct error e = { 0, "" };
	char path[PATH_MAX];
	size_t len = STATE_MAX + 1;
	char *big = malloc(len);
	int fd, ret;

	if (!big)
		die("malloc");
	memset(big, ' ', len);
	big[0] = '{';
	bundle_path(path, sizeof(path), "big-state.json");
	write_file(path, big, len);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	ret = parse_untrusted_input(self_exe, fd, false, &in, &e);
	ok(ret == -EFBIG && strstr(e.msg, "state (stdin): larger than 65536 bytes"),
	   "bad input: state over the cap (%s)", e.msg);
	close(fd);
	/* A state of exactly the cap is read (and then parsed). */
	write_file(path, big, STATE_MAX);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	ret = parse_untrusted_input(self_exe, fd, false, &in, &e);
	ok(ret < 0 && strstr(e.msg, "premature EOF"),
	   "state of exactly 64 KiB is read whole (%s)", e.msg);
	close(fd);
	hook_input_free(&in);
	free(big);
}

/* A NUL byte inside the text (json_parse gets the length, not strlen). */
static void test_raw_nul(void)
{
	static const char text[] = "{\"ociVersion\":\"1.0\"}\0{\"x\":1}";
	struct hook_input in = { 0 };
	struct error e = { 0, "" };

	ok(state_parse(text, sizeof(text) - 1, &in, &e) < 0 &&
	   strstr(e.msg, "state: contains a NUL byte"), "bad input: raw NUL byte (%s)",
	   e.msg);
	hook_input_free(&in);
}

/* JSON text is UTF-8 in the strict sense (RFC 3629), in keys and values. */
static void test_strict_utf8(void)
{
	static const struct {
		const char *text;
		bool valid;
		const char *what;
	} cases[] = {
		{ "{\"a\":\"\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80\"}", true,
		  "two, three and four byte sequences" },
		{ "{\"a\":\"\xc0\x80\"}", false, "overlong NUL (C0 80)" },
		{ "{\"a\":\"\xe0\x80\xaf\"}", false, "overlong '/' (E0 80 AF)" },
		{ "{\"a\":\"\xed\xa0\x80\"}", false, "UTF-16 surrogate (ED A0 80)" },
		{ "{\"a\":\"\xf4\x90\x80\x80\"}", false, "above U+10FFFF (F4 90 80 80)" },
		{ "{\"a\":\"\xf5\x80\x80\x80\"}", false, "lead byte F5" },
		{ "{\"a\":\"\xe2\x82\"}", false, "truncated sequence" },
		{ "{\"\xff\":1}", false, "invalid byte in a key" },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		struct error e = { 0, "" };
		yajl_val tree = NULL;
		int ret = json_parse("state", cases[i].text, strlen(cases[i].text),
				     JSON_DUPLICATES_WHEN_READ, &tree, &e);

		if (cases[i].valid)
			ok(ret == 0, "UTF-8 accepted: %s (%s)", cases[i].what, e.msg);
		else
			ok(ret < 0 && strstr(e.msg, "state: not valid UTF-8 at byte"),
			   "UTF-8 refused: %s (%s)", cases[i].what, e.msg);
		yajl_tree_free(tree);
	}
}

/* ---- good inputs ---------------------------------------------------- */

static void good_config(const char *text)
{
	struct parse_case c = { "", "", CONFIG_FILE, text, NULL };

	setup_bundle(&c);
}

static int parse_good(const char *state_text, const char *config,
		      struct hook_input *in, struct error *e)
{
	size_t len;
	char *state = expand_state(state_text, &len);
	int ret;

	good_config(config);
	memset(in, 0, sizeof(*in));
	ret = parse_input(state, len, in, e);
	free(state);
	if (ret < 0)
		diag("unexpected error: %s", e->msg);
	return ret;
}

static void test_crun_state(void)
{
	struct hook_input in;
	struct error e = { 0, "" };
	char rootfs[PATH_MAX];

	bundle_path(rootfs, sizeof(rootfs), "rootfs");
	ok(parse_good(STATE_OK, CONFIG_OK, &in, &e) == 0, "crun 1.8.1 state parses");
	ok(in.id && !strcmp(in.id, "c1"), "id");
	ok(in.pid == 1234, "pid");
	ok(in.bundle && !strcmp(in.bundle, bundle), "bundle");
	ok(in.root_path && !strcmp(in.root_path, rootfs),
	   "relative root.path resolved against the bundle (%s)", in.root_path);
	ok(in.has_userns && !in.userns_path, "user namespace, created");
	ok(in.uid_map.count == 1 && in.uid_map.extent[0].host == 100000 &&
	   in.uid_map.extent[0].size == 65536 && in.gid_map.count == 1,
	   "mappings copied");
	ok(!in.have_annotations && !in.opts.opt_out && in.opts.extra_count == 0,
	   "no annotations: defaults");
	hook_input_free(&in);
}

static void test_340_extents(void)
{
	struct parse_case c = { "", "", CONFIG_340_EXTENTS, NULL, NULL };
	struct hook_input in = { 0 };
	struct error e = { 0, "" };
	size_t len;
	char *state = expand_state(STATE_OK, &len);

	setup_bundle(&c);
	ok(parse_input(state, len, &in, &e) == 0 && in.uid_map.count == 340,
	   "a mapping of 340 extents is accepted");
	free(state);
	hook_input_free(&in);
}

static void test_spec_fields(void)
{
	struct hook_input in;
	struct error e = { 0, "" };

	/* The spec's own example state: status "creating", annotations. */
	ok(parse_good("{\"ociVersion\":\"1.0.2\",\"id\":\"oci-container1\",\"status\":\"creating\","
		      "\"pid\":4422,\"bundle\":\"@B@\",\"annotations\":{\"myKey\":\"myValue\"}}",
		      "{\"root\":{\"path\":\"/abs/rootfs\",\"readonly\":true}}", &in, &e) == 0,
	   "the runtime-spec example state parses");
	ok(in.root_path && !strcmp(in.root_path, "/abs/rootfs"), "absolute root.path kept");
	ok(in.root_readonly, "root.readonly");
	ok(!in.has_userns, "no linux section: no user namespace");
	ok(in.have_annotations, "foreign annotations accepted");
	hook_input_free(&in);

	ok(parse_good("{\"ociVersion\":\"1.0\",\"id\":\"c\",\"pid\":0,\"bundle\":\"@B@\"}",
		      CONFIG_OK, &in, &e) == 0 && in.pid == 0,
	   "pid 0 parses (crun passes it at createContainer)");
	hook_input_free(&in);

	ok(parse_good(STATE_WITH(",\"annotations\":null"),
		      "{\"root\":{\"path\":\"r\",\"readonly\":null},\"linux\":null}", &in,
		      &e) == 0 && !in.have_annotations && !in.root_readonly,
	   "optional members set to null count as absent");
	hook_input_free(&in);

	ok(parse_good(STATE_OK,
		      "{\"root\":{\"path\":\"r\"},\"linux\":{\"namespaces\":[{\"type\":\"network\"}],"
		      "\"uidMappings\":[{\"containerID\":0,\"hostID\":0,\"size\":0}]}}", &in,
		      &e) == 0 && !in.has_userns,
	   "mappings without a user namespace are not looked at");
	hook_input_free(&in);

	ok(parse_good(STATE_OK,
		      "{\"root\":{\"path\":\"r\"},\"linux\":{\"namespaces\":[{\"type\":\"user\","
		      "\"path\":\"/proc/1/ns/user\"}],\"uidMappings\":" MAP_OK
		      ",\"gidMappings\":" MAP_OK "}}", &in, &e) == 0 &&
	   in.userns_path && !strcmp(in.userns_path, "/proc/1/ns/user"),
	   "joined user namespace: its path kept");
	hook_input_free(&in);

	/* crun runs a joined namespace without restated mappings: so does the hook. */
	ok(parse_good(STATE_OK,
		      "{\"root\":{\"path\":\"r\"},\"linux\":{\"namespaces\":[{\"type\":\"user\","
		      "\"path\":\"/proc/1/ns/user\"}]}}", &in, &e) == 0 &&
	   in.has_userns && !in.maps_given && hook_input_validate(&in, &e) == 0,
	   "joined user namespace without mappings: the maps are /proc's (%s)", e.msg);
	hook_input_free(&in);

	test_340_extents();
}

static void test_bundle_path_fallback(void)
{
	struct hook_input in;
	struct error e = { 0, "" };

	ok(parse_good("{\"ociVersion\":\"1.0\",\"id\":\"c1\",\"pid\":1,\"bundlePath\":\"@B@\"}",
		      CONFIG_OK, &in, &e) == 0 && in.bundle && !strcmp(in.bundle, bundle),
	   "bundlePath used when bundle is absent");
	hook_input_free(&in);
	ok(parse_good("{\"ociVersion\":\"1.0\",\"id\":\"c1\",\"pid\":1,\"bundle\":\"@B@\","
		      "\"bundlePath\":\"/elsewhere\"}", CONFIG_OK, &in, &e) == 0 &&
	   in.bundle && !strcmp(in.bundle, bundle), "bundle wins over bundlePath");
	hook_input_free(&in);
}

static void test_annotations(void)
{
	struct hook_input in;
	struct error e = { 0, "" };

	ok(parse_good(STATE_WITH(",\"annotations\":{\"org.shiftbind.shift\":\"false\"}"),
		      CONFIG_MAP("[{\"containerID\":0,\"hostID\":0,\"size\":1}]"), &in, &e) == 0 &&
	   in.opts.opt_out, "shift=false opts out (and skips mapping validation)");
	hook_input_free(&in);

	/* An opted-out container is left alone, even with mappings missing. */
	ok(parse_good(STATE_WITH(",\"annotations\":{\"org.shiftbind.shift\":\"false\"}"),
		      "{\"root\":{\"path\":\"r\"},\"linux\":{\"namespaces\":[{\"type\":\"user\"}]}}",
		      &in, &e) == 0 && in.opts.opt_out && in.has_userns,
	   "shift=false with no mappings at all: nothing to do, no error (%s)", e.msg);
	hook_input_free(&in);
	ok(parse_good(STATE_OK,
		      "{\"root\":{\"path\":\"r\"},\"annotations\":{\"org.shiftbind.shift\":\"false\"},"
		      "\"linux\":{\"namespaces\":[{\"type\":\"user\"}],\"uidMappings\":42}}",
		      &in, &e) == 0 && in.opts.opt_out,
	   "shift=false in config.json with a bad uidMappings: not read (%s)", e.msg);
	hook_input_free(&in);

	ok(parse_good(STATE_WITH(",\"annotations\":{\"org.shiftbind.shift\":\"true\","
				 "\"org.shiftbind.extra-mounts\":\"/data,/var/cache\","
				 "\"run.oci.hooks.stderr\":\"/tmp/x\"}"), CONFIG_OK, &in, &e) == 0 &&
	   !in.opts.opt_out && in.opts.extra_count == 2 &&
	   !strcmp(in.opts.extra_mounts[0], "/data") &&
	   !strcmp(in.opts.extra_mounts[1], "/var/cache") && !in.opts.extra_mounts[2],
	   "extra-mounts split, in order");
	hook_input_free(&in);

	ok(parse_good(STATE_WITH(",\"annotations\":{\"org.shiftbind.extra-mounts\":\"\"}"),
		      CONFIG_OK, &in, &e) == 0 && in.opts.extra_count == 0,
	   "empty extra-mounts means none");
	hook_input_free(&in);

	ok(parse_good("{\"ociVersion\":\"1.0\",\"id\":\"c1\",\"pid\":1,\"bundle\":\"@B@\"}",
		      "{\"root\":{\"path\":\"r\"},\"annotations\":{\"org.shiftbind.shift\":\"false\"}}",
		      &in, &e) == 0 && in.opts.opt_out,
	   "config.json annotations used when the state has none");
	hook_input_free(&in);

	ok(parse_good(STATE_WITH(",\"annotations\":{}"),
		      "{\"root\":{\"path\":\"r\"},\"annotations\":{\"org.shiftbind.shift\":\"false\"}}",
		      &in, &e) == 0 && !in.opts.opt_out,
	   "the state's annotations win over config.json's");
	hook_input_free(&in);
}

/*
 * A duplicate key the hook does not read is none of its business (issue
 * 16): with a hooks.d registration that applies always, refusing it
 * refused every such container on the host.
 */
static void test_duplicates_not_read(void)
{
	struct hook_input in;
	struct error e = { 0, "" };

	ok(parse_good(STATE_OK,
		      "{\"ociVersion\":\"1.0.0\",\"process\":{\"cwd\":\"/\",\"cwd\":\"/x\"},"
		      "\"root\":{\"path\":\"r\"},\"linux\":{\"namespaces\":[{\"type\":\"pid\"}]}}",
		      &in, &e) == 0 && !in.has_userns,
	   "duplicate process.cwd without a user namespace: accepted (%s)", e.msg);
	hook_input_free(&in);

	ok(parse_good(STATE_OK,
		      "{\"root\":{\"path\":\"r\"},\"mounts\":[{\"destination\":\"/proc\","
		      "\"type\":\"proc\",\"destination\":\"/p\"}],\"hostname\":\"a\",\"hostname\":\"b\"}",
		      &in, &e) == 0 && !in.has_userns,
	   "duplicate keys in mounts[0] and at the top, no user namespace: accepted (%s)", e.msg);
	hook_input_free(&in);

	ok(parse_good(STATE_WITH(",\"status\":\"creating\""),
		      "{\"process\":{\"env\":[],\"env\":[]},\"ociVersion\":\"1.0.0\","
		      "\"root\":{\"path\":\"rootfs\"},\"linux\":{\"namespaces\":"
		      "[{\"type\":\"user\"}],\"uidMappings\":" MAP_OK ",\"gidMappings\":" MAP_OK
		      ",\"sysctl\":{\"a\":\"1\",\"a\":\"2\"}}}", &in, &e) == 0 &&
	   in.has_userns && in.maps_given && in.uid_map.count == 1,
	   "with a user namespace, duplicates in the state's status, process and linux.sysctl: accepted (%s)",
	   e.msg);
	hook_input_free(&in);

	ok(parse_good(STATE_OK,
		      "{\"root\":{\"path\":\"r\"},\"linux\":{\"namespaces\":[{\"type\":\"network\"}],"
		      "\"uidMappings\":[],\"uidMappings\":[]}}", &in, &e) == 0 && !in.has_userns,
	   "duplicate uidMappings without a user namespace: not read, accepted (%s)", e.msg);
	hook_input_free(&in);

	ok(parse_good(STATE_WITH(",\"annotations\":{\"org.shiftbind.shift\":\"false\"}"),
		      "{\"root\":{\"path\":\"r\"},\"linux\":{\"namespaces\":[{\"type\":\"user\"}],"
		      "\"uidMappings\":[],\"uidMappings\":[]}}", &in, &e) == 0 && in.opts.opt_out,
	   "duplicate uidMappings of an opted-out container: not read, accepted (%s)", e.msg);
	hook_input_free(&in);

	ok(parse_good(STATE_WITH(",\"annotations\":{}"),
		      "{\"root\":{\"path\":\"r\"},\"annotations\":{\"a\":\"1\",\"a\":\"2\"}}",
		      &in, &e) == 0 && in.have_annotations,
	   "duplicate config.json annotation key when the state's annotations are used: accepted (%s)",
	   e.msg);
	hook_input_free(&in);
}

/* The mechanism: json_parse's two modes, the getters, json_check_keys. */
static void test_json_duplicates(void)
{
	static const char text[] = "{\"a\":1,\"b\":[{\"c\":1,\"c\":2}],\"d\":null,\"d\":\"x\"}";
	static const char nested[] = "{\"b\":[{\"c\":1,\"c\":2}]}";
	struct error e = { 0, "" };
	yajl_val tree = NULL, v;
	const char *s;
	long long n;

	ok(json_parse("doc", text, strlen(text), JSON_DUPLICATES_ANYWHERE, &tree, &e) < 0 &&
	   tree == NULL && strstr(e.msg, "doc: duplicate key \"d\""),
	   "JSON_DUPLICATES_ANYWHERE refuses a duplicate at the top (%s)", e.msg);
	ok(json_parse("doc", nested, strlen(nested), JSON_DUPLICATES_ANYWHERE, &tree, &e) < 0 &&
	   tree == NULL && strstr(e.msg, "doc: duplicate key \"c\""),
	   "JSON_DUPLICATES_ANYWHERE refuses one in an object in an array (%s)", e.msg);
	e = (struct error){ 0, "" };
	if (!ok(json_parse("doc", text, strlen(text), JSON_DUPLICATES_WHEN_READ, &tree,
			   &e) == 0, "JSON_DUPLICATES_WHEN_READ parses it (%s)", e.msg))
		return;
	ok(json_get_integer(tree, "doc", "a", 0, 9, &n, &e) == 0 && n == 1,
	   "a key given once is read (%s)", e.msg);
	ok(json_opt_string(tree, "doc", "d", &s, &e) < 0 &&
	   !strcmp(e.msg, "doc: duplicate key \"d\""),
	   "a getter refuses a key given twice, the first null (%s)", e.msg);
	ok(json_opt_object(tree, "doc", "missing", &v, &e) == 0 && v == NULL,
	   "an absent key is absent");
	v = json_member(tree, "b");
	ok(v && json_get_integer(v->u.array.values[0], "doc.b[0]", "c", 0, 9, &n, &e) < 0 &&
	   !strcmp(e.msg, "doc.b[0]: duplicate key \"c\""),
	   "refused in the object looked up (%s)", e.msg);
	ok(json_check_keys(tree, "doc", &e) < 0 && !strcmp(e.msg, "doc: duplicate key \"d\""),
	   "json_check_keys (%s)", e.msg);
	ok(json_check_keys(v->u.array.values[0], "doc.b[0]", &e) < 0 &&
	   !strcmp(e.msg, "doc.b[0]: duplicate key \"c\""), "json_check_keys of a nested object");
	yajl_tree_free(tree);
}

/* ---- mappings against /proc ------------------------------------------ */

static void test_proc_maps(void)
{
	struct idmap a = { NULL, 0 }, b = { NULL, 0 };
	struct error e = { 0, "" };
	char text[128];

	ok(idmap_parse_proc("         0     100000      65536\n", "uid_map", &a, &e) == 0 &&
	   a.count == 1 && a.extent[0].host == 100000, "proc uid_map line parses");
	ok(idmap_parse_proc("         0     100000      65536\n     65536          0          1\n",
			    "uid_map", &b, &e) == 0 && b.count == 2, "two lines parse");
	ok(!idmap_same(&a, &b), "different counts differ");
	idmap_free(&a);
	ok(idmap_parse_proc("65536 0 1\n0 100000 65536\n", "uid_map", &a, &e) == 0 &&
	   idmap_same(&a, &b), "same extents in another order are the same mapping");
	idmap_format(&b, text, sizeof(text));
	ok(!strcmp(text, "0 100000 65536, 65536 0 1"), "format (%s)", text);
	idmap_free(&a);
	idmap_free(&b);
	ok(idmap_parse_proc("0 1\n", "uid_map", &a, &e) < 0 &&
	   strstr(e.msg, "uid_map: line 1: expected three ids"), "short line refused");
	ok(idmap_parse_proc("0 1 4294967296\n", "uid_map", &a, &e) < 0,
	   "id past u32 refused");
	ok(idmap_parse_proc("", "uid_map", &a, &e) == 0 && a.count == 0,
	   "empty map (not written yet) parses as empty");
	idmap_free(&a);
}

/* ---- mountinfo and status --------------------------------------------- */

static const char mountinfo_fixture[] =
	"1 0 8:1 / / rw,relatime shared:1 - ext4 /dev/sda1 rw\n"
	"36 1 8:2 / /srv/images rw,nosuid,relatime,allow-shift shared:2 - ext4 /dev/sdb rw\n"
	"37 1 8:2 /busybox /run/crun/my\\040ctr rw,relatime,allow-shift,idmapped,shift - ext4 /dev/sdb rw\n"
	"38 1 0:5 / /proc rw,nosuid - proc proc rw\n"
	/* mount("", "/run/go", "tmpfs", ...): an empty source field */
	"39 1 0:6 / /run/go rw,relatime shared:3 - tmpfs  rw\n"
	/* A mark with its owners (issue 14), and one shown as a super option. */
	"40 1 8:2 / /srv/rootless ro,nosuid,allow-shift=0:1001:100000-165535 - ext4 /dev/sdb rw\n"
	"41 1 8:3 / /srv/other rw - xfs /dev/sdc rw,allow-shift=0,allow-shiftx\n";

/* The mark and its owners, per-mount or super option, plain or with owners. */
static void check_allow_shift(const struct mount_entry *m)
{
	static const struct {
		int id;
		bool marked;
		const char *owners;	/* NULL: the plain mark */
	} want[] = {
		{ 36, true, NULL },
		{ 37, true, NULL },
		{ 38, false, NULL },
		{ 39, false, NULL },
		{ 40, true, "0:1001:100000-165535" },
		{ 41, true, "0" },
	};
	const char *owners = "unset";
	size_t i, len = 0;
	bool marked = mount_allow_shift(m, &owners, &len);

	for (i = 0; i < ARRAY_SIZE(want); i++) {
		if (want[i].id != m->id)
			continue;
		ok(marked == want[i].marked &&
		   (!marked || (want[i].owners ? owners && len == strlen(want[i].owners) &&
				!memcmp(owners, want[i].owners, len) : !owners)),
		   "mount %d: allow-shift %s, owners \"%.*s\"", m->id,
		   marked ? "found" : "absent", owners ? (int)len : 6,
		   owners ? owners : "(none)");
	}
}

static void test_mountinfo(void)
{
	char *text = strdup(mountinfo_fixture), *cursor = text;
	struct error e = { 0, "" };
	struct mount_entry m;
	char bad[] = "36 1 8:2 / /x rw";
	int n = 0;

	while (mountinfo_next(&cursor, &m, &e) > 0) {
		n++;
		if (m.id == 37) {
			ok(!strcmp(m.mountpoint, "/run/crun/my ctr"), "\\040 unescaped (%s)",
			   m.mountpoint);
			ok(!strcmp(m.root, "/busybox") && !strcmp(m.fstype, "ext4") &&
			   !strcmp(m.source, "/dev/sdb"), "fields after the separator");
			ok(mount_has_option(m.options, "shift") &&
			   mount_has_option(m.options, "allow-shift") &&
			   !mount_has_option(m.options, "allow"), "options matched whole");
		}
		if (m.id >= 36)
			check_allow_shift(&m);
		if (m.id == 39)
			ok(!strcmp(m.fstype, "tmpfs") && !strcmp(m.source, "") &&
			   !strcmp(m.super_options, "rw"),
			   "empty source: fstype '%s', source '%s', options '%s'",
			   m.fstype, m.source, m.super_options);
	}
	ok(n == 7, "seven entries, one with an empty source (%d): %s", n, e.msg);
	ok(mountinfo_parse_line(bad, &m) == -EINVAL, "line without separator refused");
	{
		char short_line[] = "36 1 8:2 / /x rw - ext4";

		ok(mountinfo_parse_line(short_line, &m) == -EINVAL,
		   "line without source and super options refused");
	}
	free(text);
}

static char *capture(char *mountinfo, const char *under, bool json)
{
	struct error e = { 0, "" };
	char *buf = NULL;
	size_t size = 0;
	FILE *out = open_memstream(&buf, &size);

	if (!out)
		die("open_memstream");
	if (status_print(mountinfo, under, json, out, &e) < 0)
		fprintf(out, "ERROR %s", e.msg);
	fclose(out);
	return buf;
}

/* JSON without its blanks, to compare with a one-line expectation. */
static void squeeze(char *s)
{
	char *out = s;

	for (; *s; s++)
		if (!strchr(" \t\n", *s))
			*out++ = *s;
	*out = '\0';
}

static void test_status(void)
{
	char *text = strdup(mountinfo_fixture), *out;

	out = capture(text, NULL, false);
	ok(strstr(out, "allow-shift        ext4     /srv/images") &&
	   strstr(out, "allow-shift,shift  ext4     /run/crun/my\\040ctr") && !strstr(out, "/proc"),
	   "status lists marked and shifted mounts");
	ok(strstr(out, "MOUNTPOINT                       OWNERS           OPTIONS") &&
	   strstr(out, "/srv/images                      any              rw,") &&
	   strstr(out, "/srv/rootless                    0:1001:100000-165535 ro,") &&
	   strstr(out, "/srv/other                       0                rw"),
	   "status shows each mark's owners: %s", out);
	free(out);
	free(text);

	text = strdup(mountinfo_fixture);
	out = capture(text, "/srv", false);
	ok(strstr(out, "/srv/images") && !strstr(out, "/run/crun"), "status PATH filters");
	free(out);
	free(text);

	text = strdup(mountinfo_fixture);
	out = capture(text, "/sr", false);
	ok(strstr(out, "no mount at or below /sr is marked"), "PATH matches whole components");
	free(out);
	free(text);

	text = strdup(mountinfo_fixture);
	out = capture(text, NULL, true);
	{
		struct error e = { 0, "" };
		yajl_val tree = NULL;
		yajl_val mounts;

		ok(json_parse("status", out, strlen(out), JSON_DUPLICATES_ANYWHERE,
			      &tree, &e) == 0 &&
		   (mounts = json_member(tree, "mounts")) && YAJL_IS_ARRAY(mounts) &&
		   mounts->u.array.len == 4, "status --json: four mounts");
		yajl_tree_free(tree);
	}
	ok(strstr(out, "\"allow_shift\": true") && strstr(out, "\"shifted\": true") &&
	   strstr(out, "\"my ctr\"") == NULL && strstr(out, "/run/crun/my ctr"),
	   "status --json fields");
	squeeze(out);
	ok(strstr(out, "\"owners\":null") &&
	   strstr(out, "\"owners\":[\"0\",\"1001\",\"100000-165535\"]"),
	   "status --json owners: null for the plain mark, else the list: %s", out);
	free(out);
	free(text);
}

/* ---- allow.conf ------------------------------------------------------ */

/*
 * Mount points come from anyone who can mount: a newline must not forge a
 * row, escape codes must not reach the terminal, and a name that is not
 * UTF-8 must not stop --json.
 */
static size_t count_lines(const char *s)
{
	size_t n = 0;

	for (; *s; s++)
		n += *s == '\n';
	return n;
}

static void test_status_hostile_names(void)
{
	static const char hostile[] =
		"36 1 8:2 / /srv/a\\012allow-shift\\040ext4\\040/etc rw,allow-shift - ext4 /dev/sdb rw\n"
		"37 1 8:2 / /srv/\x1b[31mred rw,allow-shift - ext4 /dev/sdb rw\n"
		"38 1 8:2 / /srv/latin1-\xe9 rw,allow-shift - ext4 /dev/sdb rw\n";
	char *text = strdup(hostile), *out;
	struct error e = { 0, "" };
	yajl_val tree = NULL;

	out = capture(text, NULL, false);
	ok(strstr(out, "/srv/a\\012allow-shift\\040ext4\\040/etc") && count_lines(out) == 4,
	   "a newline in a mount point stays escaped, one row a mount: %s", out);
	ok(!strchr(out, '\x1b') && strstr(out, "/srv/\\033[31mred"),
	   "an escape code is not written to the terminal");
	free(out);
	free(text);

	text = strdup(hostile);
	out = capture(text, NULL, true);
	ok(json_parse("status", out, strlen(out), JSON_DUPLICATES_ANYWHERE, &tree,
		      &e) == 0 &&
	   strstr(out, "/srv/latin1-\\\\351"),
	   "status --json: a non-UTF-8 mount point given escaped (%s)", e.msg);
	yajl_tree_free(tree);
	free(out);
	free(text);
}

/* allow.conf text without a NUL byte. */
static int parse_conf(const char *text, const char *file,
		      struct allow_list *list, struct error *e)
{
	return allowconf_parse(text, strlen(text), file, list, e);
}

/*
 * Each bad line of allow.conf refused on its own, with its line and
 * reason; a good line "/good" is kept in every case.
 */
static const struct allowconf_case {
	const char *name;
	const char *text;
	size_t line;		/* of the refused line */
	const char *expect;
} bad_allowconf[] = {
	{ "unknown option", "/a rx\n/good\n", 1,
	  "unknown option \"rx\" (known: rw, suid, suid-host, force, owner=WHO, group=NAME)" },
	{ "retired ro", "/good\n/b ro\n", 2,
	  "\"ro\" is no option any more: stores are marked read-only unless \"rw\" is given; remove it" },
	{ "retired nosuid", "/a nosuid\n/good\n", 1,
	  "\"nosuid\" is no option any more: stores are marked nosuid unless \"suid\"" },
	{ "relative path", "\nsrv\n/good\n", 2, "\"srv\" is not an absolute path" },
	{ "repeated option", "/a rw rw\n/good\n", 1, "option \"rw\" given twice" },
	{ "unknown owner", "/good\n# x\n/b owner=root owner=no-such-user-x\n", 3,
	  "owner=no-such-user-x: no such user in /etc/passwd" },
	{ "backward owner range", "/b owner=9-3\n/good\n", 1,
	  "owner=9-3: the range ends before it starts" },
	{ "owner listed twice", "/b owner=0 owner=root\n/good\n", 1,
	  "owner=root: overlaps 0, given before" },
	{ "empty owner", "/b owner=\n/good\n", 1, "owner=\"\": an empty owner" },
	{ "unknown group", "/good\n/b group=no-such-group-x\n", 2,
	  "group=no-such-group-x: no such group in /etc/group" },
	{ "empty group name", "/b group=\n/good\n", 1, "group=\"\": an empty group name" },
};

/* The entry of list on line, or NULL. */
static const struct allow_entry *entry_on_line(const struct allow_list *list,
					       size_t line)
{
	size_t i;

	for (i = 0; i < list->count; i++)
		if (list->entry[i].line == line)
			return &list->entry[i];
	return NULL;
}

/* The entry "/good" of list: present, unrefused, with no option. */
static bool good_kept(const struct allow_list *list)
{
	size_t i;

	for (i = 0; i < list->count; i++)
		if (list->entry[i].path && !strcmp(list->entry[i].path, "/good"))
			return !list->entry[i].error && list->entry[i].mark.flags == 0 &&
			       list->entry[i].mark.owners.count == 0;
	return false;
}

static void test_allowconf_bad_lines(void)
{
	struct allow_list list = { NULL, 0 };
	struct error e = { 0, "" };
	const struct allow_entry *x;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(bad_allowconf); i++) {
		const struct allowconf_case *c = &bad_allowconf[i];

		x = parse_conf(c->text, "f", &list, &e) == 0 ?
		    entry_on_line(&list, c->line) : NULL;
		if (!ok(list.count == 2 && x && x->error && strstr(x->error, c->expect) &&
			x->mark.flags == 0 && x->mark.owners.count == 0 && !x->force &&
			good_kept(&list),
			"bad input: allow.conf %s refuses its line only", c->name))
			diag("expected line %zu refused with \"%s\", got %s", c->line,
			     c->expect, x && x->error ? x->error : "no refusal");
		allow_list_free(&list);
	}
	/* Listed twice: neither line marks it, whichever came first. */
	ok(parse_conf("/a\n/good\n/a rw owner=1001\n", "f", &list, &e) == 0 &&
	   list.count == 3 && good_kept(&list) &&
	   list.entry[0].error && list.entry[2].error &&
	   !strcmp(list.entry[0].error, "/a is listed on line 3 too: a store listed twice is marked by none of its lines; keep one line for it") &&
	   strstr(list.entry[2].error, "/a is listed on line 1 too") &&
	   list.entry[2].mark.flags == 0 && list.entry[2].mark.owners.count == 0,
	   "bad input: a store listed twice is marked by neither line (%s)",
	   list.count ? list.entry[0].error : e.msg);
	allow_list_free(&list);
	/* One store written four ways: the same store, on four lines. */
	ok(parse_conf("/srv/x owner=root\n/srv//x\n/good\n/srv/./x/ rw\n/srv/x/\n",
		      "f", &list, &e) == 0 && list.count == 5 && good_kept(&list) &&
	   list.entry[0].error && list.entry[1].error && list.entry[3].error &&
	   list.entry[4].error &&
	   !strcmp(list.entry[0].error, "/srv/x is listed on lines 2, 4 and 5 too: a store listed twice is marked by none of its lines; keep one line for it") &&
	   !strcmp(list.entry[1].error, "/srv/x (written /srv//x) is listed on lines 1, 4 and 5 too: a store listed twice is marked by none of its lines; keep one line for it") &&
	   strstr(list.entry[3].error, "/srv/x (written /srv/./x/) is listed on lines 1, 2 and 5 too") &&
	   list.entry[3].mark.flags == 0 && list.entry[0].mark.owners.count == 0,
	   "bad input: /srv/x, /srv//x, /srv/./x/ and /srv/x/ are one store listed four times");
	allow_list_free(&list);
	/*
	 * group=NAME: its members' uids at parse time (the host's root
	 * group: root, whose login group it is); beside owner=0, the uid
	 * listed already is left out, not refused.
	 */
	ok(parse_conf("/a group=root\n/b owner=0 group=root\n", "f", &list, &e) == 0 &&
	   list.count == 2 && !list.entry[0].error && !list.entry[1].error &&
	   owner_list_has(&list.entry[0].mark.owners, 0) &&
	   list.entry[1].mark.owners.count == list.entry[0].mark.owners.count,
	   "allow.conf group=root delegates to its members, uid 0 among them");
	allow_list_free(&list);
	ok(parse_conf("/a/../b\n/good\n", "f", &list, &e) == 0 && list.count == 2 &&
	   good_kept(&list) && list.entry[0].error &&
	   !strcmp(list.entry[0].error, "`/a/../b`: \"..\" in the path; name the store without it"),
	   "bad input: a path with .. refused on its line");
	allow_list_free(&list);
}

/*
 * A NUL byte ends no parsing: its line is refused with its column, the
 * lines after it are read, and a store before the byte still counts as
 * listed.
 */
static void test_allowconf_nul(void)
{
	static const char text[] = "/a\0 rw\n/good\n# x\0y\n/b\n/b2 rw\0\n/b2\n";
	struct allow_list list = { NULL, 0 };
	struct error e = { 0, "" };

	ok(allowconf_parse(text, sizeof(text) - 1, "f", &list, &e) == 0 &&
	   list.count == 6 && good_kept(&list) &&
	   list.entry[0].error && list.entry[0].line == 1 &&
	   !strcmp(list.entry[0].error, "a NUL byte at column 3: the line cannot be read as text, and what follows the byte would be lost; remove the byte and check the line") &&
	   list.entry[0].mark.flags == 0 &&
	   list.entry[2].error && list.entry[2].line == 3 && !list.entry[2].path &&
	   strstr(list.entry[2].error, "a NUL byte at column 4") &&
	   !list.entry[3].error && !strcmp(list.entry[3].path, "/b") &&
	   list.entry[4].error && strstr(list.entry[4].error, "a NUL byte at column 7") &&
	   list.entry[5].error &&
	   !strcmp(list.entry[5].error, "/b2 is listed on line 5 too: a store listed twice is marked by none of its lines; keep one line for it"),
	   "bad input: a NUL byte refuses its line only, the lines after it read");
	allow_list_free(&list);
}

static void test_allowconf(void)
{
	struct allow_list list = { NULL, 0 };
	struct error e = { 0, "" };
	const struct allow_entry *x;
	size_t i;

	ok(parse_conf("# stores\n\n/srv/images # shared\n  /var/lib/x\trw suid force\t# y\n"
			   "/srv/rootless owner=root owner=1001 owner=100000-165535\n",
			   "allow.conf", &list, &e) == 0 && list.count == 3,
	   "allow.conf parses (%s)", e.msg);
	if (list.count == 3) {
		x = &list.entry[0];
		ok(!strcmp(x->path, "/srv/images") && x->mark.flags == 0 && !x->force &&
		   x->mark.owners.count == 0 && x->line == 3 && !x->error,
		   "entry without options: read-only, nosuid, real root's namespaces");
		x = &list.entry[1];
		ok(!strcmp(x->path, "/var/lib/x") && x->mark.flags == (MARK_WRITABLE | MARK_SUID) &&
		   x->force && x->line == 4 && !x->error, "rw, suid and force");
		x = &list.entry[2];
		ok(x->mark.owners.count == 3 && x->mark.owners.item[0].first == 0 &&
		   x->mark.owners.item[1].first == 1001 &&
		   x->mark.owners.item[2].first == 100000 &&
		   x->mark.owners.item[2].last == 165535 && x->mark.flags == 0 && !x->error,
		   "owner= by name, uid and range");
	}
	allow_list_free(&list);
	test_allowconf_bad_lines();
	test_allowconf_nul();
	{
		char line[1024] = "/b";

		for (i = 0; i < OWNERS_MAX + 1; i++)
			snprintf(line + strlen(line), sizeof(line) - strlen(line),
				 " owner=%zu", 1000 + i);
		ok(parse_conf(line, "f", &list, &e) == 0 && list.count == 1 &&
		   list.entry[0].error &&
		   strstr(list.entry[0].error, "owner=1016: more than 16 owners"),
		   "bad input: a seventeenth owner refused (%s)",
		   list.count && list.entry[0].error ? list.entry[0].error : e.msg);
		allow_list_free(&list);
		*strrchr(line, ' ') = '\0';
		ok(parse_conf(line, "f", &list, &e) == 0 && list.count == 1 &&
		   !list.entry[0].error &&
		   list.entry[0].mark.owners.count == OWNERS_MAX, "sixteen owners accepted (%s)",
		   e.msg);
		allow_list_free(&list);
	}
	ok(parse_conf("", "f", &list, &e) == 0 && list.count == 0, "empty file");
	allow_list_free(&list);
}

/* ---- owners ---------------------------------------------------------- */

static const struct owner_case {
	const char *who;
	const char *expect;	/* the error, or NULL */
	uid_t first, last;
} owner_cases[] = {
	{ "0", NULL, 0, 0 },
	{ "root", NULL, 0, 0 },
	{ "nobody", NULL, 65534, 65534 },
	{ "1001", NULL, 1001, 1001 },
	{ "007", NULL, 7, 7 },
	{ "100000-165535", NULL, 100000, 165535 },
	{ "5-5", NULL, 5, 5 },
	{ "4294967294", NULL, 4294967294U, 4294967294U },
	{ "4294967295", "--owner 4294967295: uid out of range (0 to 4294967294)", 0, 0 },
	{ "99999999999999999999", "uid out of range", 0, 0 },
	{ "10-5", "--owner 10-5: the range ends before it starts", 0, 0 },
	{ "1-", "--owner 1-: not a uid, a range FIRST-LAST or a user name", 0, 0 },
	{ "1-2-3", "not a uid, a range FIRST-LAST or a user name", 0, 0 },
	{ "1x", "not a uid, a range FIRST-LAST or a user name", 0, 0 },
	{ "-1", "--owner -1: no such user in /etc/passwd", 0, 0 },
	{ "no-such-user-x", "--owner no-such-user-x: no such user in /etc/passwd", 0, 0 },
	{ "", "--owner \"\": an empty owner", 0, 0 },
};

static void test_owners(void)
{
	struct owner_list list;
	struct error e = { 0, "" };
	char text[OWNER_TEXT_MAX], words[1024];
	size_t i;

	for (i = 0; i < ARRAY_SIZE(owner_cases); i++) {
		const struct owner_case *c = &owner_cases[i];
		int ret;

		list.count = 0;
		ret = owner_list_add(&list, "--owner ", c->who, &e);
		if (c->expect)
			ok(ret < 0 && strstr(e.msg, c->expect), "bad input: owner \"%s\" (%s)",
			   c->who, e.msg);
		else
			ok(ret == 0 && list.count == 1 && list.item[0].first == c->first &&
			   list.item[0].last == c->last, "owner \"%s\" is %u-%u", c->who,
			   (unsigned int)c->first, (unsigned int)c->last);
	}
	list.count = 0;
	ok(owner_list_add(&list, "--owner ", "100-200", &e) == 0 &&
	   owner_list_add(&list, "--owner ", "200-300", &e) < 0 &&
	   strstr(e.msg, "--owner 200-300: overlaps 100-200, given before"),
	   "bad input: overlapping ranges refused (%s)", e.msg);
	owner_format(&list.item[0], text, sizeof(text));
	ok(!strcmp(text, "100-200"), "a range formatted for the kernel (%s)", text);
	ok(owner_list_add(&list, "--owner ", "root", &e) == 0 &&
	   owner_list_add(&list, "--owner ", "4242", &e) == 0 && owner_list_has(&list, 0) &&
	   owner_list_has(&list, 150) && !owner_list_has(&list, 201),
	   "owner_list_has looks into ranges");
	owner_list_describe(&list, words, sizeof(words));
	ok(!strcmp(words, "uids 100-200, uid 0 (root), uid 4242"), "described: %s", words);
	owner_format(&list.item[1], text, sizeof(text));
	ok(!strcmp(text, "0"), "one uid formatted for the kernel (%s)", text);
}

/* ---- names in messages, root.path ----------------------------------- */

static void test_names(void)
{
	char buf[64], tiny[8], *path = NULL;
	struct error e = { 0, "" };

	json_name_index(buf, sizeof(buf), "config.json: linux.namespaces", 0);
	ok(!strcmp(buf, "config.json: linux.namespaces[0]"), "index 0 named (%s)", buf);
	json_name_index(buf, sizeof(buf), "m", 18446744073709551615UL);
	ok(!strcmp(buf, "m[18446744073709551615]"), "the largest index named (%s)", buf);
	json_name_join(buf, sizeof(buf), "config.json: linux.", "gidMappings");
	ok(!strcmp(buf, "config.json: linux.gidMappings"), "two parts joined (%s)", buf);
	json_name_index(tiny, sizeof(tiny), "abcdef", 12);
	ok(!strcmp(tiny, "abcdef["), "an index cut to size as snprintf cuts (%s)", tiny);
	json_name_join(tiny, sizeof(tiny), "abcd", "efgh");
	ok(!strcmp(tiny, "abcdefg"), "a join cut to size (%s)", tiny);
	ok(rootfs_resolve("/b/", "rootfs", &path, &e) == 0 && !strcmp(path, "/b/rootfs"),
	   "root.path against a bundle ending in / gets no second one (%s)", path);
	free(path);
	ok(rootfs_resolve("/b", "", &path, &e) < 0 && !path && strstr(e.msg, "root.path: empty"),
	   "bad input: an empty root.path (%s)", e.msg);
}

/* ---- the log file's stamps ------------------------------------------- */

/* log_utc_stamp against gmtime_r and strftime, around leap days and eras. */
static void test_log_stamp(void)
{
	static const time_t fixed[] = {
		0, 59, 86399, 86400, 951782399, 951782400, 951868800, 1709164800,
		4107542399, 4107542400, 4133980800, -1, -86400, -86401, 253402300799,
	};
	char mine[32], theirs[32];
	size_t i, wrong = 0;
	struct tm tm;
	time_t t;

	for (i = 0; i < ARRAY_SIZE(fixed) + 20000; i++) {
		/* The fixed instants, then one every 7.3 days from 1900 to 2300. */
		t = i < ARRAY_SIZE(fixed) ? fixed[i] :
		    (time_t)-2208988800LL + (time_t)(i - ARRAY_SIZE(fixed)) * 631297;
		log_utc_stamp(t, mine, sizeof(mine));
		strftime(theirs, sizeof(theirs), "%Y-%m-%dT%H:%M:%SZ", gmtime_r(&t, &tm));
		if (strcmp(mine, theirs) && wrong++ == 0)
			diag("log_utc_stamp(%lld): %s, gmtime_r: %s", (long long)t, mine, theirs);
	}
	ok(wrong == 0, "log_utc_stamp agrees with gmtime_r at %zu instants (%zu differ)", i, wrong);
}

/* ---- prepare-image --------------------------------------------------- */

static bool owned_by_root(const char *path, mode_t type, mode_t mode)
{
	struct stat st;

	return lstat(path, &st) == 0 && (st.st_mode & S_IFMT) == type &&
	       (st.st_mode & 07777) == mode && st.st_uid == 0 && st.st_gid == 0;
}

static void test_prepare_image(void)
{
	static const char *const files[] = { "etc/hosts", "etc/resolv.conf",
					     "etc/hostname", "run/.containerenv" };
	char image[PATH_MAX], path[3 * PATH_MAX], outside[PATH_MAX];
	struct error e = { 0, "" };
	char *out = NULL;
	size_t size = 0, i;
	FILE *report;
	bool all = true;
	int ret, probe;

	if (geteuid() != 0) {
		ok(true, "# SKIP prepare-image needs root");
		return;
	}
	/*
	 * valgrind (3.19) does not know openat2, which open_resolved() is
	 * made of: these cases run in hook_unit.sh's ASan build.
	 */
	probe = open_resolved(AT_FDCWD, "", O_PATH, SCOPE_IN_ROOT);
	if (probe == -ENOSYS) {
		ok(true, "# SKIP prepare-image: openat2 unavailable (valgrind)");
		return;
	}
	if (probe >= 0)
		close(probe);
	snprintf(image, sizeof(image), "%s/image", scratch);
	mkdir(image, 0755);
	report = open_memstream(&out, &size);
	ok(prepare_image(image, report, &e) == 0, "prepare-image on an empty image (%s)", e.msg);
	fclose(report);
	for (i = 0; i < ARRAY_SIZE(files); i++) {
		snprintf(path, sizeof(path), "%s/%s", image, files[i]);
		all &= owned_by_root(path, S_IFREG, 0644);
	}
	ok(all, "files created 0:0 0644");
	snprintf(path, sizeof(path), "%s/proc", image);
	ok(owned_by_root(path, S_IFDIR, 0755), "directories created 0:0 0755");
	ok(out && strstr(out, "created ") && strstr(out, "/etc/hosts"), "reported");
	snprintf(path, sizeof(path), "%s/etc/mtab", image);
	ret = (int)readlink(path, outside, sizeof(outside) - 1);
	ok(owned_by_root(path, S_IFLNK, 0777) && ret == (int)strlen("/proc/mounts") &&
	   !strncmp(outside, "/proc/mounts", (size_t)ret),
	   "/etc/mtab made, podman's link, 0:0");
	ok(out && strstr(out, "/etc/mtab -> /proc/mounts\n"), "the link reported");
	free(out);

	out = NULL;
	report = open_memstream(&out, &size);
	ret = prepare_image(image, report, &e);
	fclose(report);
	ok(ret == 0 && size == 0, "second run creates nothing (%s)", out);
	free(out);

	/*
	 * A symlinked component pointing at an absolute host path is
	 * resolved inside the image, as the runtime will: nothing appears
	 * on the host where it points.
	 */
	snprintf(image, sizeof(image), "%s/image2", scratch);
	snprintf(outside, sizeof(outside), "%s/outside", scratch);
	mkdir(image, 0755);
	mkdir(outside, 0755);
	snprintf(path, sizeof(path), "%s/etc", image);
	if (symlink(outside, path) < 0)
		die("symlink");
	out = NULL;
	report = open_memstream(&out, &size);
	ret = prepare_image(image, report, &e);
	fclose(report);
	ok(ret == 0 && strstr(out, "/etc is a symbolic link to ") &&
	   strstr(out, "following it inside the image"),
	   "symlinked /etc followed inside the image (%s)", e.msg);
	free(out);
	snprintf(path, sizeof(path), "%s/hosts", outside);
	ok(access(path, F_OK) < 0, "nothing created through the symlink on the host");
	snprintf(path, sizeof(path), "%s%s/hosts", image, outside);
	ok(owned_by_root(path, S_IFREG, 0644), "the target made where the link leads in the image");

	/* Ubuntu's etc/resolv.conf: a dangling relative link, resolved in the image. */
	snprintf(image, sizeof(image), "%s/image3", scratch);
	mkdir(image, 0755);
	snprintf(path, sizeof(path), "%s/etc", image);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/etc/resolv.conf", image);
	if (symlink("../../../run/systemd/resolve/stub-resolv.conf", path) < 0)
		die("symlink");
	/* And something in the way of another target: the rest still done. */
	snprintf(path, sizeof(path), "%s/etc/hosts", image);
	mkdir(path, 0755);
	out = NULL;
	report = open_memstream(&out, &size);
	ret = prepare_image(image, report, &e);
	fclose(report);
	ok(ret < 0 && strstr(e.msg, "1 of 8 mount targets not prepared; first: `") &&
	   strstr(e.msg, "/etc/hosts` exists and is not a regular file"),
	   "a refusal is counted and named (%s)", e.msg);
	ok(strstr(out, "refused: ") != NULL, "the refusal is reported: %s", out);
	free(out);
	snprintf(path, sizeof(path), "%s/run/systemd/resolve/stub-resolv.conf", image);
	ok(owned_by_root(path, S_IFREG, 0644), "resolv.conf's link target made inside the image");
	snprintf(path, sizeof(path), "%s/etc/hostname", image);
	ok(owned_by_root(path, S_IFREG, 0644), "targets after the refused one still made");

	/* A link cycle ends with ELOOP, not a hang. */
	snprintf(image, sizeof(image), "%s/image4", scratch);
	mkdir(image, 0755);
	snprintf(path, sizeof(path), "%s/proc", image);
	if (symlink("proc", path) < 0)
		die("symlink");
	out = NULL;
	report = open_memstream(&out, &size);
	ok(prepare_image(image, report, &e) < 0 && strstr(e.msg, "more than 40 symbolic links"),
	   "a symlink loop is refused (%s)", e.msg);
	fclose(report);
	free(out);
}

/* ---- patch-config ---------------------------------------------------- */

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *text;
	size_t n;

	if (!f)
		return strdup("");
	text = calloc(1, CONFIG_MAX);
	if (!text)
		die("calloc");
	n = fread(text, 1, CONFIG_MAX - 1, f);
	text[n] = '\0';
	fclose(f);
	return text;
}

static int patch(bool rootless, struct error *e)
{
	char *out = NULL;
	size_t size = 0;
	FILE *report = open_memstream(&out, &size);
	int ret = patch_config(bundle, "/usr/libexec/shiftbind/shiftbind-hook",
			       rootless, report, e);

	fclose(report);
	free(out);
	return ret;
}

static size_t count(const char *haystack, const char *needle)
{
	size_t n = 0;

	while ((haystack = strstr(haystack, needle))) {
		n++;
		haystack++;
	}
	return n;
}

static void test_patch_config(void)
{
	static const char original[] =
		"{\"ociVersion\":\"1.0.0\",\"process\":{\"args\":[\"sh\"],\"oomScoreAdj\":1.50},"
		"\"root\":{\"path\":\"rootfs\"},\"hooks\":{\"prestart\":[{\"path\":\"/bin/other\"}],"
		"\"poststop\":[{\"path\":\"/bin/x\",\"timeout\":5}]}}";
	struct error e = { 0, "" };
	char config[PATH_MAX];
	char *first, *second;

	bundle_path(config, sizeof(config), "config.json");
	good_config(original);
	ok(patch(false, &e) == 0, "patch-config (rootful) (%s)", e.msg);
	first = slurp(config);
	ok(count(first, "shiftbind-hook") == 2 && strstr(first, "\"createRuntime\"") &&
	   strstr(first, "\"timeout\": 10") && !strstr(first, "createContainer") &&
	   strstr(first, "\"prestart\": [") && strstr(first, "\"createRuntime\"") > strstr(first, "/bin/other"),
	   "hook added at createRuntime with args and timeout, prestart's hooks kept: %s", first);
	ok(strstr(first, "\"/bin/other\"") &&
	   strstr(first, "/bin/other") < strstr(first, "shiftbind-hook"),
	   "existing hooks kept, ours last");
	ok(strstr(first, "1.50") && strstr(first, "\"poststop\""), "other members kept as written");
	ok(patch(false, &e) == 0, "second patch-config succeeds");
	second = slurp(config);
	ok(!strcmp(first, second), "patch-config is idempotent");
	free(second);
	ok(patch(true, &e) == 0, "patch-config --rootless");
	free(first);
	first = slurp(config);
	ok(count(first, "shiftbind-hook") == 2 && strstr(first, "\"createContainer\"") &&
	   strstr(first, "/bin/other"), "moved to createContainer, other hooks kept");

	good_config("{\"root\":{\"path\":\"rootfs\"}}");
	ok(patch(true, &e) == 0, "patch-config adds a hooks object");
	free(first);
	first = slurp(config);
	ok(strstr(first, "\"hooks\"") && strstr(first, "\"createContainer\""), "hooks added");
	free(first);

	/* "createRuntime": null is an empty list: one such key, with our hook. */
	good_config("{\"root\":{\"path\":\"rootfs\"},\"hooks\":{\"createRuntime\":null,\"prestart\":null,\"createContainer\":null}}");
	ok(patch(false, &e) == 0, "patch-config of null stages (%s)", e.msg);
	first = slurp(config);
	ok(count(first, "\"createRuntime\": [") == 1 && count(first, "shiftbind-hook") == 2,
	   "a null createRuntime becomes one list with our hook: %s", first);
	free(first);

	/* Registered at another path: --hook PATH replaces it. */
	good_config("{\"root\":{\"path\":\"rootfs\"},\"hooks\":{\"prestart\":"
		    "[{\"path\":\"/opt/old/shiftbind-hook\"}]}}");
	ok(patch(false, &e) == 0, "patch-config over an older path (%s)", e.msg);
	first = slurp(config);
	ok(!strstr(first, "/opt/old/") && strstr(first, "/usr/libexec/shiftbind/shiftbind-hook") &&
	   count(first, "shiftbind-hook") == 2, "the hook's path is updated: %s", first);
	free(first);

	/* A user's 6777 config.json stays the user's, without privilege bits. */
	good_config(original);
	ok(chown(config, 4321, 4321) == 0 && chmod(config, 06777) == 0, "config.json 6777 of uid 4321");
	ok(patch(false, &e) == 0, "patch-config of a user's file (%s)", e.msg);
	{
		struct stat st = { 0 };
		int err = stat(config, &st);

		ok(err == 0 && st.st_uid == 4321 && st.st_gid == 4321 &&
		   (st.st_mode & 07777) == 0777,
		   "owner kept, setuid/setgid/sticky dropped (%u:%u %o)", st.st_uid,
		   st.st_gid, st.st_mode & 07777);
	}

	good_config("{\"root\":{\"path\":\"rootfs\"},\"hooks\":[]}");
	ok(patch(false, &e) < 0 && strstr(e.msg, "config.json.hooks: expected an object"),
	   "hooks of the wrong type refused (%s)", e.msg);

	/* Written back whole: a duplicate anywhere, read by the hook or not. */
	{
		static const struct {
			const char *config, *key;
		} dups[] = {
			{ "{\"root\":{\"path\":\"rootfs\"},\"process\":{\"cwd\":\"/\",\"cwd\":\"/x\"}}",
			  "\"cwd\"" },
			{ "{\"root\":{\"path\":\"rootfs\"},\"mounts\":[{\"destination\":\"/proc\","
			  "\"destination\":\"/p\"}]}", "\"destination\"" },
			{ "{\"root\":{\"path\":\"rootfs\"},\"hooks\":{},\"hooks\":{\"prestart\":[]}}",
			  "\"hooks\"" },
		};
		size_t i;

		for (i = 0; i < ARRAY_SIZE(dups); i++) {
			good_config(dups[i].config);
			first = slurp(config);
			ok(patch(false, &e) < 0 && strstr(e.msg, "config.json: duplicate key") &&
			   strstr(e.msg, dups[i].key),
			   "patch-config refuses a duplicate key %s (%s)", dups[i].key, e.msg);
			second = slurp(config);
			ok(!strcmp(first, second), "config.json left as it was");
			free(first);
			free(second);
		}
	}

	{
		struct parse_case c = { "", "", CONFIG_SYMLINK, original, NULL };

		setup_bundle(&c);
		ok(patch(false, &e) < 0 && strstr(e.msg, "is a symbolic link, refused"),
		   "symlinked config.json refused");
	}
}

/* ---- the error contract ---------------------------------------------- */

/* One rule for "at or below" and "strictly below", components whole. */
static void test_path_within(void)
{
	ok(path_within("/srv/images", "/srv", false) && path_within("/srv", "/srv", false) &&
	   path_within("/srv", "/srv/", false) && path_within("/x", "/", false) &&
	   path_within("/", "/", false), "at or below");
	ok(!path_within("/srvx", "/srv", false) && !path_within("/sr", "/srv", false) &&
	   !path_within("/srv", "/sr", false), "whole components only");
	ok(path_within("/dev/pts", "/dev", true) && path_within("/x", "/", true) &&
	   !path_within("/dev", "/dev", true) && !path_within("/", "/", true) &&
	   !path_within("/devpts", "/dev", true), "strictly below");
}

/* closep() marks the fd closed, so a later cleanup cannot close it twice. */
static void test_closep(void)
{
	int fd = open("/dev/null", O_RDONLY | O_CLOEXEC), other;

	closep(&fd);
	ok(fd == -1, "closep resets the fd (%d)", fd);
	other = open("/dev/null", O_RDONLY | O_CLOEXEC);
	closep(&fd);	/* what a _cleanup_close_ would run next */
	ok(fcntl(other, F_GETFD) >= 0, "a second closep leaves the next file open");
	close(other);
}

static bool ends_with(const char *s, const char *end)
{
	size_t n = strlen(s), m = strlen(end);

	return n >= m && !strcmp(s + n - m, end);
}

/*
 * A context too long for the message (a long path) is cut, and the
 * innermost reason, which ends the message, is kept whole.
 */
static void test_error_context_long(void)
{
	struct error e = { 0, "" };
	char path[3000], reason[1990];

	memset(path, 'p', sizeof(path) - 1);
	path[0] = '/';
	path[sizeof(path) - 1] = '\0';
	error_errno(&e, EACCES, "open `%s`", "/srv/a");
	ok(error_context(&e, "preparing store %s", path) == -EACCES &&
	   strlen(e.msg) == ERROR_MSG_MAX - 1 &&
	   !strncmp(e.msg, "preparing store /ppp", 20) &&
	   ends_with(e.msg, "...: open `/srv/a`: Permission denied"),
	   "error_context: a long path cut, the reason kept");
	error_errno(&e, EACCES, "open `%s`", path);
	ok(error_context(&e, "step %d", 3) == -EACCES &&
	   strlen(e.msg) == ERROR_MSG_MAX - 1 &&
	   !strncmp(e.msg, "step 3: open `/ppp", 18) &&
	   ends_with(e.msg, "...: Permission denied"),
	   "error_errno keeps its reason past a long path, error_context its start and end");
	/* A message that leaves the context no room is cut in its middle. */
	memset(reason, 'r', sizeof(reason) - 1);
	reason[sizeof(reason) - 1] = '\0';
	error_msg(&e, EINVAL, "%s: the reason", reason);
	ok(error_context(&e, "refusing `%s`", path) == -EINVAL &&
	   strlen(e.msg) == ERROR_MSG_MAX - 1 &&
	   !strncmp(e.msg, "refusing `/ppp", 14) && strstr(e.msg, "ppp...: rrr") &&
	   strstr(e.msg, "rrr...rrr") &&
	   ends_with(e.msg, "rrr: the reason"),
	   "error_context: both cut, the context's start and the reason kept");
}

static void test_error(void)
{
	struct error e = { 0, "" };
	char big[3000];

	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	ok(error_errno(&e, ENOENT, "open `%s`", "/a") == -ENOENT &&
	   !strcmp(e.msg, "open `/a`: No such file or directory"), "error_errno");
	ok(error_context(&e, "step %d", 2) == -ENOENT &&
	   !strcmp(e.msg, "step 2: open `/a`: No such file or directory"), "error_context");
	error_msg(&e, EINVAL, "%s", big);
	ok(strlen(e.msg) == ERROR_MSG_MAX - 1 &&
	   !strcmp(e.msg + ERROR_MSG_MAX - 4, "..."), "a cut message ends with ...");
	test_error_context_long();
}

static void make_scratch(void)
{
	const char *tmp = getenv("TMPDIR");

	snprintf(scratch, sizeof(scratch), "%s/hook-unit.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(scratch))
		die("mkdtemp");
	snprintf(bundle, sizeof(bundle), "%s/bundle", scratch);
	if (mkdir(bundle, 0755) < 0)
		die("mkdir bundle");
}

/* --- the parser child's reply, as the privileged hook decodes it --- */

static struct idmap_extent sample_extent = { 0, 100000, 65536 };

static struct hook_input sample_input(void)
{
	static char *extra[] = { "/data", NULL };
	struct hook_input in = {
		.id = "c1", .pid = 42, .bundle = "/b", .root_path = "/b/rootfs",
		.root_readonly = true, .has_userns = true, .maps_given = true,
		.uid_map = { &sample_extent, 1 }, .gid_map = { &sample_extent, 1 },
		.have_annotations = true,
		.opts = { .opt_out = false, .extra_mounts = extra, .extra_count = 1 },
	};

	return in;
}

/* Decoded from w; the message on failure. */
static int decode(const struct wire_writer *w, size_t len, struct error *e)
{
	struct hook_input out = { 0 };
	int ret = hook_input_decode(w->data, len, &out, e);

	hook_input_free(&out);
	return ret;
}

static int decode_of(const struct hook_input *in, struct error *e)
{
	struct wire_writer w = { 0 };
	int ret;

	hook_input_encode(in, &w);
	ret = decode(&w, w.len, e);
	wire_writer_free(&w);
	return ret;
}

static void test_input_decode(void)
{
	struct hook_input in = sample_input(), out = { 0 };
	struct idmap_extent many[IDMAP_MAX_EXTENTS + 1];
	struct wire_writer w = { 0 };
	struct error e = { 0, "" };
	size_t cut, refused = 0;
	char *bad[] = { "/a/../b", NULL };

	hook_input_encode(&in, &w);
	ok(hook_input_decode(w.data, w.len, &out, &e) == 0 && !strcmp(out.id, "c1") &&
	   out.pid == 42 && !strcmp(out.root_path, "/b/rootfs") && out.root_readonly &&
	   out.uid_map.count == 1 && out.uid_map.extent[0].host == 100000 &&
	   out.opts.extra_count == 1 && !strcmp(out.opts.extra_mounts[0], "/data") &&
	   !out.userns_path, "parsed input: decoded as encoded (%s)", e.msg);
	hook_input_free(&out);
	for (cut = 0; cut < w.len; cut++)
		refused += decode(&w, cut, &e) == -EPROTO;
	ok(refused == w.len, "parsed input: each of %zu truncations refused", w.len);
	wire_put_u32(&w, 0);
	ok(decode(&w, w.len, &e) == -EPROTO && strstr(e.msg, "4 unexpected bytes"),
	   "parsed input: trailing bytes refused (%s)", e.msg);
	w.data[4] = '\0';	/* the first byte of the id */
	ok(decode(&w, w.len, &e) == -EPROTO && strstr(e.msg, "holds a NUL byte"),
	   "parsed input: a NUL in a string refused (%s)", e.msg);
	wire_writer_free(&w);

	in.root_path = "rootfs";
	ok(decode_of(&in, &e) == -EPROTO && strstr(e.msg, "root.path from the parser child is not absolute"),
	   "parsed input: a relative rootfs refused (%s)", e.msg);
	in = sample_input();
	in.opts.extra_mounts = bad;
	ok(decode_of(&in, &e) == -EINVAL && strstr(e.msg, "must be a plain absolute path"),
	   "parsed input: an extra mount with .. refused (%s)", e.msg);
	in = sample_input();
	for (cut = 0; cut < ARRAY_SIZE(many); cut++)
		many[cut] = (struct idmap_extent){ (uint32_t)cut, (uint32_t)cut, 1 };
	in.uid_map = (struct idmap){ many, ARRAY_SIZE(many) };
	ok(decode_of(&in, &e) == -EPROTO && strstr(e.msg, "value 341 from the parser child is above 340"),
	   "parsed input: 341 extents refused (%s)", e.msg);
	in = sample_input();
	in.pid = -1;
	ok(decode_of(&in, &e) == -EPROTO && strstr(e.msg, "above 2147483647"),
	   "parsed input: a pid above INT_MAX refused (%s)", e.msg);
}

int main(int argc, char **argv)
{
	struct error e = { 0, "" };
	size_t i;

	/* The parser child is this program re-executed, as it is the hook. */
	privsep_parser_dispatch(argc, argv);
	if (privsep_open_self(&self_exe, &e) < 0) {
		fprintf(stderr, "%s\n", e.msg);
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	make_scratch();
	/* hook_unit.sh checks that every case of the corpus passed. */
	diag("corpus: %zu bad inputs", ARRAY_SIZE(bad_inputs));
	for (i = 0; i < ARRAY_SIZE(bad_inputs); i++)
		run_bad_input(&bad_inputs[i]);
	test_state_over_cap();
	test_raw_nul();
	test_strict_utf8();
	test_crun_state();
	test_spec_fields();
	test_bundle_path_fallback();
	test_annotations();
	test_duplicates_not_read();
	test_json_duplicates();
	test_proc_maps();
	test_mountinfo();
	test_status();
	test_status_hostile_names();
	test_allowconf();
	test_owners();
	test_log_stamp();
	test_names();
	test_prepare_image();
	test_patch_config();
	test_error();
	test_closep();
	test_path_within();
	test_input_decode();
	remove_tree(scratch);
	return tap_done();
}
