/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The plugin's step record: one step on this node (slurmstepd), or one
 * srun, sbatch or salloc, handed to every function that uses it, as Slurm's
 * task plugins are handed theirs, and what slurmstepd's files share to
 * place the step once per node (declared below, by file).
 */
#ifndef SLURM_PIN_PIN_STEP_H
#define SLURM_PIN_PIN_STEP_H

#include <limits.h>
#include <slurm/spank.h>
#include <stdint.h>
#include <time.h>

#include "pin_config.h"
#include "placing_helper.h"
#include "slurm_pin_frontend.h"
#include "step_plan.h"

#define ERR_LEN 1024
#define LIST_LEN 65536

/* srun: the components of a heterogeneous step whose options are parsed;
 * Slurm allows at most 128 (MAX_HET_JOB_COMPONENTS). */
#define MAX_COMPONENTS 128

/* What slurm-pin does for the step on this node. */
enum step_state {
  STEP_LEFT_ALONE = 0, /* nothing: no strategy, not an application step, a shared node (exclusive_only) */
  STEP_PINNED,         /* placed, or its launcher's ranks prepared: task_init binds */
  STEP_FAILING,        /* `failure` ends every task, in task_init (never a failing hook) */
  STEP_UNCONFIGURED,   /* plugstack.conf is wrong (logged): stay out of the way */
};

struct pin_step;

/* What the placing helper is given: the step as slurmstepd knew it when it
 * started the helper. */
struct helper_job {
  struct pin_step *s;
  spank_t sp;
  const char *strategy;
  int batch;
  struct timespec started; /* in the helper */
  /* The most the helper may allocate (bytes), and the step's own memory
   * on this node when that is what caps it (MiB; 0: max_memory= does). */
  unsigned long long memory, step_mib;
};

/* One step on this node (slurmstepd), or one srun, sbatch or salloc: all
 * the plugin knows of it, handed to every function that uses it, as
 * Slurm's task plugins are handed their step record. SPANK's hooks and
 * option callbacks take no context: each starts from the one instance,
 * `this_step`, and hands it on. */
struct pin_step {
  enum step_state state;
  struct pin_config config;   /* plugstack.conf */
  struct pin_request request; /* the --pin-* options */
  struct pin_policy policy;   /* the site policy's decision for this job, if any */
  char policy_text[PIN_POLICY_TEXT_MAX]; /* that decision as recorded (read_policy) */
  sp_placement_t *placement;  /* computed by the placing helper (never in slurmstepd) */
  struct step_plan plan;      /* what the helper found for the tasks (step_plan.h) */
  /* The placing helper (placing_helper.h): started once the step is known
   * (init_post_opt, else user_init), finished in user_init. */
  enum { PLACING_NOT_YET = 0, PLACING_STARTED, PLACING_DONE } placing;
  struct placing_helper helper;
  struct helper_job job;
  double helper_ms;           /* its own time placing the step */
  long helper_peak_kib;       /* its peak resident memory */
  char failure[ERR_LEN];      /* found by user_init, reported by task_init */
  char note_text[ERR_LEN];    /* the plugin's own note for verbose users (a rule's profile that did not fit) */
  char env_note[ERR_LEN];     /* what the policy's env set in the step (apply_policy_env) */
  /* How threads are bound on this node (set in the placing helper): the
   * request's mode, or env where auto cannot preload the thread library (a
   * static program, no library). */
  char threads_mode[16];
  /* This step is an MPI launcher's daemon, or a batch script
   * (launcher_step.h): left as Slurm placed it, its ranks place themselves. */
  struct {
    int on;
    char name[64];              /* the daemon's program, or "batch script" */
    char command[PATH_MAX];     /* slurm-pin, which starts each rank */
    char options[PATH_MAX * 4]; /* SLURM_PIN_RANK_OPTIONS */
    char node_cpus[LIST_LEN];   /* the CPUs the node's ranks share */
  } launcher;
  /* srun, sbatch, salloc: a --pin-* option (or its environment twin) was
   * given, so the engine is loaded and every value checked (once: checked);
   * jobs without one leave the engine unloaded (engine_link.h). */
  int options_given, site_checked;
  struct pin_request components[MAX_COMPONENTS]; /* srun A : B, each component's options */
  int component_count;
  char component_variable[64]; /* slurmstepd: the variable this component's options came from */
  char yielded_cpu_bind[256]; /* srun: the user's --cpu-bind a site default yielded to (policy) */
  char cmdline[65536];        /* srun's, sbatch's own command line (own_cmdline) */
  char *cpu_bind_list;        /* SLURM_CPU_BIND_LIST of the step on this node, made once for every task */
  char placements_dir[PATH_MAX + 16]; /* the node's placement cache (placement_cache.h) */
  char topology_cache[PATH_MAX + 16]; /* where slurmd saved the node's topology (cache_path) */
  char cpus[LIST_LEN];        /* the step's CPUs on this node */
  char step_pus[LIST_LEN];    /* the step's cores as PUs (step_cpus) */
  char node_pus[LIST_LEN];    /* every PU of the node (step_cpus, for whole_node and exclusive_only) */
};

