/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A recording job's ranks (the policy's explore.record, docs/autopilot.md):
 * the first jobs of an MPI application the autopilot learns run unpinned
 * with slurm-pin's traffic recorder (profiler/mpi/) preloaded into the
 * ranks srun starts, or into an mpirun's or mpiexec's daemons, whose ranks
 * inherit it. Each rank writes its row at MPI_Finalize into the user's own
 * recordings (common/user_data.h), JOBID.STEPID. `slurm-pin autopilot decide`
 * assembles them, as the user, into the user's own store, whose profile
 * then steers that user's jobs alone. All of it happens in the task, as
 * the user, before exec: nothing here reads or writes as root. Recording is
 * the site's experiment: what cannot be recorded is a verbose note, never
 * the user's job failing.
 */
#define _GNU_SOURCE
#include "pin_step.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "job_decision.h"
#include "launcher_step.h"
#include "mpi_program.h"
#include "program_path.h"
#include "stderr_line.h"
#include "user_data.h"

int recording_wanted(const struct pin_step *s) {
  const struct pin_policy *p = &s->policy;
  /* In force for this step: the user chose no strategy of their own. */
  return p->present && p->applies && p->record[0] && !s->request.strategy_set && !s->launcher.on;
}

/* Verbose users hear of recording once per node: from its first task. */
static int tells(struct pin_step *s, spank_t sp) {
  int task = -1;
  return (s->request.verbose || s->config.verbose) && spank_get_item(sp, S_TASK_ID, &task) == ESPANK_SUCCESS && task == 0;
}

/* Why nothing is recorded, to verbose users. */
static void note(struct pin_step *s, spank_t sp, const char *what) {
  if (!tells(s, sp)) return;
  const char *node = job_decision_node();
  stderr_line("slurm-pin: %s: note: the site policy's rule %s records this job's MPI traffic, but %s\n",
              node ? node : "this node", s->policy.rule, what);
}

/* The recorder for `kind` beside slurm-pin's thread library (both are
 * installed in one directory). */
static int recorder_path(struct pin_step *s, int kind, char *buf, size_t len) {
  char m[ERR_LEN];
  if (!s->config.threads_lib[0] && locate_threads_lib(s, m, sizeof m) != 0) return -1;
  const char *slash = strrchr(s->config.threads_lib, '/');
  if (!slash) return -1;
  int n = snprintf(buf, len, "%.*s/libslurm_pin_mpi_%s.so", (int)(slash - s->config.threads_lib), s->config.threads_lib,
                   mpi_kind_name(kind));
  return n > 0 && (size_t)n < len && access(buf, R_OK) == 0 ? 0 : -1;
}

/* JOBID.STEPID in the user's recordings, made as the user. */
static int rows_dir(spank_t sp, char *buf, size_t len) {
  char sub[PATH_MAX];
  uint32_t job = 0, step = 0;
  if (spank_get_item(sp, S_JOB_ID, &job) != ESPANK_SUCCESS || spank_get_item(sp, S_JOB_STEPID, &step) != ESPANK_SUCCESS)
    return -1;
  snprintf(sub, sizeof sub, "%s/%u.%u", USER_RECORDINGS_SUBDIR, job, step);
  return user_data_make(getuid(), sub, buf, len);
}

/* The MPI whose ranks a launcher's daemon starts (they inherit its
 * environment, as slurm-pin's own rank placement relies on): Open MPI's
 * orted and prted, MPICH's hydra proxies. 0 for another daemon. */
static int daemon_kind(const char *name) {
  static const char *const openmpi[] = {"orted", "prted", NULL}, *const mpich[] = {"hydra_pmi_proxy", "hydra_bstrap_proxy",
                                                                                 "pmi_proxy", NULL};
  for (const char *const *n = openmpi; *n; ++n)
    if (strcmp(name, *n) == 0) return MPI_KIND_OPENMPI;
  for (const char *const *n = mpich; *n; ++n)
    if (strcmp(name, *n) == 0) return MPI_KIND_MPICH;
  return MPI_KIND_NONE;
}

/* The MPI of the task's program: a launcher's daemon by its name (root's
 * alone where PATH finds it, as launcher_step.h trusts one), any other by
 * its ELF dynamic section. -1 when PATH finds no program. */
static int task_kind(struct pin_step *s, const char *argv0, const char *path) {
  char name[64], program[PATH_MAX], why[ERR_LEN];
  if (launcher_named(s->config.launchers, argv0, name, sizeof name) &&
      launcher_program_trusted(argv0, path ? path : "", why, sizeof why))
    return daemon_kind(name);
  return program_path_find(argv0, path, program, sizeof program) == 0 ? mpi_program_kind(program) : -1;
}

void task_record_traffic(struct pin_step *s, spank_t sp) {
  int argc = 0;
  char **argv = NULL, path[LIST_LEN], lib[PATH_MAX], dir[PATH_MAX], m[PATH_MAX + 128];
  if (spank_get_item(sp, S_JOB_ARGV, &argc, &argv) != ESPANK_SUCCESS || argc < 1 || !argv[0]) return;
  int has_path = spank_getenv(sp, "PATH", path, sizeof path) == ESPANK_SUCCESS;
  int kind = task_kind(s, argv[0], has_path ? path : NULL);
  if (kind <= 0) {
    snprintf(m, sizeof m, "%.512s is %s (start the ranks with srun, or MPICH's mpiexec, not through a script)",
             argv[0], kind < 0 ? "not a program found in PATH" : "linked with no MPI");
    return note(s, sp, m);
  }
  if (recorder_path(s, kind, lib, sizeof lib) != 0) {
    snprintf(m, sizeof m, "slurm-pin's recorder for %s is not installed on this node", mpi_kind_name(kind));
    return note(s, sp, m);
  }
  if (rows_dir(sp, dir, sizeof dir) != 0) {
    snprintf(m, sizeof m, "its rows cannot be kept in your home directory (%s)", strerror(errno));
    return note(s, sp, m);
  }
  char preload[LIST_LEN], value[LIST_LEN + PATH_MAX];
  int rc = spank_getenv(sp, "LD_PRELOAD", preload, sizeof preload);
  snprintf(value, sizeof value, "%s%s%s", lib, rc == ESPANK_SUCCESS && preload[0] ? " " : "",
           rc == ESPANK_SUCCESS ? preload : "");
  if (spank_setenv(sp, "LD_PRELOAD", value, 1) != ESPANK_SUCCESS ||
      spank_setenv(sp, "SLURM_PIN_MPI_DIR", dir, 1) != ESPANK_SUCCESS)
    return note(s, sp, "the task's environment cannot be set");
  if (tells(s, sp)) {
    const char *node = job_decision_node();
    stderr_line("slurm-pin: %s: the site policy's rule %s records this job's MPI traffic (%s) into %s\n",
                node ? node : "this node", s->policy.rule, mpi_kind_name(kind), dir);
  }
}
