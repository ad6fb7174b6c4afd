/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Steps that start an MPI launcher's daemon (orted, prted,
 * hydra_pmi_proxy, pmi_proxy: plugstack.conf launchers=), and batch scripts
 * that may run mpirun themselves. slurm-pin leaves the daemon (or the
 * script) as Slurm placed it, and hands the ranks it starts what they need
 * to place themselves among the node's ranks by local rank
 * (common/task_env.h, "MPI ranks"): slurm-pin's thread runtime preloaded,
 * the request in force, the node's CPUs, the slurm-pin command. No Slurm
 * types here: unit-tested without a cluster.
 */
#ifndef SLURM_PIN_LAUNCHER_STEP_H
#define SLURM_PIN_LAUNCHER_STEP_H

#include <stddef.h>

#include "pin_config.h"

/* Open MPI's and PRRTE's daemons, MPICH's and Intel MPI's hydra proxies,
 * MVAPICH2's mpispawn. */
#define PIN_LAUNCHERS "orted,prted,hydra_pmi_proxy,hydra_bstrap_proxy,pmi_proxy,mpispawn"

/* 1 when argv0's file name is in `launchers` (comma-separated; "none": no
 * launcher), its name then in `name`. */
int launcher_named(const char *launchers, const char *argv0, char *name, size_t len);

/* 1 when the program the step runs, `argv0` found as execvp finds it in
 * `path_env` (the task's PATH), is root's alone (common/trusted_dir.h
 * trusted_program), as where an MPI installation puts its daemons; and so
 * is every directory of PATH searched before it, so that no user can put
 * another program there first. A name a user could make is no launcher's
 * daemon, whatever it is called: the step is an ordinary one. 0 otherwise,
 * with why in `why`. */
int launcher_program_trusted(const char *argv0, const char *path_env, char *why, size_t len);

/* What the ranks are asked (SLURM_PIN_RANK_OPTIONS): the settings in force
 * for the step and the site's, as `slurm-pin run --launched-rank` reads
 * them. -1 when out is too small. */
struct rank_request {
  const struct pin_request *settings; /* with the strategy, profile, mem, granularity in force */
  const struct pin_config *site;
  const char *topology_cache, *decision, *origin, *launcher, *node;
  /* When the profile is a policy rule's: the rule, whether it is enforced
   * (a rank it cannot apply to fails), and the strategy a rank places with,
   * without the profile, when a default rule's does not fit it; "" else. */
  const char *rule, *rule_mode, *fallback;
};
int launcher_rank_options(const struct rank_request *r, char *out, size_t len);

/* The slurm-pin command beside the plugin at `plugin` (a build tree's
 * ../bin, or where the packages put it): 0 with its path, or -1 with a
 * message naming the places looked at. */
int launcher_find_command(const char *plugin, char *path, size_t len, char *err, size_t errlen);

#endif
