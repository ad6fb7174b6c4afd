/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * srun's, sbatch's and salloc's own command line, read for what SPANK has
 * no item for. It is the user's own process and memory: only messages
 * depend on it, never a binding, never anything in slurmstepd.
 */
#ifndef SLURM_PIN_SRUN_CMDLINE_H
#define SLURM_PIN_SRUN_CMDLINE_H

#include <stddef.h>

#include "pin_step.h"

/* sbatch or salloc was given --pin-strategy=help before its script: 1. */
int srun_cmdline_asks_strategy_help(struct pin_step *s);
/* The user's own --cpu-bind for component `component` (srun A : B) in
 * buf[len], from the command line or SLURM_CPU_BIND; "" when none. */
void srun_cmdline_cpu_bind(struct pin_step *s, int component, char *buf, size_t len);
/* A --cpu-bind or --pin-strategy value past its modifiers (verbose, quiet). */
const char *cpu_bind_type(const char *v);

#endif
