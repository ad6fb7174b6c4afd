/* SPDX-License-Identifier: GPL-2.0-or-later */
#define _GNU_SOURCE
#include "placing_helper.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* The child: for good the user slurmstepd is acting for (user_init runs
 * with only the effective ids dropped), then the work, its bytes to `fd`. */
static void child(int fd, int (*work)(void *, struct plan_writer *), void *arg) {
  struct plan_writer out = {0};
  gid_t g = getegid();
  uid_t u = geteuid();
  if (setresgid(g, g, g) != 0 || setresuid(u, u, u) != 0) _exit(3);
  if (work(arg, &out) != 0) _exit(2);
  for (size_t at = 0; at < out.size;) {
    ssize_t n = write(fd, out.data + at, out.size - at);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) _exit(4);
    at += (size_t)n;
  }
  _exit(0);
}

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* Everything the child writes until it closes the pipe, within the
 * deadline: 0, -1 (too much or no memory: errno), -2 (late). */
static int read_all(int fd, double deadline, size_t max_bytes, char **data, size_t *size) {
  size_t cap = 65536;
  char *buf = malloc(cap);
  if (!buf) return -1;
  *size = 0;
  for (;;) {
    double left = deadline - now();
    struct pollfd p = {fd, POLLIN, 0};
    int ready = left > 0 ? poll(&p, 1, (int)(left * 1000) + 1) : 0;
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0) return free(buf), ready == 0 ? -2 : -1;
    if (*size == cap) {
      char *more = cap >= max_bytes ? NULL : realloc(buf, cap * 2);
      if (!more) return free(buf), errno = ENOMEM, -1;
      buf = more, cap *= 2;
    }
    ssize_t n = read(fd, buf + *size, cap - *size);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return free(buf), -1;
    if (n == 0) break;
    *size += (size_t)n;
  }
  *data = buf;
  return 0;
}

int placing_helper_run(int (*work)(void *arg, struct plan_writer *out), void *arg, double seconds,
                       size_t max_bytes, char **data, size_t *size, char *err, size_t len) {
  int fds[2];
  *data = NULL;
  if (pipe2(fds, O_CLOEXEC) != 0) return snprintf(err, len, "cannot start the placing helper: %s", strerror(errno)), -1;
  double deadline = now() + seconds;
  pid_t pid = fork();
  if (pid < 0) {
    snprintf(err, len, "cannot start the placing helper: %s", strerror(errno));
    close(fds[0]), close(fds[1]);
    return -1;
  }
  if (pid == 0) {
    close(fds[0]);
    child(fds[1], work, arg);
  }
  close(fds[1]);
  int got = read_all(fds[0], deadline, max_bytes, data, size), e = errno;
  close(fds[0]);
  if (got == -2) kill(pid, SIGKILL);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (got == 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0) return 0;
  free(*data);
  *data = NULL;
  if (got == -2)
    snprintf(err, len, "placing the step took longer than %g s (max_time= in plugstack.conf)", seconds);
  else if (got == -1)
    snprintf(err, len, "cannot read the placing helper's result: %s", strerror(e));
  else if (WIFSIGNALED(status))
    snprintf(err, len, "the placing helper died (signal %d): report it with the step's options", WTERMSIG(status));
  else if (WEXITSTATUS(status) == 3)
    snprintf(err, len, "the placing helper cannot run as the job's user");
  else
    snprintf(err, len, "the placing helper failed (exit %d)", WEXITSTATUS(status));
  return -1;
}
