/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What the parts of libslurm_pin_threads.so share: the task's places, read
 * once when the library loads, and how a thread moves to one. */
#ifndef SLURM_PIN_RUNTIME_H
#define SLURM_PIN_RUNTIME_H

#include "task_places.h"

/* What the program sees of the library: the functions it interposes. */
#define VISIBLE __attribute__((visibility("default")))

extern struct task_places rt_task;

/* Moves the calling thread to `p` (no system call when it is there). */
void rt_bind_self(const struct cpu_place *p);

/* One error line on stderr: "slurm-pin: error: WHAT". */
void rt_complain(const char *what);

#endif
