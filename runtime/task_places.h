/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Where a task's threads go, as its binder said (common/task_env.h): the
 * task file named by SLURM_PIN_TASK_FILE when there is one (places and
 * per-region places), else SLURM_PIN_CPUS. Sized to what it holds: no
 * fixed number of places or regions.
 */
#ifndef SLURM_PIN_TASK_PLACES_H
#define SLURM_PIN_TASK_PLACES_H

#include <stddef.h>

#include "cpu_set_text.h"

struct region_places {
  char *name;
  struct cpu_place *places;
  size_t count;
};

struct task_places {
  struct cpu_place *places; /* thread i's CPUs */
  size_t count;
  struct region_places *regions;
  size_t nregions;
};

/* 0 (count may be 0: nothing to bind), or -1 with one line in err naming the
 * problem. */
int task_places_load(struct task_places *t, char *err, size_t len);

/* Frees what t holds. */
void task_places_free(struct task_places *t);

/* Parses a task file's text (for tests and the loader). */
int task_places_parse(const char *text, size_t size, struct task_places *t, char *err, size_t len);

#endif
