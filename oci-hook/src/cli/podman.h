/* SPDX-License-Identifier: GPL-2.0 */
/*
 * podman.h: a root-owned containers/storage store (podman's overlay
 * driver) shared read-only with rootless podman users, who see its real
 * owners through a shift of it in their rootless mount namespace.
 *
 *   real root, once per store     shiftbind allow --owner USER STORE
 *                                 shiftbind prepare-store STORE
 *   the user, once per podman     shiftbind podman-setup STORE
 *   namespace (after boot, after
 *   podman system migrate)
 *
 * The user's podman lists STORE in additionalimagestores and keeps its
 * own store (containers, upper layers) in its home as usual.
 */
#ifndef SHIFTBIND_PODMAN_H
#define SHIFTBIND_PODMAN_H

#include <stdbool.h>
#include <stdio.h>

#include "error.h"

/* The option podman-setup passes itself inside `podman unshare`. */
#define PODMAN_INSIDE_NAME	"in-podman-namespace"
#define PODMAN_INSIDE_OPTION	"--" PODMAN_INSIDE_NAME

/*
 * prepare_store: what rootless podman needs of a store real root's
 * podman made, done in place and idempotent: the metadata it reads
 * before its shift exists (the image and layer lists, manifests, configs
 * and lock files: no image file) readable by every user, the store's
 * directory searchable, and every other entry at its top
 * (defaultNetworkBackend, db.sql, libpod/...) private to its owner, so
 * that the searchable directory shows no user more; the layers
 * (overlay/) keep their modes, for podman reads them through its shift;
 * and for every directory of a layer that overlayfs marks opaque with
 * trusted.overlay.opaque, the same value in user.overlay.opaque, the
 * form overlayfs reads when mounted in a user namespace.  The store's
 * path is resolved and checked as `allow` does; every entry is reached
 * from it by open_resolved() (SCOPE_SAME_MOUNT) and changed through its
 * fd (treewalk.h): what users swap in during the walk is skipped and
 * reported, never followed.  A live graphroot is refused unless force
 * (store_check_image_only()).
 */
int prepare_store(const char *path, bool force, FILE *report, struct error *e);

/*
 * store_check_image_only: 0 unless the containers/storage root at fd
 * (canonical path canon) holds more than images: containers, volumes or
 * secrets of real root's podman.  A mark would lend all of that to the
 * delegated users' shifts; -EPERM then, saying how to share an
 * image-only store instead (or --force).
 */
int store_check_image_only(int fd, const char *canon, struct error *e);

/*
 * podman_setup: shift each store over itself in the caller's rootless
 * podman mount namespace, entering it with `podman unshare` unless
 * inside.  A store already shifted there is left alone; one not marked
 * allow-shift there is an error naming both fixes.
 */
int podman_setup(char *const *stores, int count, bool inside, FILE *report,
		 struct error *e);

#endif /* SHIFTBIND_PODMAN_H */
