/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The ranks of an MPI launcher, started through `slurm-pin run`.
 *
 * The SPANK plugin leaves a launcher's daemon (orted, prted,
 * hydra_pmi_proxy; or a batch script that runs mpirun itself) as Slurm
 * placed it, preloads this library into it and sets SLURM_PIN_RANK_OPTIONS,
 * SLURM_PIN_NODE_CPUS and SLURM_PIN_RANK_WRAPPER (common/task_env.h). When
 * the daemon starts a process whose environment names its local rank (the
 * launcher's own variables: OMPI_COMM_WORLD_LOCAL_RANK, MPI_LOCALRANKID,
 * PMIX_LOCAL_RANK), that process is started as
 *
 *   slurm-pin run --launched-rank --exec FILE -- ARGV...
 *
 * which places it among the node's ranks by local rank with the engine (so
 * every strategy, profile and placement file works as for an srun step),
 * binds it, sets its environment, drops these variables and this library,
 * and execs FILE with ARGV unchanged. Everything else the daemon starts,
 * and every process once those variables are gone, runs untouched.
 * The three variables as this process had them when it started (set by
 * the plugin for this node's daemon) replace what the launcher copies into
 * a rank's environment from elsewhere: hydra's mpiexec passes its own
 * environment, a batch script's on another node, to every rank.
 *
 * Before any of that, the daemons must get the node's CPUs: Slurm 23.11 and
 * later give the step of `srun ... prted` all the job's CPUs on each node
 * only when srun is told it starts an external launcher
 * (--external-launcher, or SLURM_EXTERNAL_LAUNCHER). sbatch asks Open MPI
 * to say so (PRTE_MCA_plm_slurm_args), which Open MPI 5.0's prterun does not
 * pass on: its daemons' step then holds one CPU per node, and every rank of
 * a node would run there. An srun started, from a job slurm-pin prepared,
 * with a program of the site's launchers= list gets the variable (an older
 * srun ignores it); the plugin removes it from the daemon.
 * Interposed: execve, execv, execvp, execvpe, posix_spawn, posix_spawnp
 * (what Open MPI's and hydra's daemons call; the execl family calls libc's
 * execve from inside libc and is not seen).
 */
#define _GNU_SOURCE
#include <alloca.h>
#include <dlfcn.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kv_text.h"
#include "name_list.h"
#include "runtime.h"
#include "task_env.h"

extern char **environ;

/* This process's own "NAME=VALUE" of the variables below, captured when the
 * library loads (the launcher may change its environment before exec). */
static const char *const own_names[] = {SP_ENV_RANK_OPTIONS, SP_ENV_NODE_CPUS, SP_ENV_RANK_WRAPPER};
#define N_OWN (sizeof own_names / sizeof own_names[0])
static char *own[N_OWN];

__attribute__((constructor)) static void keep_own(void) {
  for (size_t i = 0; i < N_OWN; ++i) {
    const char *v = getenv(own_names[i]);
    size_t n = strlen(own_names[i]);
    if (!v || !(own[i] = malloc(n + strlen(v) + 2))) continue;
    memcpy(own[i], own_names[i], n);
    own[i][n] = '=';
    strcpy(own[i] + n + 1, v);
  }
}

static const char *get(char *const envp[], const char *name) {
  size_t n = strlen(name);
  for (char *const *e = envp; e && *e; ++e)
    if (strncmp(*e, name, n) == 0 && (*e)[n] == '=') return *e + n + 1;
  return NULL;
}

/* The slurm-pin command to start a rank through, or NULL when `envp` is
 * not a rank's of a daemon slurm-pin prepared (or `file` is that command). */
static const char *wrapper_for(const char *file, char *const envp[]) {
  const char *wrapper = get(envp, SP_ENV_RANK_WRAPPER);
  if (!wrapper || wrapper[0] != '/' || !get(envp, SP_ENV_RANK_OPTIONS)) return NULL;
  if (!get(envp, "OMPI_COMM_WORLD_LOCAL_RANK") && !get(envp, "MPI_LOCALRANKID") && !get(envp, "PMIX_LOCAL_RANK"))
    return NULL;
  return strcmp(file, wrapper) == 0 ? NULL : wrapper;
}

/* The site's launchers= list, from the ranks' request in envp. */
struct launchers {
  char list[1024];
};

static int launchers_field(const char *key, size_t key_len, const char *value, size_t value_len, void *ctx) {
  struct launchers *l = ctx;
  if (key_len != 9 || strncmp(key, "launchers", 9) != 0) return 0;
  return kv_decode(l->list, sizeof l->list, value, value_len) == 0 ? 1 : -1;
}

/* 1 when `file` is srun starting a launcher's daemon, from a job whose
 * ranks slurm-pin places, and nobody said whether it is an external
 * launcher. No allocation. */
static int starts_daemon(const char *file, char *const argv[], char *const envp[]) {
  const char *options = get(envp, SP_ENV_RANK_OPTIONS);
  if (!options || get(envp, SP_ENV_EXTERNAL_LAUNCHER) || !name_in_list("srun", file)) return 0;
  struct launchers l = {""};
  if (kv_each(options, launchers_field, &l) != 1) return 0;
  for (size_t i = 1; argv && argv[i]; ++i)
    if (name_in_list(l.list, argv[i])) return 1;
  return 0;
}

static char external_launcher[] = SP_ENV_EXTERNAL_LAUNCHER "=" SP_EXTERNAL_LAUNCHER_MARK;

/* envp and SLURM_EXTERNAL_LAUNCHER in `out` (room for count(envp) + 2). */
static char *const *with_external_launcher(char **out, char *const envp[]) {
  size_t k = 0;
  for (char *const *e = envp; e && *e; ++e) out[k++] = *e;
  out[k++] = external_launcher;
  out[k] = NULL;
  return out;
}

