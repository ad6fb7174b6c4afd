/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * slurm-pin placement engine: a C API with an opaque handle, in the style of
 * mpibind. Init, set inputs, compute, read outputs, finalize. No Slurm here:
 * the SPANK plugin, the profiler and the CLI all call this.
 *
 *   sp_placement_t *p = sp_init();
 *   sp_set_topology(p, "pack:2 l3:1 core:4 pu:1");
 *   sp_set_restrict(p, "0-5");
 *   sp_set_strategy(p, "lpgp");
 *   sp_load_profile(p, "app.profile", "simple", NULL);
 *   sp_set_threads(p, 4);
 *   if (sp_compute(p) != 0) fprintf(stderr, "%s\n", sp_error(p));
 *   sp_get_thread_cpus(p, 0, 0, buf, sizeof buf);
 *   sp_finalize(p);
 *
 * Every setter and sp_compute return 0, or -1 with a one-line message in
 * sp_error(): the problem, then the fix.
 */
#ifndef SLURM_PIN_PLACEMENT_H
#define SLURM_PIN_PLACEMENT_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sp_placement sp_placement_t;

sp_placement_t *sp_init(void);
void sp_finalize(sp_placement_t *p);
const char *sp_error(const sp_placement_t *p);

/* Inputs. */
int sp_set_topology(sp_placement_t *p, const char *source); /* "this", XML file, synthetic */
int sp_set_restrict(sp_placement_t *p, const char *cpulist); /* "0-3,8", NULL: all */
int sp_set_granularity(sp_placement_t *p, const char *g);    /* pu|core|l2|l3|numa */
int sp_set_strategy(sp_placement_t *p, const char *name);    /* none..gplp, file:PATH */
int sp_set_tasks(sp_placement_t *p, int ntasks);
int sp_set_task_layout(sp_placement_t *p, const char *layout); /* compact|scatter */
int sp_set_threads(sp_placement_t *p, int nthreads);         /* 0: from matrix or share */
int sp_set_oversubscribe(sp_placement_t *p, int allow);
int sp_set_seed(sp_placement_t *p, uint64_t seed);
int sp_set_matrix(sp_placement_t *p, const double *rows, int n); /* n x n, row-major */
int sp_load_matrix(sp_placement_t *p, const char *path);
/* Reads the profile now (with its regions, when sp_set_phases was called first). */
int sp_load_profile(sp_placement_t *p, const char *path, const char *model, const char *region);
/* A profile resolved at compute time, once the thread count is known: a file
 * path, or NAME[@VERSION] from the store directory. model: simple|rw. */
int sp_set_profile(sp_placement_t *p, const char *spec, const char *store, const char *model,
                   const char *region);

/* Also place every parallel region of the profile (per-region pinning); a
 * region that moves at most `merge` (0-1) of the threads keeps the previous
 * region's placement. */
int sp_set_phases(sp_placement_t *p, int on, double merge);

int sp_compute(sp_placement_t *p);

/* Outputs, valid after a successful sp_compute. */
int sp_get_ntasks(const sp_placement_t *p);
int sp_get_nthreads(const sp_placement_t *p);
/* CPU lists ("0-3,8") written into buf; returns the length needed, or -1. */
int sp_get_task_cpus(const sp_placement_t *p, int task, char *buf, size_t len);
int sp_get_thread_cpus(const sp_placement_t *p, int task, int thread, char *buf, size_t len);
/* First PU of a thread's binding, -1 when unbound (strategy none). */
int sp_get_thread_pu(const sp_placement_t *p, int task, int thread);
const char *sp_get_fingerprint(const sp_placement_t *p);
/* Per-region placements (sp_set_phases, or a placement file's regions). */
int sp_get_nregions(const sp_placement_t *p);
const char *sp_get_region_name(const sp_placement_t *p, int region);
int sp_get_region_thread_cpus(const sp_placement_t *p, int region, int task, int thread, char *buf, size_t len);
int sp_get_nlevels(const sp_placement_t *p);
const char *sp_get_level_name(const sp_placement_t *p, int level);
/* Share of the sharing kept inside one domain of the level, -1 without a matrix. */
double sp_get_level_score(const sp_placement_t *p, int level);
int sp_get_nnotes(const sp_placement_t *p);
const char *sp_get_note(const sp_placement_t *p, int i);

/* Checks without computing, for early errors (srun, sbatch). Each returns 0,
 * or -1 with a one-line message in err. */
int sp_check_strategy(const char *name, char *err, size_t len);
int sp_check_profile(const char *spec, const char *store, char *err, size_t len);
int sp_check_placement_file(const char *path, char *err, size_t len);

/* PUs ("0-3,8") of cores given by logical index ("0-1,4"), as Slurm numbers
 * a node's cores, in the handle's topology. Returns 0 or -1 (sp_error). */
int sp_cores_to_pus(sp_placement_t *p, const char *cores, char *buf, size_t len);
/* Every PU of the handle's topology; returns the length needed, or -1. */
int sp_topology_pus(sp_placement_t *p, char *buf, size_t len);

/* One line per strategy, for --pin-strategy=help and `slurm-pin place --strategy help`. */
const char *sp_strategies_help(void);

/* The one list of strategies (the plugin, the CLI and the Lua policy use
 * it): names 0..sp_strategy_count()-1, "file:PATH" last. */
int sp_strategy_count(void);
const char *sp_strategy_name(int i);
/* 1 when `name` (or file:PATH) needs a sharing profile, 0 when not, -1 when
 * it is no strategy. */
int sp_strategy_needs_profile(const char *name);

/* Store profile names, one rule for every front end: 1 when `spec` is NAME
 * or NAME@VERSION (not a path, well formed), else 0. The rule's parts are
 * exported for front ends that cannot call C (the Lua policy's generated
 * module): NAME's characters, its longest length, VERSION's most digits. */
int sp_is_profile_name(const char *spec);
const char *sp_profile_name_chars(void);
int sp_profile_name_max(void);
int sp_profile_version_digits(void);

#ifdef __cplusplus
}
#endif

#endif
