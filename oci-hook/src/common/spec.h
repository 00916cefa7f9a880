/* SPDX-License-Identifier: GPL-2.0 */
/*
 * spec.h: what the hook needs from the OCI state (stdin) and the
 * bundle's config.json, copied into a plain struct so that the yajl
 * trees are freed before the hook acts.
 */
#ifndef SHIFTBIND_SPEC_H
#define SHIFTBIND_SPEC_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "annotations.h"
#include "error.h"
#include "idmap.h"

/* Caps on what is read: crun's state is a few hundred bytes. */
#define STATE_MAX	(64 * 1024)
#define CONFIG_MAX	(4 * 1024 * 1024)

/* Container ids are short names; this one only bounds our messages. */
#define CONTAINER_ID_MAX 1024

struct hook_input {
	/* The state. */
	char *id;
	pid_t pid;		/* 0 when the runtime passes none (crun at createContainer) */
	char *bundle;		/* absolute */

	/* config.json. */
	char *root_path;	/* root.path, resolved against the bundle */
	bool root_readonly;
	bool has_userns;	/* linux.namespaces has a "user" entry */
	char *userns_path;	/* its path: joining an existing namespace */
	/*
	 * linux.uidMappings and gidMappings, parsed only when the hook has
	 * work to do; a joined namespace may leave them out (maps_given
	 * false), and its maps are then what /proc says.
	 */
	bool maps_given;
	struct idmap uid_map;
	struct idmap gid_map;

	/* The annotations: the state's, or config.json's without them. */
	bool have_annotations;
	struct hook_options opts;
};

void hook_input_free(struct hook_input *in);

/*
 * Duplicate keys (state_parse, config_parse): refused only where they
 * could make the hook read something else than the runtime does, that is
 * a key the hook reads, in an object it reads (json.h): ociVersion, id,
 * pid, bundle (bundlePath without it) and annotations of the state;
 * annotations (when the state has none), root, linux, root.path,
 * root.readonly, linux.namespaces, the type of each namespace and the
 * path of the "user" one, linux.uidMappings and gidMappings and the
 * members of their extents in config.json; and any key of the
 * annotations object the hook reads, which it reads whole.  A duplicate
 * anywhere else (process, mounts, hooks, ...) is the runtime's business:
 * refusing it would refuse, with a hooks.d registration that applies
 * always, containers the hook has nothing to do with.  An object the
 * hook does not get to (config.json's annotations when the state has
 * some, the mappings without a user namespace or with an opt-out) is
 * not checked either.
 */

/*
 * state_parse: the OCI state (text[len] == '\0').  Requires ociVersion
 * 1.x, id, pid (an integer in [0, INT_MAX]) and bundle (older runtimes:
 * bundlePath), absolute.
 */
int state_parse(const char *text, size_t len, struct hook_input *in,
		struct error *e);

/*
 * config_parse: config.json of in->bundle (which state_parse set).
 * Requires root.path; with a user namespace, uid and gid mappings of the
 * right types and ranges (see hook_input_validate for the rest).
 */
int config_parse(const char *text, size_t len, struct hook_input *in,
		 struct error *e);

/*
 * hook_input_validate: what shifting with this input needs: the uid and
 * gid mappings pass idmap_validate.  Checked only when the hook is to
 * act, so that a container that opts out is never refused.
 */
int hook_input_validate(const struct hook_input *in, struct error *e);

/*
 * rootfs_resolve: root.path against the bundle: a relative path is
 * relative to the bundle (runtime-spec config.md), into a new *out.
 */
int rootfs_resolve(const char *bundle, const char *path, char **out,
		   struct error *e);


#endif /* SHIFTBIND_SPEC_H */