/* envp with this process's own values of own_names in `out` (room for
 * count(envp) + N_OWN + 1 pointers). No allocation. */
static char *const *own_env(char **out, char *const envp[]) {
  size_t k = 0;
  for (char *const *e = envp; e && *e; ++e) {
    size_t i = 0;
    while (i < N_OWN && !(own[i] && strncmp(*e, own[i], strlen(own_names[i]) + 1) == 0)) ++i;
    if (i == N_OWN) out[k++] = *e;
  }
  for (size_t i = 0; i < N_OWN; ++i)
    if (own[i]) out[k++] = own[i];
  out[k] = NULL;
  return out;
}

/* { wrapper, "run", "--launched-rank", how, file, "--", argv... } in `out`
 * (room for count(argv) + 7 pointers). No allocation: a vfork child may
 * call this. */
static char *const *wrapped_argv(char **out, const char *wrapper, const char *how, const char *file,
                                 char *const argv[]) {
  size_t k = 0;
  out[k++] = (char *)wrapper;
  out[k++] = (char *)"run";
  out[k++] = (char *)"--launched-rank";
  out[k++] = (char *)how;
  out[k++] = (char *)file;
  out[k++] = (char *)"--";
  for (char *const *a = argv; a && *a; ++a) out[k++] = *a;
  out[k] = NULL;
  return out;
}

static size_t count(char *const argv[]) {
  size_t n = 0;
  while (argv && argv[n]) ++n;
  return n;
}

typedef int exec_fn(const char *, char *const[], char *const[]);
typedef int execp_fn(const char *, char *const[]);
typedef int spawn_fn(pid_t *, const char *, const posix_spawn_file_actions_t *, const posix_spawnattr_t *,
                     char *const[], char *const[]);

/* The next definition of `name` (libc's), looked up once. */
#define REAL(name, type)                                      \
  static type *real_##name;                                  \
  if (!real_##name) real_##name = (type *)dlsym(RTLD_NEXT, #name)

VISIBLE int execve(const char *file, char *const argv[], char *const envp[]) {
  REAL(execve, exec_fn);
  if (starts_daemon(file, argv, envp)) {
    char **e = alloca((count(envp) + 2) * sizeof *e);
    return real_execve(file, argv, with_external_launcher(e, envp));
  }
  const char *w = wrapper_for(file, envp);
  if (!w) return real_execve(file, argv, envp);
  char **a = alloca((count(argv) + 7) * sizeof *a), **e = alloca((count(envp) + N_OWN + 1) * sizeof *e);
  return real_execve(w, wrapped_argv(a, w, "--exec", file, argv), own_env(e, envp));
}

VISIBLE int execv(const char *file, char *const argv[]) { return execve(file, argv, environ); }

VISIBLE int execvpe(const char *file, char *const argv[], char *const envp[]) {
  REAL(execvpe, exec_fn);
  if (starts_daemon(file, argv, envp)) {
    char **e = alloca((count(envp) + 2) * sizeof *e);
    return real_execvpe(file, argv, with_external_launcher(e, envp));
  }
  const char *w = wrapper_for(file, envp);
  if (!w) return real_execvpe(file, argv, envp);
  char **a = alloca((count(argv) + 7) * sizeof *a), **e = alloca((count(envp) + N_OWN + 1) * sizeof *e);
  REAL(execve, exec_fn);
  return real_execve(w, wrapped_argv(a, w, strchr(file, '/') ? "--exec" : "--exec-search", file, argv),
                     own_env(e, envp));
}

VISIBLE int execvp(const char *file, char *const argv[]) {
  REAL(execvp, execp_fn);
  if (!wrapper_for(file, environ) && !starts_daemon(file, argv, environ)) return real_execvp(file, argv);
  return execvpe(file, argv, environ);
}

static int spawn(int search, pid_t *pid, const char *file, const posix_spawn_file_actions_t *actions,
                 const posix_spawnattr_t *attr, char *const argv[], char *const envp[]) {
  REAL(posix_spawn, spawn_fn);
  REAL(posix_spawnp, spawn_fn);
  if (starts_daemon(file, argv, envp)) {
    char **e = malloc((count(envp) + 2) * sizeof *e);
    int rc = (search ? real_posix_spawnp : real_posix_spawn)(pid, file, actions, attr, argv,
                                                             e ? with_external_launcher(e, envp) : envp);
    free(e);
    return rc;
  }
  const char *w = wrapper_for(file, envp);
  if (!w) return (search ? real_posix_spawnp : real_posix_spawn)(pid, file, actions, attr, argv, envp);
  char **a = malloc((count(argv) + 7) * sizeof *a), **e = malloc((count(envp) + N_OWN + 1) * sizeof *e);
  int rc = a && e ? real_posix_spawn(pid, w, actions, attr,
                                     wrapped_argv(a, w, search && !strchr(file, '/') ? "--exec-search" : "--exec",
                                                  file, argv),
                                     own_env(e, envp))
                  : (search ? real_posix_spawnp : real_posix_spawn)(pid, file, actions, attr, argv, envp);
  free(a);
  free(e);
  return rc;
}

VISIBLE int posix_spawn(pid_t *pid, const char *path, const posix_spawn_file_actions_t *actions,
                        const posix_spawnattr_t *attr, char *const argv[], char *const envp[]) {
  return spawn(0, pid, path, actions, attr, argv, envp);
}

VISIBLE int posix_spawnp(pid_t *pid, const char *file, const posix_spawn_file_actions_t *actions,
                         const posix_spawnattr_t *attr, char *const argv[], char *const envp[]) {
  return spawn(1, pid, file, actions, attr, argv, envp);
}
