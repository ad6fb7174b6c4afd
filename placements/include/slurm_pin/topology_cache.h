/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The node's topology saved once (slurmd's start, a package's install)
 * for every later placement to read instead of discovering the machine:
 * placement.h's sp_set_topology_cache reads what this writes.
 */
#ifndef SLURM_PIN_TOPOLOGY_CACHE_H
#define SLURM_PIN_TOPOLOGY_CACHE_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Discovers this machine (every PU, PCI and OS devices) and writes it to
 * `path` (mode 0644, replaced atomically, its directory made if missing),
 * for sp_set_topology_cache. Returns 0, or -1 with `err` filled. Saves
 * nothing (and returns 0) when HWLOC_* variables choose the topology. */
int sp_save_topology(const char *path, char *err, size_t len);

#ifdef __cplusplus
}
#endif

#endif