/* ---- pin_step.c: the step record's own --------------------------------- */

/* An application step (not the batch shell, the extern or an interactive
 * step), and the batch step. */
int is_application_step(spank_t sp);
int is_batch_step(spank_t sp);
/* The step fails with `message` (cut, never overflowed; the first failure
 * wins), which task_init reports: -1, for the caller to return. */
int step_fail(struct pin_step *s, const char *message);
/* user_init's outcome in the step's state (task_init acts on it): failing,
 * or placed with `rc` (0 placed, -1 failing, -2 left alone). 0, always. */
int step_fails(struct pin_step *s);
int step_placed(struct pin_step *s, int rc);
/* Where slurmd saved this node's topology, or NULL (topology= or none). */
const char *cache_path(struct pin_step *s);
/* The components of a heterogeneous step (0: not one). */
int het_size(spank_t sp);

/* ---- step_placing.c: the step placed with the engine ------------------ */

/* This component's own options in the request (srun A : B): 0, or -1 failing. */
int use_component_options(struct pin_step *s, spank_t sp);
/* plugstack.conf's rules checked again where the user cannot reach them,
 * whatever the source of a value: 0, or -1 failing. */
int site_allows(struct pin_step *s, const char *strategy);
/* In the placing helper: the step placed, or its launcher's ranks
 * prepared: 0, -1 failing, -2 left alone (exclusive_only, a shared node). */
int place_step(struct pin_step *s, spank_t sp, const char *strategy, int batch);

/* ---- step_threads.c: the thread library the binding needs -------------- */

/* The library configured (threads_lib=) or beside the plugin, readable by
 * the user: 0, or -1 with `m`. */
int locate_threads_lib(struct pin_step *s, char *m, size_t len);
/* The library when the thread binding needs it (auto without it: env). */
int find_threads_lib(struct pin_step *s);
/* preload and ompt: the program takes the library (auto: else env). */
int check_program(struct pin_step *s, spank_t sp);

/* ---- policy_step.c: the site policy's decision -------------------------- */

/* The decision for the job, read once per step on the node, and its env
 * set in the step's environment (init_post_opt, as root). */
int read_policy(struct pin_step *s, spank_t sp);
void apply_policy_env(struct pin_step *s, spank_t sp);
/* Where the profile in force comes from: 1 a default rule (the user chose
 * none), 2 an enforced rule, 0 otherwise. */
int policy_profile_source(struct pin_step *s);
/* The strategy placed instead when a default rule's profile does not fit. */
const char *policy_without_profile(const char *strategy);
/* The store of the profile in force: the user's own for the autopilot's
 * store=user candidate (found as the user, into buf), else the site's.
 * NULL when the user's cannot be found. */
const char *policy_profile_store(struct pin_step *s, char *buf, size_t len);
/* An explore candidate whose profile cannot place the step: the step
 * fails with one line (it must not run as another candidate than the one
 * recorded for it). -1, for the caller to return. */
int policy_candidate_fails(struct pin_step *s, const char *why);

/* ---- traffic_recording.c: a recording job's ranks (explore.record) ------ */

/* 1 when the policy's decision in force for this step records its traffic. */
int recording_wanted(const struct pin_step *s);
/* In the task, as the user, before exec: an MPI program gets the recorder
 * for its MPI preloaded and the directory for its rows; anything else is
 * left as it is, with a verbose note. Never fails the task. */
void task_record_traffic(struct pin_step *s, spank_t sp);

/* ---- step_helper.c: the placing helper's protocol ----------------------- */

/* Starting the placing helper in init_post_opt when the step allows it,
 * else in user_init (start_placing: 1 started, 0 nothing to place, -1 the
 * step fails); finishing it in user_init. */
void start_early(struct pin_step *s, spank_t sp);
int start_placing(struct pin_step *s, spank_t sp, const struct helper_identity *who);
int finish_placing(struct pin_step *s);
/* Milliseconds since `t0` (CLOCK_MONOTONIC). */
double ms_since(const struct timespec *t0);

#endif
