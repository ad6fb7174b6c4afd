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
 *
 * Thread binding `auto` (the default): the task also has OMP_PLACES, so an
 * OpenMP runtime binds its own threads; the shim leaves those alone (their
 * start routine is in libgomp, libomp or libiomp5), runs a program's other
 * threads beside an OpenMP team on the task's CPUs (not squeezed onto the
 * place of the thread that created them), and in a program without OpenMP
 * binds nothing until the program starts a thread: then the main thread
 * takes the first place and each new thread the next, as in preload. A
 * process that never starts a thread (a shell, make) is never bound, and
 * of several multithreaded processes of one task only the one holding the
 * task's claim (task_claim.h) binds; the others run on the task's CPUs.
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
#include <sys/syscall.h>
#include <unistd.h>

#include "runtime.h"
#include "stderr_line.h"
#include "task_claim.h"
#include "task_env.h"

struct task_places rt_task;

static struct cpu_place whole; /* the task's CPUs, as the process started: where skipped helpers run */
static enum { WRAP, FAIL, UNBOUND } overflow = WRAP;
static unsigned long long skip_mask;
static const char *skip_objects = "libucs,libucp,libuct,libfabric,libpsm2,libpmix,libmlx5,libibverbs,libopen-pal";
static int created;    /* threads created so far (skipped ones included) */
static int pinned = 1; /* place index of the next pinned thread: the main thread holds 0 */
static int auto_mode;  /* thread binding auto (above) */
static int main_bound; /* auto: the main thread is on the first place */
static const char *const openmp_runtimes = "libgomp,libomp,libiomp5";
static __thread const cpu_set_t *current __attribute__((tls_model("initial-exec")));

void rt_complain(const char *what) { stderr_line("slurm-pin: error: %s\n", what); }

/* The runtime's own affinity calls go to libc's functions directly: the
 * program's calls come through the interposers below. */
static int set_affinity(pid_t tid, size_t size, const cpu_set_t *set) {
  return (int)syscall(SYS_sched_setaffinity, tid, size, set) == 0 ? 0 : -1;
}

void rt_bind_self(const struct cpu_place *p) {
  if (!p || !p->set || current == p->set) return; /* already there: no migration */
  if (set_affinity(0, p->size, p->set) == 0) current = p->set;
}

static void forked(void);

/* The CPUs this process may use as it starts. */
static void keep_whole(void) {
  size_t n = RT_MAX_CPU + 1;
  whole.set = CPU_ALLOC(n);
  whole.size = CPU_ALLOC_SIZE(n);
  if (whole.set && sched_getaffinity(0, whole.size, whole.set) != 0) cpu_place_free(&whole);
}

__attribute__((constructor)) static void setup(void) {
  char err[1024];
  const char *mode = getenv(SP_ENV_THREADS), *v;
  /* Inherited into a task whose threads OpenMP binds (a launcher's daemon
   * or a batch script had it loaded): nothing to do here. */
  if (mode && strcmp(mode, "env") == 0) return;
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
  if (mode && strcmp(mode, "auto") == 0) {
    auto_mode = 1;
    /* An OpenMP runtime the program links may have bound the main thread
     * to the first place already (its constructor runs before this one):
     * the task's CPUs are at least every place's. */
    for (size_t i = 0; whole.set && i < rt_task.count; ++i)
      if (rt_task.places[i].set && rt_task.places[i].size <= whole.size)
        CPU_OR_S(rt_task.places[i].size, whole.set, whole.set, rt_task.places[i].set);
    /* The claim's holder after an exec keeps its main thread's place. */
    main_bound = task_claim_open();
    pthread_atfork(NULL, NULL, forked);
    return;
  }
  if (rt_task.count) rt_bind_self(&rt_task.places[0]);
}

/* ---- threads in creation order ------------------------------------------ */

/* Whether the object holding `fn` is named by one of `names` (comma-separated
 * prefixes of a library's file name). */
static int in_objects(void *(*fn)(void *), const char *names) {
  Dl_info info;
  if (!dladdr((void *)fn, &info) || !info.dli_fname) return 0;
  const char *base = strrchr(info.dli_fname, '/') ? strrchr(info.dli_fname, '/') + 1 : info.dli_fname;
  for (const char *p = names; *p;) {
    const char *end = strchr(p, ',');
    size_t n = end ? (size_t)(end - p) : strlen(p);
    if (n && strncmp(base, p, n) == 0) return 1;
    if (!end) break;
    p = end + 1;
  }
  return 0;
}

