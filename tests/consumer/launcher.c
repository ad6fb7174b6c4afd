/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A launcher on slurm-pin's public API (docs/api.md):
 *   launcher [-b BINDING] [-m TRAFFIC] [-T TOPOLOGY -n] [-v] NTASKS STRATEGY PROGRAM [ARGS]
 * starts NTASKS tasks of PROGRAM on the CPUs it may use, each placed, bound
 * and given its environment before exec. -b binds threads as srun's
 * --pin-thread-binding (preload and ompt through slurm-pin's thread
 * library: pthreads too); -m places the tasks (MPI ranks) by the traffic
 * between them (a matrix file); -v says where each task runs; -n only says
 * it (of another machine, -T). */
#define _GNU_SOURCE
#include <sched.h>
#include <slurm_pin/slurm_pin.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

static void fail(int t, const char *what) { fprintf(stderr, "launcher: task %d: %s\n", t, what), _exit(1); }

/* In task t's process: its environment, what slurm-pin's thread library
 * reads (a file the program inherits), its CPUs and memory; then exec. */
static void start_task(sp_placement_t *p, int t, char **argv) {
  char name[64], value[4096], *data;
  for (int i = 0; i < sp_get_env_count(p); ++i) {
    sp_get_env_name(p, i, name, sizeof name);
    int n = sp_get_env_value(p, t, i, getenv(name), value, sizeof value);
    if (n == SP_ENV_UNSET) unsetenv(name);
    else if (n < 0 || (size_t)n >= sizeof value || setenv(name, value, 1) != 0) fail(t, "cannot set its environment");
  }
  int size = sp_get_task_data(p, t, NULL, 0), fd;
  if (size > 0) {
    if (!(data = malloc((size_t)size + 1)) || sp_get_task_data(p, t, data, (size_t)size + 1) != size ||
        (fd = memfd_create("slurm-pin-task", 0)) < 0 || write(fd, data, (size_t)size) != size)
      fail(t, "cannot keep its places for the thread library");
    snprintf(value, sizeof value, "/proc/self/fd/%d", fd);
    setenv("SLURM_PIN_TASK_FILE", value, 1);
  }
  if (sp_bind_task(p, t) != 0) fail(t, sp_error(p)); /* never half-placed */
  execvp(argv[0], argv);
  _exit(127);
}

/* The CPUs this process may use ("0,1,5"): no task is bound outside them. */
static int own_cpus(char *buf, size_t len) {
  cpu_set_t set;
  size_t at = 0;
  if (sched_getaffinity(0, sizeof set, &set) != 0) return -1;
  buf[0] = '\0';
  for (int c = 0; c < CPU_SETSIZE && at < len; ++c)
    if (CPU_ISSET(c, &set)) at += (size_t)snprintf(buf + at, len - at, at ? ",%d" : "%d", c);
  return at < len ? 0 : -1;
}

int main(int argc, char **argv) {
  const char *binding = NULL, *traffic = NULL, *topology = "this";
  int verbose = 0, dry = 0, opt;
  char cpus[16384], line[4096];
  while ((opt = getopt(argc, argv, "+b:m:T:nv")) != -1)
    if (opt == 'b') binding = optarg;
    else if (opt == 'm') traffic = optarg;
    else if (opt == 'T') topology = optarg;
    else if (opt == 'n') dry = 1;
    else if (opt == 'v') verbose = 1;
    else return 2;
  if (argc - optind < 3 || (strcmp(topology, "this") != 0 && !dry))
    return fprintf(stderr, "usage: launcher [-b BINDING] [-m TRAFFIC] [-T TOPOLOGY -n] [-v] NTASKS STRATEGY PROGRAM...\n"), 2;
  sp_placement_t *p = sp_init();
  if (!p || sp_set_topology(p, topology) || (!strcmp(topology, "this") && (own_cpus(cpus, sizeof cpus) ||
      sp_set_restrict(p, cpus))) || sp_set_tasks(p, atoi(argv[optind])) || sp_set_strategy(p, argv[optind + 1]) ||
      (binding && (sp_set_thread_mode(p, binding) || (strcmp(binding, "env") && sp_set_thread_library(p, NULL)))) ||
      (traffic && sp_load_task_matrix(p, traffic)) || sp_compute(p))
    return fprintf(stderr, "launcher: %s\n", p ? sp_error(p) : "out of memory"), 1;
  for (int t = 0; t < sp_get_ntasks(p) && (verbose || dry); ++t)
    if (sp_describe_task(p, t, line, sizeof line) >= 0) fprintf(stderr, "launcher: task %d: %s\n", t, line);
  for (int i = 0; i < sp_get_nnotes(p) && (verbose || dry); ++i)
    if (sp_get_note(p, i, line, sizeof line) >= 0) fprintf(stderr, "launcher: note: %s\n", line);
  for (int t = 0; t < sp_get_ntasks(p) && !dry; ++t)
    if (fork() == 0) start_task(p, t, argv + optind + 2);
  int status, failed = 0;
  while (wait(&status) > 0) failed |= !WIFEXITED(status) || WEXITSTATUS(status) != 0;
  sp_finalize(p);
  return failed;
}
