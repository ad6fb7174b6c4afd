/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The node's placement cache, RUN_DIR/placements: profile-guided placements
 * slurmstepd computed, kept so that the node's next step with the same
 * inputs reads its places instead of computing them again (sp_set_placement_cache;
 * the engine only reads entries, and takes one only when it holds every
 * input of the step). Written here, as root, from a task's privileged hook;
 * a directory and files only root can change (common/trusted_dir.h).
 */
#ifndef SLURM_PIN_PLACEMENT_CACHE_H
#define SLURM_PIN_PLACEMENT_CACHE_H

#include <stddef.h>

#include "slurm_pin_frontend.h"

#ifdef __cplusplus
extern "C" {
#endif

/* RUN_DIR/placements into buf; -1 when it does not fit. */
int placement_cache_dir(const char *run_dir, char *buf, size_t len);

/* Keeps the entry `name` (size bytes of data, as sp_get_cache_entry gives
 * them; nothing when name is ""), and at most `keep` entries in all: the
 * least recently written are removed. 0, or -1 with one line in err (the
 * step runs all the same: the cache only saves time). */
int placement_cache_store(const char *dir, const char *name, const char *data, size_t size, int keep, char *err,
                          size_t len);

#ifdef __cplusplus
}
#endif

#endif
