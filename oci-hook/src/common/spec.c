// SPDX-License-Identifier: GPL-2.0
/* spec.c: see spec.h. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "common.h"
#include "fileio.h"
#include "json.h"
#include "spec.h"

void hook_input_free(struct hook_input *in)
{
	free(in->id);
	free(in->bundle);
	free(in->root_path);
	free(in->userns_path);
	idmap_free(&in->uid_map);
	idmap_free(&in->gid_map);
	hook_options_free(&in->opts);
	memset(in, 0, sizeof(*in));
}

static int dup_string(const char *s, char **out, const char *what,
		      struct error *e)
{
	*out = strdup(s);
	if (!*out)
		return error_errno(e, ENOMEM, "%s", what);
	return 0;
}

/*
 * The id ends up in every log line: no control characters (log
 * injection) and a sane length.
 */
static int check_id(const char *id, struct error *e)
{
	const unsigned char *p;

	if (!*id)
		return error_msg(e, EINVAL, "state: id: empty");
	if (strlen(id) > CONTAINER_ID_MAX)
		return error_msg(e, EINVAL, "state: id: longer than %d bytes",
				 CONTAINER_ID_MAX);
	for (p = (const unsigned char *)id; *p; p++)
		if (*p < 0x20 || *p == 0x7f)
			return error_msg(e, EINVAL,
					 "state: id: contains control character 0x%02x",
					 *p);
	return 0;
}

/* The spec is at 1.x; a 2.0 state may mean something else by the same keys. */
static int check_oci_version(yajl_val state, struct error *e)
{
	const char *version;
	int ret = json_get_string(state, "state", "ociVersion", &version, e);

	if (ret < 0)
		return ret;
	if (strncmp(version, "1.", 2))
		return error_msg(e, EINVAL,
				 "state: ociVersion: \"%.32s\" is not 1.x", version);
	return 0;
}

/* "bundle" per the spec; runtimes before runtime-spec 1.0 said "bundlePath". */
static int get_bundle(yajl_val state, const char **out, struct error *e)
{
	const char *bundle = NULL;
	int ret = json_opt_string(state, "state", "bundle", &bundle, e);

	if (ret == 0 && !bundle)
		ret = json_opt_string(state, "state", "bundlePath", &bundle, e);
	if (ret < 0)
		return ret;
	if (!bundle)
		return error_msg(e, EINVAL, "state: bundle: missing (and no bundlePath)");
	if (bundle[0] != '/')
		return error_msg(e, EINVAL,
				 "state: bundle: \"%.256s\" is not an absolute path",
				 bundle);
	if (strlen(bundle) >= PATH_MAX)
		return error_msg(e, ENAMETOOLONG, "state: bundle: path too long");
	*out = bundle;
	return 0;
}

static int parse_annotations_of(yajl_val doc, const char *what,
				struct hook_input *in, struct error *e)
{
	char where[64];
	yajl_val annotations;
	int ret;

	ret = json_opt_object(doc, what, "annotations", &annotations, e);
	if (ret < 0 || !annotations)
		return ret;
	json_name_join(where, sizeof(where), what, ": annotations");
	in->have_annotations = true;
	return annotations_parse(annotations, where, &in->opts, e);
}

int state_parse(const char *text, size_t len, struct hook_input *in,
		struct error *e)
{
	_cleanup_json_ yajl_val state = NULL;
	const char *id = NULL, *bundle = NULL;
	long long pid = 0;
	int ret;

	ret = json_parse("state", text, len, JSON_DUPLICATES_WHEN_READ, &state, e);
	if (ret < 0)
		return ret;
	ret = check_oci_version(state, e);
	if (ret == 0)
		ret = json_get_string(state, "state", "id", &id, e);
	if (ret == 0)
		ret = check_id(id, e);
	if (ret == 0)
		ret = json_get_integer(state, "state", "pid", 0, INT_MAX, &pid, e);
	if (ret == 0)
		ret = get_bundle(state, &bundle, e);
	if (ret == 0)
		ret = dup_string(id, &in->id, "state", e);
	if (ret == 0)
		ret = dup_string(bundle, &in->bundle, "state", e);
	if (ret == 0)
		ret = parse_annotations_of(state, "state", in, e);
	if (ret < 0)
		return ret;
	in->pid = (pid_t)pid;
	return 0;
}

/*
 * Joined with memcpy, not asprintf(3): the parser child runs this at
 * every start, and printf's code is translated afresh each time under
 * TCG (docs/benchmarks.md).
 */
int rootfs_resolve(const char *bundle, const char *path, char **out,
		   struct error *e)
{
	size_t blen = strlen(bundle), plen = strlen(path), len = 0;
	bool relative = path[0] != '/';
	bool slash = relative && (blen == 0 || bundle[blen - 1] != '/');
	char *joined;

	*out = NULL;
	if (!*path)
		return error_msg(e, EINVAL, "config.json: root.path: empty");
	if ((relative ? blen + slash : 0) + plen >= PATH_MAX)
		return error_msg(e, ENAMETOOLONG, "config.json: root.path: too long");
	joined = malloc((relative ? blen + slash : 0) + plen + 1);
	if (!joined)
		return error_errno(e, ENOMEM, "config.json: root.path");
	if (relative) {
		memcpy(joined, bundle, blen);
		len = blen;
		if (slash)
			joined[len++] = '/';
	}
	memcpy(joined + len, path, plen + 1);
	*out = joined;
	return 0;
}

