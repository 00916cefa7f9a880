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
 * prepare_store: what rootless podman needs of a store real root's podman
 * made, done in place and idempotent: its metadata (the store's
 * directories, image and layer lists, manifests, lock files, each
 * layer's link and lower files) readable by every user, the layers'
 * contents left as the images have them; and for every directory that
 * overlayfs marks opaque with trusted.overlay.opaque, the same value in
 * user.overlay.opaque, the form overlayfs reads when mounted in a user
 * namespace.  The store's path is resolved and checked as `allow` does.
 */
int prepare_store(const char *path, FILE *report, struct error *e);

/*
 * podman_setup: shift each store over itself in the caller's rootless
 * podman mount namespace, entering it with `podman unshare` unless
 * inside.  A store already shifted there is left alone; one not marked
 * allow-shift there is an error naming both fixes.
 */
int podman_setup(char *const *stores, int count, bool inside, FILE *report,
		 struct error *e);

#endif /* SHIFTBIND_PODMAN_H */
