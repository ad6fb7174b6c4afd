/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The environment slurm-pin gives each task so that its threads follow the
 * placement: OpenMP places for libgomp and LLVM/Intel runtimes, and
 * SLURM_PIN_* for applications and tools. Plain C, unit-tested.
 */
#ifndef SLURM_PIN_ENV_H
#define SLURM_PIN_ENV_H

#include <stddef.h>

/* Each function formats the CPU lists of n threads (cpulist syntax, "0,8"
 * or "4-7") into buf; returns 0, or -1 if buf is too small or a list is
 * malformed. */

/* OMP_PLACES: explicit absolute places in placement order, "{0,8},{4,12}". */
int pin_omp_places(const char *const *threads, int n, char *buf, size_t len);
/* GOMP_CPU_AFFINITY: one CPU per thread, "0 4". */
int pin_gomp_affinity(const char *const *threads, int n, char *buf, size_t len);
/* KMP_AFFINITY: "explicit,proclist=[{0,8},{4,12}]" (sets where a thread has several CPUs). */
int pin_kmp_affinity(const char *const *threads, int n, char *buf, size_t len);
/* SLURM_PIN_CPUS: the threads' CPU lists in thread order, space-separated. */
int pin_cpus_list(const char *const *threads, int n, char *buf, size_t len);

/* The CPUs in both lists, as a list ("" when none); -1 on bad input. */
int pin_intersect_cpulists(const char *a, const char *b, char *buf, size_t len);

/* The largest CPU id any list may hold (as the engine's kMaxCpuId). */
#define PIN_MAX_CPU_ID 65535

/* Expands "0-2,8" into cpus[] (at most max); returns the count or -1. Ids
 * are bounded by PIN_MAX_CPU_ID before anything is expanded. */
int pin_expand_cpulist(const char *list, int *cpus, int max);
/* 0 when `list` is a non-empty, strict list within PIN_MAX_CPU_ID. */
int pin_check_cpulist(const char *list);

#endif
