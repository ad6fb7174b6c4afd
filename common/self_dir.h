/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The directory of the running program, which slurm-pin's commands find
 * their helpers and libraries relative to (beside it in a build tree,
 * relative to it once installed). */
#ifndef SLURM_PIN_SELF_DIR_H
#define SLURM_PIN_SELF_DIR_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The directory of /proc/self/exe, without a trailing '/', in `buf`: 0, or
 * -1 with errno set (ENAMETOOLONG when `buf` is too small). */
int self_dir(char *buf, size_t len);

#ifdef __cplusplus
}
#endif

#endif
