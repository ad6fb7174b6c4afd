/* SPDX-License-Identifier: GPL-2.0-or-later */
#define _GNU_SOURCE
#include "placing_helper.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* The child's last 4 bytes: it wrote all of its result. */
static const char trailer[4] = {'d', 'o', 'n', 'e'};

static int become(const struct helper_identity *who) {
  if (!who) {
    gid_t g = getegid();
    uid_t u = geteuid();
    return setresgid(g, g, g) == 0 && setresuid(u, u, u) == 0 ? 0 : -1;
  }
  if (setgroups((size_t)who->ngroups, who->groups) != 0 || setresgid(who->gid, who->gid, who->gid) != 0 ||
      setresuid(who->uid, who->uid, who->uid) != 0)
    return -1;
  return 0;
}

static int write_all(int fd, const char *data, size_t size) {
  for (size_t at = 0; at < size;) {
    ssize_t n = write(fd, data + at, size - at);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return -1;
    at += (size_t)n;
  }
  return 0;
}

/* The child's exit when a file it had mapped lost its pages (SIGBUS). */
enum { mapped_file_cut = 5 };

static void on_sigbus(int sig) {
  (void)sig;
  _exit(mapped_file_cut);
}

/* The data size the child has now (VmData, bytes): what it inherited of
 * slurmstepd's address space, its own allowance comes on top. 0: unknown. */
static unsigned long long data_size_now(void) {
  char buf[4096];
  int fd = open("/proc/self/status", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 0;
  ssize_t n = read(fd, buf, sizeof buf - 1);
  close(fd);
  if (n <= 0) return 0;
  buf[n] = '\0';
  const char *at = strstr(buf, "\nVmData:");
  unsigned long long kib = 0;
  return at && sscanf(at, "\nVmData: %llu kB", &kib) == 1 ? kib << 10 : 0;
}

/* At most `memory` bytes more of data for the rest of the child's life
 * (soft and hard limits: the user it becomes cannot raise them). */
static int cap_memory(unsigned long long memory) {
  unsigned long long base = data_size_now();
  if (!base) return -1;
  struct rlimit lim = {(rlim_t)(base + memory), (rlim_t)(base + memory)};
  struct rlimit old;
  if (getrlimit(RLIMIT_DATA, &old) == 0 && old.rlim_max != RLIM_INFINITY && old.rlim_max < lim.rlim_max)
    lim = old; /* slurmstepd's own limit is lower still */
  return setrlimit(RLIMIT_DATA, &lim);
}

/* The child's exit when it could not cap its own memory. */
enum { memory_not_capped = 6 };

/* The child: the job's user for good, then the work, its bytes to `fd`. */
static void child(int fd, int (*work)(void *, struct plan_writer *), void *arg, const struct helper_identity *who,
                  unsigned long long memory) {
  struct plan_writer out = {0};
  /* Killed with slurmstepd rather than left placing for nobody. */
  signal(SIGPIPE, SIG_DFL);
  /* The engine maps store profiles (trusted, replaced by renaming): one
   * cut short in place while mapped (an admin's cp over an entry) faults
   * the reader, which is then that file's fault, not a crash to report. */
  signal(SIGBUS, on_sigbus);
  if (become(who) != 0) _exit(3);
  if (memory && cap_memory(memory) != 0) _exit(memory_not_capped);
  if (work(arg, &out) != 0) _exit(2);
  if (write_all(fd, out.data, out.size) != 0 || write_all(fd, trailer, sizeof trailer) != 0) _exit(4);
  _exit(0);
}

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

int placing_helper_start(struct placing_helper *h, int (*work)(void *arg, struct plan_writer *out), void *arg,
                         const struct helper_identity *who, double seconds, unsigned long long memory, char *err,
                         size_t len) {
  int fds[2];
  h->pid = 0;
  if (pipe2(fds, O_CLOEXEC) != 0) return snprintf(err, len, "cannot start the placing helper: %s", strerror(errno)), -1;
  /* Room for a whole plan of most steps: the helper finishes writing
   * without waiting for slurmstepd to read (best effort). */
  fcntl(fds[0], F_SETPIPE_SZ, 1 << 20);
  h->deadline = now() + seconds;
  pid_t pid = fork();
  if (pid < 0) {
    snprintf(err, len, "cannot start the placing helper: %s", strerror(errno));
    close(fds[0]), close(fds[1]);
    return -1;
  }
  if (pid == 0) {
    close(fds[0]);
    child(fds[1], work, arg, who, memory);
  }
  close(fds[1]);
  h->pid = pid;
  h->fd = fds[0];
  return 0;
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

/* What a helper ended by `sig` says. The plugin sends it none but past
 * its deadline (said above): a kill came from outside (the OOM killer,
 * the job's memory limit, an admin), any other signal is a crash. */
static void died_of(int sig, char *err, size_t len) {
  switch (sig) {
    case SIGKILL:
    case SIGTERM:
    case SIGINT:
    case SIGHUP:
    case SIGXCPU:
      snprintf(err, len, "the placing helper was killed (signal %d: the kernel's OOM killer or the job's memory limit, "
               "or an admin): give the step more memory (--mem) or use a smaller profile, and run it again", sig);
      return;
    default:
      snprintf(err, len, "the placing helper crashed (signal %d): report it with the step's options", sig);
  }
}

static int reap(pid_t pid) {
  int status = 0;
  while (waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) return -1;
  return status;
}

int placing_helper_finish(struct placing_helper *h, size_t max_bytes, char **data, size_t *size, char *err,
                          size_t len) {
  *data = NULL;
  if (!h->pid) return snprintf(err, len, "the placing helper was not started"), -1;
  int got = read_all(h->fd, h->deadline, max_bytes, data, size), e = errno;
  close(h->fd);
  if (got == -2) kill(h->pid, SIGKILL);
  int status = reap(h->pid);
  h->pid = 0;
  int whole = got == 0 && *size >= sizeof trailer && memcmp(*data + *size - sizeof trailer, trailer, sizeof trailer) == 0;
  if (whole && WIFEXITED(status) && WEXITSTATUS(status) == 0) {
    *size -= sizeof trailer;
    return 0;
  }
  free(*data);
  *data = NULL;
  if (got == -2)
    snprintf(err, len, "placing the step took longer than its budget (max_time= in plugstack.conf)");
  else if (got == -1)
    snprintf(err, len, "cannot read the placing helper's result: %s", strerror(e));
  else if (WIFSIGNALED(status)) died_of(WTERMSIG(status), err, len);
  else if (WIFEXITED(status) && WEXITSTATUS(status) == 3)
    snprintf(err, len, "the placing helper cannot run as the job's user");
  else if (WIFEXITED(status) && WEXITSTATUS(status) == memory_not_capped)
    snprintf(err, len, "the placing helper cannot limit its own memory (/proc/self/status, RLIMIT_DATA)");
  else if (WIFEXITED(status) && WEXITSTATUS(status) == mapped_file_cut)
    snprintf(err, len,
             "a store profile was cut short while the step read it (rewritten in place: replace entries with "
             "`slurm-pin profiles import`, which renames); run the step again");
  else
    snprintf(err, len, "the placing helper failed (exit %d)", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
  return -1;
}

void placing_helper_cancel(struct placing_helper *h) {
  if (!h->pid) return;
  kill(h->pid, SIGKILL);
  close(h->fd);
  reap(h->pid);
  h->pid = 0;
}
