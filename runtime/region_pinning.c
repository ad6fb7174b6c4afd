/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Per-region (phase) pinning, seed 001 section 6.3.5: when the task file
 * names a region, every thread of its team moves to its place for that
 * region. Regions of GCC programs are caught at GOMP_parallel (libgomp, or
 * libomp's GOMP ABI) and named by their outlined function; regions on LLVM
 * libomp through OMPT (parallel_begin, implicit_task) and named by their
 * call site. Both names are the profiler's (region_name.h), so a profile's
 * regions match. A thread already on its place is not moved.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <omp-tools.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "ompt_tool.h"
#include "region_name.h"
#include "runtime.h"

static const struct region_places *region_named(const char *name) {
  for (size_t i = 0; i < rt_task.nregions; ++i)
    if (!strcmp(rt_task.regions[i].name, name)) return &rt_task.regions[i];
  return NULL;
}

/* Regions are looked up by code address once; later entries hit this
 * cache: chunks that are never moved, appended under a lock and read
 * without one. */
#define CHUNK 256
struct seen_chunk {
  struct {
    const void *code;
    const struct region_places *region;
  } entry[CHUNK];
  int used;
  struct seen_chunk *next;
};
static struct seen_chunk first_chunk;

static const struct region_places *region_of(const void *code) {
  static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
  for (struct seen_chunk *c = &first_chunk; c; c = __atomic_load_n(&c->next, __ATOMIC_ACQUIRE))
    for (int i = 0, n = __atomic_load_n(&c->used, __ATOMIC_ACQUIRE); i < n; ++i)
      if (c->entry[i].code == code) return c->entry[i].region;
  char name[512];
  sp_region_name(code, name, sizeof name);
  const struct region_places *r = region_named(name);
  pthread_mutex_lock(&lock);
  struct seen_chunk *c = &first_chunk;
  while (c->next) c = c->next;
  if (c->used == CHUNK) {
    struct seen_chunk *fresh = calloc(1, sizeof *fresh);
    if (fresh) __atomic_store_n(&c->next, fresh, __ATOMIC_RELEASE);
    c = fresh;
  }
  if (c) {
    c->entry[c->used].code = code, c->entry[c->used].region = r;
    __atomic_store_n(&c->used, c->used + 1, __ATOMIC_RELEASE);
  }
  pthread_mutex_unlock(&lock);
  return r;
}

static void enter(const struct region_places *r, int thread) {
  if (r && thread >= 0 && r->count) rt_bind_self(&r->places[(size_t)thread % r->count]);
}

/* GCC: GOMP_parallel(fn, data, ...) runs fn on every thread of the team; run
 * a trampoline that first moves the thread to the region's place. */
struct region_call {
  void (*fn)(void *);
  void *data;
  const struct region_places *region;
};

static int (*thread_num)(void);

static void trampoline(void *p) {
  const struct region_call *c = p;
  enter(c->region, thread_num ? thread_num() : -1);
  c->fn(c->data);
}

VISIBLE void GOMP_parallel(void (*fn)(void *), void *data, unsigned n, unsigned flags) {
  static void (*real)(void (*)(void *), void *, unsigned, unsigned);
  if (!real) real = (void (*)(void (*)(void *), void *, unsigned, unsigned))dlsym(RTLD_NEXT, "GOMP_parallel");
  if (!thread_num) thread_num = (int (*)(void))dlsym(RTLD_DEFAULT, "omp_get_thread_num");
  const struct region_places *r = rt_task.nregions ? region_of((const void *)fn) : NULL;
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
  enter((const struct region_places *)parallel->ptr, (int)index);
}

VISIBLE ompt_start_tool_result_t *ompt_start_tool(unsigned int version, const char *runtime) {
  (void)version, (void)runtime;
  static const struct sp_ompt_callback callbacks[] = {
      {ompt_callback_parallel_begin, (ompt_callback_t)on_parallel_begin},
      {ompt_callback_implicit_task, (ompt_callback_t)on_implicit_task},
      {ompt_callback_parallel_begin, NULL}};
  return rt_task.nregions ? sp_ompt_tool(callbacks) : NULL; /* no regions: no tool, no overhead */
}
