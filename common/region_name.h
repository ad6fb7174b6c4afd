/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The one way slurm-pin names a parallel region from its code address, used
 * by the thread-pinning library (to find a running region in a profile) and
 * by the profiler's compiler runtime (to name the regions it records), so a
 * profile and the pinning always agree. Names follow the Valgrind tool:
 * "main._omp_fn.0" at a function's entry, "main+232" inside it, from the ELF
 * symbol table, which also holds the static outlined OpenMP functions that
 * dladdr cannot see.
 *
 * Plain C with no dependency beyond libc and libdl: it is linked into
 * libraries loaded by applications, which must not pull hwloc or C++ in.
 */
#ifndef SLURM_PIN_REGION_NAME_H
#define SLURM_PIN_REGION_NAME_H

#include <stddef.h>

/* Writes the name of `code` into buf: its symbol (+ offset); without one,
 * "libname.so.N+0xOFFSET" in a shared library, else "0x...". */
void sp_region_name(const void *code, char *buf, size_t len);

/* Writes "libname.so.N+0xOFFSET" of `code` into buf without reading any
 * file: 0, or -1 when `code` is not in a shared library. */
int sp_library_offset(const void *code, char *buf, size_t len);

#endif
