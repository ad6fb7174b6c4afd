/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The --pin-* options (srun, sbatch, salloc; slurmstepd receives their
 * values): registered with SPANK for one step record, which their
 * callbacks fill.
 */
#ifndef SLURM_PIN_SRUN_OPTIONS_H
#define SLURM_PIN_SRUN_OPTIONS_H

#include <slurm/spank.h>

#include "pin_step.h"

/* Registers every option for `s`: 0, or -1 (logged). */
int srun_options_register(spank_t sp, struct pin_step *s);
/* sbatch reads its script before it hands options to plugins: its
 * --pin-strategy=help is answered when the plugin starts (the command ends). */
void srun_options_early_help(struct pin_step *s);

#endif
