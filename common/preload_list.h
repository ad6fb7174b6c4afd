/* SPDX-License-Identifier: GPL-2.0-or-later */
/* LD_PRELOAD's list (words separated by spaces or colons) without
 * slurm-pin's thread runtime: a task that inherited it from a launcher's
 * daemon or a batch script loses it unless its own binding needs it. */
#ifndef SLURM_PIN_PRELOAD_LIST_H
#define SLURM_PIN_PRELOAD_LIST_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SP_RUNTIME_LIBRARY "libslurm_pin_threads.so"

/* `list` without any word whose file name is SP_RUNTIME_LIBRARY, into out
 * (space-separated). Returns 1 when something was removed, 0 when not,
 * -1 when out is too small. */
int preload_without_runtime(const char *list, char *out, size_t len);

/* 1 when `word` is in `list` whole: where it occurs, a space, a colon or
 * the list's end bounds it on both sides; 0 otherwise (an empty word is
 * never in a list). Linear in the list for each occurrence of the word. */
int preload_has_word(const char *list, const char *word);

#ifdef __cplusplus
}
#endif

#endif
