/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * libslurm_pin_threads.so: binds threads that OpenMP environment variables
 * cannot reach, without recompiling the application (docs/threads.md).
 *
 * The LD_PRELOAD shim: the N-th thread a task creates (the main thread is
 * 0) is bound to the N-th place its binder gave (task_places.h), skipping
 * helper threads (MPI progress, fabric libraries: SLURM_PIN_SKIP_OBJECTS; or
 * by creation index: SLURM_PIN_SKIP_MASK), which run on all the task's CPUs.
 * More threads than places: SLURM_PIN_OVERFLOW=wrap (default), error
 * (pthread_create fails with EAGAIN and one error line) or none (unbound).
 * Per-region pinning is region_pinning.c.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "runtime.h"
#include "stderr_line.h"
#include "task_env.h"

struct task_places rt_task;

static struct cpu_place whole; /* the task's CPUs, as the process started: where skipped helpers run */
static enum { WRAP, FAIL, UNBOUND } overflow = WRAP;
static unsigned long long skip_mask;
static const char *skip_objects = "libucs,libucp,libuct,libfabric,libpsm2,libpmix,libmlx5,libibverbs,libopen-pal";
static int created;    /* threads created so far (skipped ones included) */
static int pinned = 1; /* place index of the next pinned thread: the main thread holds 0 */
static __thread const cpu_set_t *current __attribute__((tls_model("initial-exec")));

void rt_complain(const char *what) { stderr_line("slurm-pin: error: %s\n", what); }

void rt_bind_self(const struct cpu_place *p) {
  if (!p || !p->set || current == p->set) return; /* already there: no migration */
  if (sched_setaffinity(0, p->size, p->set) == 0) current = p->set;
}

/* The CPUs this process may use as it starts. */
static void keep_whole(void) {
  size_t n = RT_MAX_CPU + 1;
  whole.set = CPU_ALLOC(n);
  whole.size = CPU_ALLOC_SIZE(n);
  if (whole.set && sched_getaffinity(0, whole.size, whole.set) != 0) cpu_place_free(&whole);
}

__attribute__((constructor)) static void setup(void) {
  char err[1024];
  const char *v = getenv(SP_ENV_THREADS);
  /* Inherited into a task whose threads OpenMP binds (a launcher's daemon
   * or a batch script had it loaded): nothing to do here. */
  if (v && strcmp(v, "env") == 0) return;
  if (task_places_load(&rt_task, err, sizeof err) != 0) {
    /* The binder said where threads go and it cannot be read: never run
     * with less binding than the task was told it has. */
    char m[1200];
    snprintf(m, sizeof m, "%s: the task cannot be bound as slurm-pin reported; it does not run", err);
    rt_complain(m);
    _exit(1);
  }
  if ((v = getenv(SP_ENV_OVERFLOW))) overflow = !strcmp(v, "error") ? FAIL : !strcmp(v, "none") ? UNBOUND : WRAP;
  if ((v = getenv(SP_ENV_SKIP_MASK))) skip_mask = strtoull(v, NULL, 16);
  if ((v = getenv(SP_ENV_SKIP_OBJECTS))) skip_objects = v;
  keep_whole();
  if (rt_task.count) rt_bind_self(&rt_task.places[0]);
}

/* ---- threads in creation order ------------------------------------------ */

static int skipped(void *(*fn)(void *), int index) {
  if (index < 64 && (skip_mask >> index & 1)) return 1;
  Dl_info info;
  if (!dladdr((void *)fn, &info) || !info.dli_fname) return 0;
  const char *base = strrchr(info.dli_fname, '/') ? strrchr(info.dli_fname, '/') + 1 : info.dli_fname;
  for (const char *p = skip_objects; *p;) {
    const char *end = strchr(p, ',');
    size_t n = end ? (size_t)(end - p) : strlen(p);
    if (n && strncmp(base, p, n) == 0) return 1;
    if (!end) break;
    p = end + 1;
  }
  return 0;
}

struct start {
  void *(*fn)(void *);
  void *arg;
  const struct cpu_place *place;
};

static void *started(void *p) {
  struct start s = *(struct start *)p;
  free(p);
  rt_bind_self(s.place);
  return s.fn(s.arg);
}

VISIBLE int pthread_create(pthread_t *th, const pthread_attr_t *attr, void *(*fn)(void *), void *arg) {
  static int (*real)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);
  if (!real) real = (int (*)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *))dlsym(RTLD_NEXT, "pthread_create");
  int index = __atomic_fetch_add(&created, 1, __ATOMIC_RELAXED);
  size_t n = rt_task.count;
  if (!n) return real(th, attr, fn, arg);
  const struct cpu_place *place = NULL;
  int slot = -1;
  if (skipped(fn, index)) place = &whole; /* not the creator's place: the task's CPUs */
  else slot = __atomic_fetch_add(&pinned, 1, __ATOMIC_RELAXED);
  if (slot < 0) {
  } else if ((size_t)slot < n) place = &rt_task.places[slot];
  else if (overflow == WRAP) place = &rt_task.places[(size_t)slot % n];
  else if (overflow == FAIL) {
    stderr_line("slurm-pin: error: thread %d has no place (the placement has %zu): run fewer threads, "
            "or set SLURM_PIN_OVERFLOW=wrap\n", slot, n);
    return EAGAIN;
  }
  struct start *s = malloc(sizeof *s);
  if (!s) return real(th, attr, fn, arg);
  s->fn = fn, s->arg = arg, s->place = place;
  int rc = real(th, attr, started, s);
  if (rc) free(s);
  return rc;
}
