// SPDX-License-Identifier: GPL-2.0
/* kernel.c: see kernel.h. */
#include "configfd.h"
#include "kernel.h"

int kernel_check_configfd(int probe, struct error *e)
{
	switch (probe) {
	case CONFIGFD_SUPPORTED:
		return 0;
	case CONFIGFD_MISSING:
		return error_msg(e, ENOSYS,
				 "this kernel has no configfd (syscalls 500/501 are missing or not the shiftbind series'): boot a kernel with the current shiftbind patches");
	default:
		return error_errno(e, -probe, "probing the kernel for configfd");
	}
}
