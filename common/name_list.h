/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Program names in a comma-separated list ("orted,prted,hydra_pmi_proxy",
 * plugstack.conf launchers=): the plugin asks it of a step's program, the
 * runtime of the programs an srun starts. Plain C, libc only.
 */
#ifndef SLURM_PIN_NAME_LIST_H
#define SLURM_PIN_NAME_LIST_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The file name of `path` (after its last '/') when it is one of `list`'s
 * names, else NULL. "none" names nothing. */
const char *name_in_list(const char *list, const char *path);

#ifdef __cplusplus
}
#endif

#endif
