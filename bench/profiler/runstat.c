/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Runs a command and prints "WALL_S CPU_S MAXRSS_KIB" on stderr (fd 2 of this
 * process), its own output discarded: what bench/profiler measures. CPU time
 * and peak memory cover the whole process tree (RUSAGE_CHILDREN): a command
 * that runs Valgrind in a child is measured with it; the peak is that of its
 * largest process. */
#include <fcntl.h>
#include <stdio.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv) {
  if (argc < 2) return 2;
  struct timespec a, b;
  clock_gettime(CLOCK_MONOTONIC, &a);
  pid_t pid = fork();
  if (pid == 0) {
    int null = open("/dev/null", O_WRONLY);
    dup2(null, 1);
    dup2(null, 2);
    execvp(argv[1], argv + 1);
    _exit(127);
  }
  int status;
  struct rusage ru;
  waitpid(pid, &status, 0);
  getrusage(RUSAGE_CHILDREN, &ru);
  clock_gettime(CLOCK_MONOTONIC, &b);
  double wall = (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) / 1e9;
  double cpu = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 + (double)ru.ru_stime.tv_sec +
               (double)ru.ru_stime.tv_usec / 1e6;
  fprintf(stderr, "%.6f %.6f %ld\n", wall, cpu, ru.ru_maxrss);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}
