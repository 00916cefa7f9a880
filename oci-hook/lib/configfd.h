/* SPDX-License-Identifier: GPL-2.0 */
/*
 * configfd.h: user-space wrappers for the configfd syscalls of the
 * shiftbind kernel series (configfd_open, configfd_action).
 *
 * The constants come from <linux/configfd.h> when the installed kernel
 * headers have it.  Distribution headers do not (the syscalls are not
 * upstream), so the same values are defined here; configfd.c checks at
 * build time that they match the kernel's.
 */
#ifndef SHIFTBIND_CONFIGFD_H
#define SHIFTBIND_CONFIGFD_H

#include <stddef.h>
#include <sys/syscall.h>

#if defined(__has_include)
# if __has_include(<linux/configfd.h>)
#  include <linux/configfd.h>
#  define CONFIGFD_HAVE_UAPI_HEADER 1
# endif
#endif

/*
 * Without __has_include the uapi header may still have been included
 * before this one: its guards (installed or kernel-tree spelling) say so.
 */
#if !defined(CONFIGFD_HAVE_UAPI_HEADER) && !defined(_LINUX_CONFIGFD_H) && \
	!defined(_UAPI_LINUX_CONFIGFD_H)
enum configfd_cmd {
	CONFIGFD_SET_FLAG		= 0,	/* key; value NULL; aux 0 */
	CONFIGFD_SET_STRING		= 1,	/* key; value string; aux 0 */
	CONFIGFD_SET_BINARY		= 2,	/* key; value blob; aux size */
	CONFIGFD_SET_PATH		= 3,	/* key; value path; aux dirfd */
	CONFIGFD_SET_PATH_EMPTY		= 4,	/* as SET_PATH, "" allowed */
	CONFIGFD_SET_FD			= 5,	/* key; value NULL; aux fd */
	CONFIGFD_CMD_CREATE		= 6,	/* key, value NULL; aux 0 */
	CONFIGFD_CMD_RECONFIGURE	= 7,	/* key, value NULL; aux 0 */
	/* 8 to 37 are reserved */
	CONFIGFD_SET_INT		= 38,	/* key; value NULL; aux int */
	CONFIGFD_GET_FD			= 39,	/* key; value int *; aux O_CLOEXEC */
};
#endif

#ifndef CONFIGFD_KEY_MAX
/* Longest key, type name or SET_STRING value, including the NUL. */
# define CONFIGFD_KEY_MAX	256
#endif
#ifndef CONFIGFD_BINARY_MAX
/* Largest SET_BINARY blob. */
# define CONFIGFD_BINARY_MAX	(1 << 20)
#endif

/*
 * The raw syscalls: return value and errno exactly as the kernel's.
 * Where this library knows no syscall number for the architecture they
 * fail with ENOSYS, like a kernel without them.
 *
 * Do not take success of sys_configfd_open() as proof of configfd: a
 * kernel without the series fails with ENOSYS, but one built with other
 * out-of-tree patches may use 500 and 501 for other calls.  Use
 * configfd_probe() first.
 */
int sys_configfd_open(const char *name, unsigned int flags, unsigned int op);
int sys_configfd_action(int fd, unsigned int cmd, const char *key,
			void *value, int aux);

enum configfd_support {
	CONFIGFD_SUPPORTED,
	CONFIGFD_MISSING,
};

/*
 * configfd_probe: CONFIGFD_SUPPORTED if this kernel has configfd (with
 * its always-present "bind" type), CONFIGFD_MISSING if it does not, or
 * a negative errno when the question could not be answered (EMFILE,
 * ENFILE, ENOMEM, or /proc/self/fd unreadable).  Leaves no fd behind
 * when it answers SUPPORTED or MISSING.
 */
int configfd_probe(void);

/*
 * configfd_read_log: drain the messages logged on a configfd ("e bind:
 * ...\n", one per read(2)) into buf, in order, NUL-terminated and cut
 * at size - 1 bytes if they do not fit (buf may be NULL when size is 0:
 * the log is still drained).  Returns the number of messages consumed,
 * or -errno; on error buf holds what was read before it.
 */
int configfd_read_log(int fd, char *buf, size_t size);

/* configfd_cmd_name: "SET_FLAG" for CONFIGFD_SET_FLAG..., else "unknown". */
const char *configfd_cmd_name(unsigned int cmd);

/*
 * Host kernel headers predate the series, so supply the numbers it
 * assigns: 500 and 501, unused in Linux 6.1, 6.12 and mainline (builds
 * of the series before it was ported to 6.12 used 451 and 452, which
 * mainline gave to cachestat and fchmodat2).  x32 uses the x86_64 table
 * with its ABI bit set; the numbers stay below 512, where x32's own
 * entries begin.  Other
 * architectures are left without a number: the wrappers then fail with
 * ENOSYS instead of guessing.  The hook's seccomp filter allows the
 * calls by these names.
 */
#ifndef __NR_configfd_open
# if defined(__x86_64__) && defined(__ILP32__)
#  define __NR_configfd_open	(__X32_SYSCALL_BIT + 500)
# elif defined(__x86_64__) || defined(__i386__)
#  define __NR_configfd_open	500
# endif
#endif

#ifndef __NR_configfd_action
# if defined(__x86_64__) && defined(__ILP32__)
#  define __NR_configfd_action	(__X32_SYSCALL_BIT + 501)
# elif defined(__x86_64__) || defined(__i386__)
#  define __NR_configfd_action	501
# endif
#endif

#endif /* SHIFTBIND_CONFIGFD_H */
