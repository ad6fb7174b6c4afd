/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Names code addresses the way the profiler's Valgrind tool does
 * ("main._omp_fn.0" at a function's entry, "main+232" inside it), from the
 * ELF symbol table, which also holds the static outlined OpenMP functions
 * that dladdr cannot see. Used to match running regions with the regions of
 * a profile.
 */
#ifndef SLURM_PIN_ELF_SYMBOLS_H
#define SLURM_PIN_ELF_SYMBOLS_H

#include <stddef.h>

/* Writes the name of `code` into buf; "0x..." when no symbol covers it. */
void pin_name_code(const void *code, char *buf, size_t len);

#endif
