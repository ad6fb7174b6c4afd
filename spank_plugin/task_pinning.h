/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Each task of a step slurm-pin placed, just before exec (task_init): see
 * task_pinning.c.
 */
#ifndef SLURM_PIN_TASK_PINNING_H
#define SLURM_PIN_TASK_PINNING_H

#include <slurm/spank.h>

#include "pin_step.h"

/* Binding variables the task inherited that describe no binding of it
 * (from a batch script, a launcher, the user): removed. */
void task_drop_inherited_binding(spank_t sp);
/* Root, the node's first task: the step's placement kept in the node's
 * placement cache for its next steps with the same inputs. */
void task_keep_placement(struct pin_step *s);
/* The task bound as the plan says, or a launcher's daemon prepared; a
 * failure is left in s->failure. */
void task_pin(struct pin_step *s, spank_t sp);

#endif
