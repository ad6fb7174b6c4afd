/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * libslurm_pin_threads.so: binds threads that OpenMP environment variables
 * cannot reach, without recompiling the application.
 *
 *  - LD_PRELOAD shim: the N-th thread a task creates (the main thread is 0)
 *    is bound to the N-th place of SLURM_PIN_CPUS ("0,8 4 1 5": one CPU list
 *    per thread), skipping helper threads (MPI progress, fabric libraries:
 *    SLURM_PIN_SKIP_OBJECTS; or by creation index: SLURM_PIN_SKIP_MASK), which
 *    run on all the task's CPUs.
 *    More threads than places: SLURM_PIN_OVERFLOW=wrap (default), error
 *    (pthread_create fails with EAGAIN and one error line) or none (unbound).
 *  - Per-region (phase) pinning, seed 001 section 6.3.5: when
 *    SLURM_PIN_REGION_PLACES="NAME=CPUS CPUS ...;NAME=..." names a region,
 *    every thread of its team moves to its place for that region. Regions of
 *    GCC programs are caught at GOMP_parallel (libgomp, or libomp's GOMP ABI)
 *    and named by their outlined function; regions on LLVM libomp through
 *    OMPT (parallel_begin, implicit_task) and named by their call site. Both
 *    names are the profiler's, so a profile's regions match. A thread already
 *    on its place is not moved.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <omp-tools.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "region_name.h"

#define MAX_PLACES 4096
#define MAX_REGIONS 256
#define CPUSET_BITS 4096

typedef struct {
  cpu_set_t *set;
  char *text;
} Place;

typedef struct {
  char *name;
  Place places[MAX_PLACES];
  int count;
} Region;

static Place places[MAX_PLACES];
static int n_places;
static Place whole; /* the task's CPUs, as the process started: where skipped helpers run */
static Region *regions[MAX_REGIONS];
static int n_regions;
static enum { WRAP, FAIL, UNBOUND } overflow = WRAP;
static unsigned long long skip_mask;
static const char *skip_objects = "libucs,libucp,libuct,libfabric,libpsm2,libpmix,libmlx5,libibverbs,libopen-pal";
static int created;      /* threads created so far (skipped ones included) */
static int pinned = 1;   /* place index of the next pinned thread: the main thread holds 0 */
static __thread const cpu_set_t *current __attribute__((tls_model("initial-exec")));

static size_t set_size(void) { return CPU_ALLOC_SIZE(CPUSET_BITS); }

static void complain(const char *what) { fprintf(stderr, "slurm-pin: error: %s\n", what); }

/* "0-2,8" -> a CPU set; NULL when malformed. */
static cpu_set_t *parse_cpus(const char *text) {
  cpu_set_t *set = CPU_ALLOC(CPUSET_BITS);
  CPU_ZERO_S(set_size(), set);
  const char *p = text;
  while (*p) {
    char *end;
    long lo = strtol(p, &end, 10), hi = lo;
    if (end == p) goto bad;
    p = end;
    if (*p == '-') {
      hi = strtol(p + 1, &end, 10);
      if (end == p + 1) goto bad;
      p = end;
    }
    if (lo < 0 || hi < lo || hi >= CPUSET_BITS) goto bad;
    for (long c = lo; c <= hi; ++c) CPU_SET_S((size_t)c, set_size(), set);
    if (*p == ',') ++p;
    else if (*p) goto bad;
  }
  return set;
bad:
  CPU_FREE(set);
  return NULL;
}

/* Space-separated CPU lists into places; -1 when malformed. */
static int parse_places(const char *text, Place *out, int *count) {
  char *copy = strdup(text), *save = NULL;
  *count = 0;
  for (char *tok = strtok_r(copy, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
    if (*count == MAX_PLACES) break;
    cpu_set_t *set = parse_cpus(tok);
    if (!set) {
      free(copy);
      return -1;
    }
    out[*count].set = set;
    out[(*count)++].text = strdup(tok);
  }
  free(copy);
  return 0;
}

static void parse_regions(const char *text) {
  char *copy = strdup(text), *save = NULL;
  for (char *tok = strtok_r(copy, ";", &save); tok && n_regions < MAX_REGIONS; tok = strtok_r(NULL, ";", &save)) {
    char *eq = strchr(tok, '=');
    if (!eq) continue;
    *eq = '\0';
    Region *r = calloc(1, sizeof *r);
    r->name = strdup(tok);
    if (parse_places(eq + 1, r->places, &r->count) != 0) {
      fprintf(stderr, "slurm-pin: error: SLURM_PIN_REGION_PLACES: bad CPU list in region %s (ignored)\n", tok);
      free(r->name), free(r);
      continue;
    }
    regions[n_regions++] = r;
  }
  free(copy);
}

static void bind_self(const Place *p) {
  if (!p || !p->set || current == p->set) return; /* already there: no migration */
  if (sched_setaffinity(0, set_size(), p->set) == 0) current = p->set;
}

__attribute__((constructor)) static void setup(void) {
  const char *v;
  if ((v = getenv("SLURM_PIN_CPUS")) && parse_places(v, places, &n_places) != 0) {
    complain("SLURM_PIN_CPUS is not a list of CPU lists: threads are left unbound");
    n_places = 0;
  }
  if ((v = getenv("SLURM_PIN_REGION_PLACES"))) parse_regions(v);
  if ((v = getenv("SLURM_PIN_OVERFLOW")))
    overflow = !strcmp(v, "error") ? FAIL : !strcmp(v, "none") ? UNBOUND : WRAP;
  if ((v = getenv("SLURM_PIN_SKIP_MASK"))) skip_mask = strtoull(v, NULL, 16);
  if ((v = getenv("SLURM_PIN_SKIP_OBJECTS"))) skip_objects = v;
  whole.set = CPU_ALLOC(CPUSET_BITS);
  if (sched_getaffinity(0, set_size(), whole.set) != 0) {
    CPU_FREE(whole.set);
    whole.set = NULL;
  }
  if (n_places) bind_self(&places[0]);
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
  const Place *place;
};

static void *started(void *p) {
  struct start s = *(struct start *)p;
  free(p);
  bind_self(s.place);
  return s.fn(s.arg);
}

int pthread_create(pthread_t *th, const pthread_attr_t *attr, void *(*fn)(void *), void *arg) {
  static int (*real)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);
  if (!real) real = (int (*)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *))dlsym(RTLD_NEXT, "pthread_create");
  int index = __atomic_fetch_add(&created, 1, __ATOMIC_RELAXED);
  if (!n_places) return real(th, attr, fn, arg);
  const Place *place = NULL;
  int slot = -1;
  if (skipped(fn, index)) place = &whole; /* not the creator's place: the task's CPUs */
  else slot = __atomic_fetch_add(&pinned, 1, __ATOMIC_RELAXED);
  if (slot < 0) {
  } else if (slot < n_places) place = &places[slot];
  else if (overflow == WRAP) place = &places[slot % n_places];
  else if (overflow == FAIL) {
    fprintf(stderr, "slurm-pin: error: thread %d has no place (the placement has %d): run fewer threads, "
            "or set SLURM_PIN_OVERFLOW=wrap\n", slot, n_places);
    return EAGAIN;
  }
  struct start *s = malloc(sizeof *s);
  if (!s) return real(th, attr, fn, arg);
  s->fn = fn, s->arg = arg, s->place = place;
  int rc = real(th, attr, started, s);
  if (rc) free(s);
  return rc;
}

