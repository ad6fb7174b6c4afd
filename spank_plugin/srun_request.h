/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * srun's, sbatch's and salloc's checks of the whole request (init_post_opt,
 * local_user_init): a mistake is one error line and the command ends.
 */
#ifndef SLURM_PIN_SRUN_REQUEST_H
#define SLURM_PIN_SRUN_REQUEST_H

#include <slurm/spank.h>

#include "pin_step.h"

/* The options given to component `component` of an srun (-1: sbatch,
 * salloc) checked together, the user's --cpu-bind respected: 0, or exits. */
int srun_request_check(struct pin_step *s, int component);
/* srun A : B: this component's options kept and passed on to the step. */
void srun_request_save_component(struct pin_step *s);
/* srun, once its job exists: a --cpu-bind the job's enforced policy rule
 * would override ends the command; else 0. */
int srun_request_check_rule(struct pin_step *s, spank_t sp);

#endif
