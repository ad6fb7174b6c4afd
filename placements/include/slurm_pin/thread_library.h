/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * slurm-pin's thread runtime (libslurm_pin_threads.so) on disk, for front
 * ends that bind threads with it (binding.h's thread modes preload and
 * ompt): where it is, and whether it can be preloaded into a program. Each
 * returns 0, or -1 with a one-line message in err.
 */
#ifndef SLURM_PIN_THREAD_LIBRARY_H
#define SLURM_PIN_THREAD_LIBRARY_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* slurm-pin's thread library for a program or plugin whose own path is
 * `from`: beside it, or where the packages install it relative to it; each
 * candidate opened once and checked on its descriptor. Writes the path into
 * buf; -1 with a message naming the places looked at. */
int sp_find_thread_library(const char *from, char *buf, size_t len, char *err, size_t errlen);
/* A readable regular file, checked the same way; -1 with a message. */
int sp_check_thread_library(const char *path, char *err, size_t len);
/* Whether the loader will preload the thread library into `program` (as
 * execvp finds it in `path_env`, read as the caller): -1 with a one-line
 * message when it is statically linked or set-user/group-ID (or a script
 * whose interpreter is), so a task never claims places the library cannot
 * give; 0 otherwise (a program exec cannot find passes: exec says so). */
int sp_check_preloadable(const char *program, const char *path_env, char *err, size_t len);

#ifdef __cplusplus
}
#endif

#endif
