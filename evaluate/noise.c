/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * slurm-pin-noise: runs a program beside K co-running noise processes, as
 * seed 001 (sections 4.5-4.6) measures interference: CPU-bound (a spinning
 * loop) or memory-bound (streaming over 64 MiB, beyond any cache). The noise
 * inherits the task's CPU binding, so it competes inside the allocation
 * only. It ends with the program, whose exit status it returns.
 *   slurm-pin-noise --workers K [--kind cpu|memory] -- PROGRAM [ARGS...]
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#define MAX_WORKERS 1024
#define MEMORY_BYTES (64u << 20)

static void spin(void) {
  volatile unsigned long x = 1;
  for (;;) x = x * 6364136223846793005ul + 1442695040888963407ul;
}

/* What the streaming loop reads ends up here, so no compiler drops it. */
static volatile unsigned long sink;

static void stream(void) {
  unsigned char *buf = malloc(MEMORY_BYTES);
  if (!buf) _exit(1);
  memset(buf, 1, MEMORY_BYTES);
  for (;;)
    for (size_t i = 0; i < MEMORY_BYTES; i += 64) sink += buf[i]++;
}

static int usage(const char *why) {
  fprintf(stderr, "slurm-pin-noise: error: %s\nusage: slurm-pin-noise --workers K [--kind cpu|memory] -- PROGRAM [ARGS...]\n",
          why);
  return 2;
}

int main(int argc, char **argv) {
  long workers = -1;
  int memory = 0, i = 1;
  for (; i < argc && strcmp(argv[i], "--") != 0; i += 2) {
    if (i + 1 >= argc) return usage("an option lacks its value");
    if (strcmp(argv[i], "--workers") == 0) {
      char *end;
      workers = strtol(argv[i + 1], &end, 10);
      if (*end || workers < 0 || workers > MAX_WORKERS) return usage("--workers takes 0 to 1024");
    } else if (strcmp(argv[i], "--kind") == 0) {
      if (strcmp(argv[i + 1], "memory") != 0 && strcmp(argv[i + 1], "cpu") != 0)
        return usage("--kind takes cpu or memory");
      memory = strcmp(argv[i + 1], "memory") == 0;
    } else {
      return usage("unknown option");
    }
  }
  if (workers < 0 || i + 1 >= argc) return usage("give --workers and a program after --");
  pid_t noise[MAX_WORKERS];
  for (long w = 0; w < workers; ++w) {
    noise[w] = fork();
    if (noise[w] < 0) return perror("slurm-pin-noise: fork"), 1;
    if (noise[w] == 0) {
      prctl(PR_SET_PDEATHSIG, SIGKILL); /* never outlive the task */
      if (getppid() == 1) _exit(0);
      memory ? stream() : spin();
    }
  }
  pid_t program = fork();
  if (program == 0) {
    execvp(argv[i + 1], argv + i + 1);
    fprintf(stderr, "slurm-pin-noise: error: cannot run %s: %s\n", argv[i + 1], strerror(errno));
    _exit(127);
  }
  int status = 0;
  while (program > 0 && waitpid(program, &status, 0) < 0 && errno == EINTR) {
  }
  for (long w = 0; w < workers; ++w) kill(noise[w], SIGKILL);
  for (long w = 0; w < workers; ++w) waitpid(noise[w], NULL, 0);
  if (program < 0) return perror("slurm-pin-noise: fork"), 1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
