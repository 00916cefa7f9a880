/* SPDX-License-Identifier: GPL-2.0 */
/*
 * prepare.h: give an image the mount targets runtimes bind into a
 * container (shiftbind prepare-image).  Until the hook has shifted the
 * rootfs, the runtime acts as a container root that sees the image's
 * real-root files as nobody's, so it cannot create them itself.
 */
#ifndef SHIFTBIND_PREPARE_H
#define SHIFTBIND_PREPARE_H

#include <stdio.h>

#include "error.h"

/*
 * prepare_image: create the missing targets under dir, owned 0:0,
 * directories 0755 and files empty 0644, reporting each on report.
 * Existing targets are left as they are.  Each path is resolved by the
 * kernel inside the image (open_resolved(), SCOPE_IN_ROOT: absolute
 * links from the image root, ".." stopping there), as the runtime will
 * resolve the target; what is missing is made with O_EXCL and
 * O_NOFOLLOW in the directory fd so resolved, and a dangling link in
 * the way (Ubuntu's etc/resolv.conf) is followed the same way, never by
 * the kernel from the host's root.  Every target is tried: one that cannot be prepared (something
 * else in the way) is reported and the others still are; the error then
 * counts the refusals and names the first.
 */
int prepare_image(const char *dir, FILE *report, struct error *e);

#endif /* SHIFTBIND_PREPARE_H */
