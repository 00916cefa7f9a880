/* SPDX-License-Identifier: GPL-2.0 */
/* kernel.h: does the running kernel have what shiftbind needs. */
#ifndef SHIFTBIND_KERNEL_H
#define SHIFTBIND_KERNEL_H

#include "error.h"

/*
 * kernel_check_configfd: 0 when probe (a configfd_probe() result) found
 * configfd, else an error that says plainly what is missing.
 */
int kernel_check_configfd(int probe, struct error *e);

#endif /* SHIFTBIND_KERNEL_H */
