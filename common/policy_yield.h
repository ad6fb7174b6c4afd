/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What a policy rule whose profile does not fit a step says, in one wording
 * for srun steps (the plugin) and for ranks an MPI launcher starts
 * (`slurm-pin run --launched-rank`): a default rule yields, the step placed
 * with another strategy without the profile; an enforced rule cannot apply
 * and the step (or rank) does not run. Plain C, libc only.
 */
#ifndef SLURM_PIN_POLICY_YIELD_H
#define SLURM_PIN_POLICY_YIELD_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* "policy rule RULE: profile PROFILE does not fit this step (WHY): placed
 * INSTEAD without it", cut to fit `len`. */
void policy_yield_note(char *out, size_t len, const char *rule, const char *profile, const char *why,
                       const char *instead);

/* "the site policy's enforced rule RULE cannot apply to this WHAT: WHY"
 * (WHAT: step, rank), cut to fit `len`. */
void policy_enforced_error(char *out, size_t len, const char *rule, const char *what, const char *why);

#ifdef __cplusplus
}
#endif

#endif
