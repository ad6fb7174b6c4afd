/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * slurm-pin's C API, all of it: placement (placement.h), binding
 * (binding.h), the thread runtime on disk (thread_library.h), store
 * profile names (profile_names.h) and the node topology cache
 * (topology_cache.h). Link with libslurmpin (pkg-config slurm-pin).
 *
 * One convention: a function returning int gives -1 on failure (the reason
 * in sp_error(p), or in err[len] for functions without a handle) and >= 0
 * on success: 0, a count, a length needed (as snprintf), or 1/0 for a
 * question (sp_is_*, sp_strategy_needs_profile). Pointers are NULL on
 * failure.
 */
#ifndef SLURM_PIN_H
#define SLURM_PIN_H

#include "slurm_pin/placement.h"
#include "slurm_pin/binding.h"
#include "slurm_pin/thread_library.h"
#include "slurm_pin/profile_names.h"
#include "slurm_pin/topology_cache.h"

#endif