/* ---- per-region pinning -------------------------------------------------- */

static const Region *region_named(const char *name) {
  for (int i = 0; i < n_regions; ++i)
    if (!strcmp(regions[i]->name, name)) return regions[i];
  return NULL;
}

/* Regions are looked up by code address once; later entries hit this cache. */
static const Region *region_of(const void *code) {
  static struct {
    const void *code;
    const Region *region;
  } seen[MAX_REGIONS];
  static int n_seen;
  static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
  for (int i = 0; i < __atomic_load_n(&n_seen, __ATOMIC_ACQUIRE); ++i)
    if (seen[i].code == code) return seen[i].region;
  char name[512];
  sp_region_name(code, name, sizeof name);
  const Region *r = region_named(name);
  pthread_mutex_lock(&lock);
  if (n_seen < MAX_REGIONS) {
    seen[n_seen].code = code, seen[n_seen].region = r;
    __atomic_store_n(&n_seen, n_seen + 1, __ATOMIC_RELEASE);
  }
  pthread_mutex_unlock(&lock);
  return r;
}

static void enter(const Region *r, int thread) {
  if (r && thread >= 0 && r->count) bind_self(&r->places[thread % r->count]);
}

/* GCC: GOMP_parallel(fn, data, ...) runs fn on every thread of the team; run
 * a trampoline that first moves the thread to the region's place. */
struct region_call {
  void (*fn)(void *);
  void *data;
  const Region *region;
};

static int (*thread_num)(void);

static void trampoline(void *p) {
  const struct region_call *c = p;
  enter(c->region, thread_num ? thread_num() : -1);
  c->fn(c->data);
}

void GOMP_parallel(void (*fn)(void *), void *data, unsigned n, unsigned flags) {
  static void (*real)(void (*)(void *), void *, unsigned, unsigned);
  if (!real) real = (void (*)(void (*)(void *), void *, unsigned, unsigned))dlsym(RTLD_NEXT, "GOMP_parallel");
  if (!thread_num) thread_num = (int (*)(void))dlsym(RTLD_DEFAULT, "omp_get_thread_num");
  const Region *r = n_regions ? region_of((const void *)fn) : NULL;
  if (!r) {
    real(fn, data, n, flags);
    return;
  }
  struct region_call c = {fn, data, r};
  real(trampoline, &c, n, flags);
}

/* LLVM libomp: OMPT. The region is found at parallel_begin (by call site)
 * and every implicit task moves its thread when it begins. */
static void on_parallel_begin(ompt_data_t *task, const ompt_frame_t *frame, ompt_data_t *parallel,
                              unsigned int requested, int flags, const void *codeptr_ra) {
  (void)task, (void)frame, (void)requested, (void)flags;
  parallel->ptr = (void *)region_of(codeptr_ra);
}

static void on_implicit_task(ompt_scope_endpoint_t endpoint, ompt_data_t *parallel, ompt_data_t *task,
                             unsigned int team_size, unsigned int index, int flags) {
  (void)task, (void)team_size;
  if (endpoint != ompt_scope_begin || !parallel || (flags & ompt_task_initial)) return;
  enter((const Region *)parallel->ptr, (int)index);
}

static int ompt_initialize(ompt_function_lookup_t lookup, int device, ompt_data_t *data) {
  (void)device, (void)data;
  ompt_set_callback_t set = (ompt_set_callback_t)lookup("ompt_set_callback");
  if (!set) return 0;
  set(ompt_callback_parallel_begin, (ompt_callback_t)on_parallel_begin);
  set(ompt_callback_implicit_task, (ompt_callback_t)on_implicit_task);
  return 1;
}

static void ompt_finalize(ompt_data_t *data) { (void)data; }

ompt_start_tool_result_t *ompt_start_tool(unsigned int version, const char *runtime) {
  (void)version, (void)runtime;
  static ompt_start_tool_result_t result = {ompt_initialize, ompt_finalize, {0}};
  return n_regions ? &result : NULL; /* no regions: no tool, no overhead */
}