static int parse_root(yajl_val config, struct hook_input *in, struct error *e)
{
	yajl_val root;
	const char *path;
	int ret;

	ret = json_opt_object(config, "config.json", "root", &root, e);
	if (ret < 0)
		return ret;
	if (!root)
		return error_msg(e, EINVAL, "config.json: root: missing");
	ret = json_get_string(root, "config.json: root", "path", &path, e);
	if (ret == 0)
		ret = json_opt_bool(root, "config.json: root", "readonly", false,
				    &in->root_readonly, e);
	if (ret == 0)
		ret = rootfs_resolve(in->bundle, path, &in->root_path, e);
	return ret;
}

/* The "user" entry of linux.namespaces, if any; a second one is an error. */
static int find_userns(yajl_val namespaces, yajl_val *out, struct error *e)
{
	size_t i;
	int ret;

	*out = NULL;
	for (i = 0; i < namespaces->u.array.len; i++) {
		yajl_val ns = namespaces->u.array.values[i];
		char where[64];
		const char *type;

		json_name_index(where, sizeof(where), "config.json: linux.namespaces", i);
		if (!YAJL_IS_OBJECT(ns))
			return error_msg(e, EINVAL, "%s: expected an object, got %s",
					 where, json_type_name(ns));
		ret = json_get_string(ns, where, "type", &type, e);
		if (ret < 0)
			return ret;
		if (strcmp(type, "user"))
			continue;
		if (*out)
			return error_msg(e, EINVAL,
					 "%s: a second \"user\" namespace", where);
		*out = ns;
	}
	return 0;
}

static int parse_mapping(yajl_val linux_obj, const char *key,
			 struct idmap *map, struct error *e)
{
	char what[64];
	yajl_val array;
	int ret;

	json_name_join(what, sizeof(what), "config.json: linux.", key);
	ret = json_get_array(linux_obj, "config.json: linux", key, &array, e);
	if (ret == 0)
		ret = idmap_from_json(array, what, map, e);
	return ret;
}

/*
 * The mappings, when the hook is going to act.  A namespace joined by
 * path may leave both out (the runtime does not write maps then);
 * otherwise both are required.  Whether they are there is asked of the
 * getters too, which refuse a key given twice ("uidMappings": null and
 * then a list would otherwise read as absent here).
 */
static int parse_mappings(yajl_val linux_obj, struct hook_input *in,
			  struct error *e)
{
	yajl_val uids = NULL, gids = NULL;
	int ret;

	if (in->userns_path) {
		ret = json_opt_array(linux_obj, "config.json: linux",
				     "uidMappings", &uids, e);
		if (ret == 0)
			ret = json_opt_array(linux_obj, "config.json: linux",
					     "gidMappings", &gids, e);
		if (ret < 0 || (!uids && !gids))
			return ret;
	}
	in->maps_given = true;
	ret = parse_mapping(linux_obj, "uidMappings", &in->uid_map, e);
	if (ret == 0)
		ret = parse_mapping(linux_obj, "gidMappings", &in->gid_map, e);
	return ret;
}

static int parse_userns(yajl_val config, struct hook_input *in,
			struct error *e)
{
	yajl_val linux_obj, namespaces, userns;
	const char *path;
	int ret;

	ret = json_opt_object(config, "config.json", "linux", &linux_obj, e);
	if (ret < 0 || !linux_obj)
		return ret;
	ret = json_opt_array(linux_obj, "config.json: linux", "namespaces",
			     &namespaces, e);
	if (ret < 0 || !namespaces)
		return ret;
	ret = find_userns(namespaces, &userns, e);
	if (ret < 0 || !userns)
		return ret;
	in->has_userns = true;
	ret = json_opt_string(userns, "config.json: linux.namespaces[user]",
			      "path", &path, e);
	if (ret == 0 && path)
		ret = dup_string(path, &in->userns_path, "config.json", e);
	/* An opted-out container is left alone, whatever its mappings say. */
	if (ret == 0 && !in->opts.opt_out)
		ret = parse_mappings(linux_obj, in, e);
	return ret;
}

int config_parse(const char *text, size_t len, struct hook_input *in,
		 struct error *e)
{
	_cleanup_json_ yajl_val config = NULL;
	int ret;

	ret = json_parse("config.json", text, len, JSON_DUPLICATES_WHEN_READ,
			 &config, e);
	/* The annotations first: an opt-out decides what else is read. */
	if (ret == 0 && !in->have_annotations)
		ret = parse_annotations_of(config, "config.json", in, e);
	if (ret == 0)
		ret = parse_root(config, in, e);
	if (ret == 0)
		ret = parse_userns(config, in, e);
	return ret;
}

int hook_input_validate(const struct hook_input *in, struct error *e)
{
	int ret;

	if (!in->maps_given)
		return 0;
	ret = idmap_validate(&in->uid_map, "config.json: linux.uidMappings", e);
	if (ret == 0)
		ret = idmap_validate(&in->gid_map, "config.json: linux.gidMappings", e);
	return ret;
}