static int skipped(void *(*fn)(void *), int index) {
  if (index < 64 && (skip_mask >> index & 1)) return 1;
  return in_objects(fn, skip_objects);
}

/* Whether an OpenMP runtime is loaded in this process (once seen, it stays:
 * runtimes are not unloaded). */
static int openmp_loaded(void) {
  static int seen;
  static const char *const sonames[] = {"libgomp.so.1", "libomp.so.5", "libomp.so", "libiomp5.so", NULL};
  if (__atomic_load_n(&seen, __ATOMIC_RELAXED)) return 1;
  for (const char *const *n = sonames; *n; ++n) {
    void *h = dlopen(*n, RTLD_LAZY | RTLD_NOLOAD);
    if (h) {
      dlclose(h);
      __atomic_store_n(&seen, 1, __ATOMIC_RELAXED);
      return 1;
    }
  }
  return 0;
}

/* In a child after fork: the claim and the places stay with the parent; the
 * child's one thread runs on the task's CPUs again. */
static void forked(void) {
  if (!main_bound) return;
  main_bound = 0;
  pinned = 1;
  task_claim_forked();
  if (whole.set) set_affinity(0, whole.size, whole.set);
}

/* auto: where a thread the program starts goes. */
enum auto_choice {
  AUTO_LEAVE, /* where its creator is: an OpenMP runtime's thread (OMP_PLACES binds it), or a process without the claim */
  AUTO_WHOLE, /* the task's CPUs: a helper, or a program's thread beside an OpenMP team */
  AUTO_PLACE  /* the next place in creation order, the main thread on the first */
};

static enum auto_choice choose(void *(*fn)(void *), int index) {
  if (in_objects(fn, openmp_runtimes)) return AUTO_LEAVE;
  if (skipped(fn, index) || openmp_loaded()) return AUTO_WHOLE;
  if (!task_claim_take()) return AUTO_LEAVE;
  if (!__atomic_exchange_n(&main_bound, 1, __ATOMIC_ACQ_REL))
    set_affinity(getpid(), rt_task.places[0].size, rt_task.places[0].set); /* the main thread */
  return AUTO_PLACE;
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
  if (auto_mode) {
    switch (choose(fn, index)) {
      case AUTO_LEAVE: return real(th, attr, fn, arg);
      case AUTO_WHOLE: place = &whole; break;
      case AUTO_PLACE: slot = __atomic_fetch_add(&pinned, 1, __ATOMIC_RELAXED); break;
    }
  } else if (skipped(fn, index)) {
    place = &whole; /* not the creator's place: the task's CPUs */
  } else {
    slot = __atomic_fetch_add(&pinned, 1, __ATOMIC_RELAXED);
  }
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

/* ---- a program that sets its own affinity ------------------------------- */

/* What it asks is done (its threads go where it says); with --pin-verbose
 * the task is told once that they no longer run on the places its verbose
 * line named. An OpenMP runtime binding its own team by OMP_PLACES is
 * slurm-pin's binding, not the program's own. */
static void moved_by_program(void *caller) {
  static int said;
  const char *v = getenv(SP_ENV_VERBOSE);
  if (!v || strcmp(v, "1") != 0 || !rt_task.count) return;
  if (caller && in_objects((void *(*)(void *))caller, openmp_runtimes)) return;
  if (__atomic_exchange_n(&said, 1, __ATOMIC_RELAXED)) return;
  char exe[256] = "the program", node[256] = "";
  ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (n > 0) exe[n] = '\0';
  const char *slurm_node = getenv("SLURMD_NODENAME");
  if (slurm_node) snprintf(node, sizeof node, "%s", slurm_node);
  else if (gethostname(node, sizeof node - 1) != 0) snprintf(node, sizeof node, "this node");
  stderr_line("slurm-pin: %s: note: %s sets its own thread affinity: those threads run where it puts them, not "
              "on the places above\n", node, exe);
}

VISIBLE int sched_setaffinity(pid_t pid, size_t size, const cpu_set_t *set) {
  moved_by_program(__builtin_return_address(0));
  return set_affinity(pid, size, set);
}

VISIBLE int pthread_setaffinity_np(pthread_t th, size_t size, const cpu_set_t *set) {
  static int (*real)(pthread_t, size_t, const cpu_set_t *);
  if (!real) real = (int (*)(pthread_t, size_t, const cpu_set_t *))dlsym(RTLD_NEXT, "pthread_setaffinity_np");
  moved_by_program(__builtin_return_address(0));
  return real ? real(th, size, set) : ENOSYS;
}
