/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * CPU lists ("0-3,8") as the kernel's CPU sets, sized to the list: the one
 * parser of plain C code (the thread runtime, which loads no hwloc into
 * applications; the front ends' SLURM_CPU_BIND masks).
 */
#ifndef SLURM_PIN_CPU_SET_TEXT_H
#define SLURM_PIN_CPU_SET_TEXT_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <sched.h>
#include <stddef.h>

/* The highest CPU id accepted: the engine's (65535). */
#define RT_MAX_CPU 65535

struct cpu_place {
  cpu_set_t *set; /* CPU_ALLOC'd */
  size_t size;    /* its size in bytes, for the *_S macros and sched_setaffinity */
};

/* Parses `len` bytes at `text` ("0-2,8"); 0, or -1 when malformed. */
int cpu_place_parse(const char *text, size_t len, struct cpu_place *out);
void cpu_place_free(struct cpu_place *p);

#endif
