/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * How a task's variable is set from the value it already has: the one rule
 * the engine (sp_get_env_value) and slurmstepd (the plugin's step plan)
 * both apply.
 */
#ifndef SLURM_PIN_ENV_ACTION_H
#define SLURM_PIN_ENV_ACTION_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

enum env_action {
  ENV_SET,         /* the value */
  ENV_KEEP,        /* the current value when there is one, else the value */
  ENV_APPEND_WORD, /* the value added to a list of words (spaces or colons), once */
  ENV_UNSET,       /* no value */
};

/* The variable's value after `action`, given its current value (NULL:
 * unset), into out: its length; -1 when out is too small; -2 when the
 * action unsets it. */
int env_action_value(enum env_action action, const char *value, const char *current, char *out, size_t len);

#ifdef __cplusplus
}
#endif

#endif
