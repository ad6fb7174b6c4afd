/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The task file (task_env.h) as an anonymous file the task inherits: no
 * name on any file system, nothing left behind when the task ends, its
 * memory the task's own (charged where the task runs), readable through
 * the descriptor by the task alone. The binder calls it in the task's own
 * process before exec, as the task's user. */
#ifndef SLURM_PIN_TASK_FILE_H
#define SLURM_PIN_TASK_FILE_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Writes `size` bytes of `data` into a new anonymous file left open across
 * exec, and its name as the process sees it ("/proc/self/fd/N") into
 * `path`: 0, or -1 with errno set (ENAMETOOLONG when `path` is too small). */
int task_file_create(const char *data, size_t size, char *path, size_t len);

#ifdef __cplusplus
}
#endif

#endif
