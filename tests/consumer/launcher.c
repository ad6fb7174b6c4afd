/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A launcher on slurm-pin's public API (docs/api.md): `launcher N STRATEGY
 * PROGRAM [ARGS]` starts N tasks of PROGRAM on this machine, each placed,
 * bound and given its environment before exec. */
#include <slurm_pin/slurm_pin.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

static void start_task(sp_placement_t *p, int t, char **argv) {
  char name[64], value[4096];
  for (int i = 0; i < sp_get_env_count(p); ++i) {
    sp_get_env_name(p, i, name, sizeof name);
    int n = sp_get_env_value(p, t, i, getenv(name), value, sizeof value);
    if (n == SP_ENV_UNSET) unsetenv(name);
    else if (n < 0 || (size_t)n >= sizeof value || setenv(name, value, 1) != 0)
      fprintf(stderr, "launcher: task %d: cannot set %s\n", t, name), _exit(1); /* never half-placed */
  }
  if (sp_bind_task(p, t) != 0) fprintf(stderr, "launcher: task %d: %s\n", t, sp_error(p)), _exit(1);
  execvp(argv[0], argv);
  _exit(127);
}

int main(int argc, char **argv) {
  if (argc < 4) return fprintf(stderr, "usage: launcher NTASKS STRATEGY PROGRAM [ARGS]\n"), 2;
  sp_placement_t *p = sp_init();
  if (!p || sp_set_tasks(p, atoi(argv[1])) || sp_set_strategy(p, argv[2]) || sp_compute(p))
    return fprintf(stderr, "launcher: %s\n", p ? sp_error(p) : "out of memory"), 1;
  for (int t = 0; t < sp_get_ntasks(p); ++t)
    if (fork() == 0) start_task(p, t, argv + 3);
  int status, failed = 0;
  while (wait(&status) > 0) failed |= !WIFEXITED(status) || WEXITSTATUS(status) != 0;
  sp_finalize(p);
  return failed;
}
