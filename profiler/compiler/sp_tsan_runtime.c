/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The compiler backend's runtime: programs compiled with -fsanitize=thread
 * and linked with this library (instead of libtsan) record, per thread (in
 * creation order, the main thread first) and per parallel region, reads and
 * writes to every cache line, truly in parallel. Atomics really perform
 * their operation. At exit the tables are summed here
 * (profiler/common/sharing_sums.h) and the sums go to $SLURM_PIN_SHARING;
 * $SLURM_PIN_TRACE, when set, also gets every raw record. Code that was not
 * compiled with the instrumentation (libc, the OpenMP runtime) is not seen.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <elf.h>
#include <limits.h>
#include <link.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <signal.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "region_name.h"

#define MAX_THREADS 4096
#define MAX_REGIONS 1024

/* 0 builds hooks that count nothing (every access still calls them, atomics
 * still perform their operation): bench/profiler runs the instrumented
 * programs on that build to show what the instrumentation costs by itself,
 * the floor of any runtime behind these hooks. */
#ifndef SP_TSAN_COUNT
#define SP_TSAN_COUNT 1
#endif

/* ---- per-thread tables ----------------------------------------------- */

static size_t table_bytes; /* for the progress line */

static void *calloc_or_die(size_t n, size_t size) {
  void *p = calloc(n, size);
  __atomic_fetch_add(&table_bytes, n * size, __ATOMIC_RELAXED);
  if (!p) {
    fputs("slurm-pin: error: the profiler ran out of memory\n", stderr);
    abort();
  }
  return p;
}
#define LC_CALLOC calloc_or_die
#define LC_FREE free
#define SS_SORT qsort
#define SS_SNPRINTF snprintf
#include "sharing_sums.h"

typedef LineCounts Table;

static Table *tables[MAX_THREADS];
static unsigned n_threads = 1; /* index 0: the main thread */
/* initial-exec: a plain %fs access; the default model for a shared library
 * calls __tls_get_addr on every memory access of the program. */
static __thread Table *mine __attribute__((tls_model("initial-exec")));
static __thread int my_index __attribute__((tls_model("initial-exec")));
/* Where each thread came from: its creator's index + 1 (0: none) and its
 * start routine. */
static int creator_plus_one[MAX_THREADS];
static void *start_routine[MAX_THREADS];
/* Where a start routine was when its thread started ("libx.so.N+0xOFF"): a
 * library loaded with dlopen (an MPI's components) may be gone when the
 * run's results are written. NULL: in the executable, or unknown. */
static char *start_where[MAX_THREADS];
static unsigned line_shift = 6;
static volatile unsigned current_region;
static const void *region_code[MAX_REGIONS];
static char *region_name[MAX_REGIONS];
static unsigned n_regions = 1;
static pthread_mutex_t region_lock = PTHREAD_MUTEX_INITIALIZER;

static Table *table_at(unsigned index) {
  if (index >= MAX_THREADS) return NULL;
  if (!tables[index]) tables[index] = calloc_or_die(1, sizeof(Table));
  return tables[index];
}

static inline Table *my_table(void) {
  if (!mine) { /* the main thread, or a thread not created through pthread_create */
    my_index = getpid() == gettid() ? 0 : (int)__atomic_fetch_add(&n_threads, 1, __ATOMIC_RELAXED);
    mine = table_at((unsigned)my_index);
  }
  return mine;
}

/* Everything but the common case: a thread's first access, an access across
 * lines, a page not in the cache. */
__attribute__((noinline)) static void record_slow(const void *addr, size_t size, int write) {
  Table *t = my_table();
  if (t) lc_count(t, (uintptr_t)addr, size, line_shift, current_region, write);
}

/* The common case with no call and no spilled register: one line, its page
 * in the running thread's cache; the rest is a tail call. */
__attribute__((always_inline)) static inline void record(const void *addr, size_t size, int write) {
  if (!SP_TSAN_COUNT) return;
  Table *t = mine;
  uintptr_t a = (uintptr_t)addr;
  uint64_t line = a >> line_shift;
  uint32_t region = current_region; /* once: the counter and its overflow are one page's */
  uint16_t *n = t && size && ((a + size - 1) >> line_shift) == line ? lc_cached(t, line, region, write) : NULL;
  if (!n) {
    record_slow(addr, size, write);
    return;
  }
  lc_bump(t, n, line, region, write);
}

/* ---- threads in creation order ------------------------------------------ */

struct start {
  void *(*fn)(void *);
  void *arg;
  unsigned index;
};

static void *started(void *p) {
  struct start s = *(struct start *)p;
  free(p);
  my_index = (int)s.index;
  mine = table_at(s.index);
  return s.fn(s.arg);
}

int pthread_create(pthread_t *th, const pthread_attr_t *attr, void *(*fn)(void *), void *arg) {
  static int (*real)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);
  if (!real) real = dlsym(RTLD_NEXT, "pthread_create");
  struct start *s = malloc(sizeof *s);
  if (!s) return real(th, attr, fn, arg);
  my_table(); /* the creator has its index before its children */
  s->fn = fn, s->arg = arg, s->index = __atomic_fetch_add(&n_threads, 1, __ATOMIC_RELAXED);
  if (s->index < MAX_THREADS) {
    creator_plus_one[s->index] = my_index + 1, start_routine[s->index] = (void *)fn;
    char where[256];
    if (sp_library_offset((void *)fn, where, sizeof where) == 0) start_where[s->index] = strdup(where);
  }
  int rc = real(th, attr, started, s);
  if (rc) free(s);
  return rc;
}

/* ---- regions ------------------------------------------------------------ */

void slurm_pin_region_begin(const void *code, const char *name) {
  pthread_mutex_lock(&region_lock);
  unsigned id = 0;
  for (unsigned i = 1; i < n_regions && !id; ++i)
    if ((code && region_code[i] == code) || (!code && name && region_name[i] && !strcmp(region_name[i], name)))
      id = i;
  if (!id && n_regions < MAX_REGIONS) {
    id = n_regions++;
    region_code[id] = code;
    region_name[id] = name ? strdup(name) : NULL;
  }
  current_region = id;
  pthread_mutex_unlock(&region_lock);
}

void slurm_pin_region_end(void) { current_region = 0; }

/* GCC's OpenMP regions: libgomp's GOMP_parallel, named by the outlined function. */
void GOMP_parallel(void (*fn)(void *), void *data, unsigned n, unsigned flags) {
  static void (*real)(void (*)(void *), void *, unsigned, unsigned);
  if (!real) real = dlsym(RTLD_NEXT, "GOMP_parallel");
  slurm_pin_region_begin((const void *)fn, NULL);
  real(fn, data, n, flags);
  slurm_pin_region_end();
}

/* ---- the sums (and the raw trace on request) ---------------------------- */

struct out {
  FILE *f;
  unsigned thread;
};

static void write_line(void *ctx, uint64_t line, uint32_t region, uint64_t reads, uint64_t writes) {
  struct out *o = ctx;
  fprintf(o->f, "a %u %u %lu %lu %lu\n", o->thread, region, (unsigned long)line, (unsigned long)reads,
          (unsigned long)writes);
}

static void put_text(void *ctx, const char *text) { fputs(text, (FILE *)ctx); }

/* Where a region's code is, for `slurm-pin profile` to turn into file:line
 * (addr2line): the object and the address addr2line takes (an offset in a
 * position-independent object). A return address (an OMPT call site, named
 * "fn+off") stands for the call before it. */
static void write_code(FILE *f, unsigned region, const void *code, int return_address) {
  Dl_info info;
  if (!code || !dladdr(code, &info) || !info.dli_fname || !info.dli_fbase) return;
  const unsigned char *base = info.dli_fbase;
  uintptr_t at = (uintptr_t)code - (return_address ? 1 : 0);
  if (memcmp(base, "\177ELF", 4) == 0 && ((const ElfW(Ehdr) *)base)->e_type == ET_DYN) at -= (uintptr_t)base;
  char object[PATH_MAX];
  if (!realpath(info.dli_fname, object)) snprintf(object, sizeof object, "%s", info.dli_fname);
  if (strpbrk(object, " \t\n")) return; /* one word in the header */
  fprintf(f, "code %u %s 0x%lx\n", region, object, (unsigned long)at);
}

/* Names are one word in the header. */
static void one_word(char *s) {
  for (; *s; ++s)
    if (*s == ' ' || *s == '\t') *s = '_';
}

/* Header shared by the sums and the raw trace (docs/profiler.md). */
static void write_header(FILE *f, const char *magic, unsigned threads) {
  fprintf(f, "%s 1\ntool compiler tsan-hooks\nline_size %u\nthreads %u\n", magic, 1u << line_shift, threads);
  for (unsigned t = 0; t < threads; ++t) {
    char start[512] = "-";
    if (t == 0) snprintf(start, sizeof start, "main");
    else if (start_routine[t]) {
      Dl_info info;
      if (start_where[t] && !dladdr(start_routine[t], &info)) snprintf(start, sizeof start, "%s", start_where[t]);
      else sp_region_name(start_routine[t], start, sizeof start);
    }
    one_word(start);
    if (creator_plus_one[t]) fprintf(f, "thread %u %d %s\n", t, creator_plus_one[t] - 1, start);
    else fprintf(f, "thread %u - %s\n", t, start);
  }
  fprintf(f, "region 0 serial\n");
  for (unsigned r = 1; r < n_regions; ++r) {
    char name[512];
    if (region_name[r]) snprintf(name, sizeof name, "%s", region_name[r]);
    else sp_region_name(region_code[r], name, sizeof name); /* as the pinning library names it */
    one_word(name);
    fprintf(f, "region %u %s\n", r, name);
    write_code(f, r, region_code[r], strchr(name, '+') != NULL);
  }
}

/* The path in `variable`; its first "%p" is the process id, so that every
 * process of a run (the ranks of an MPI program) writes its own file. */
static FILE *open_output(const char *variable, const char *fallback_kind) {
  const char *path = getenv(variable);
  char fallback[64], expanded[4096];
  if (!path || !*path) {
    if (!fallback_kind) return NULL;
    snprintf(fallback, sizeof fallback, "slurmpin.%d.%s", (int)getpid(), fallback_kind), path = fallback;
  }
  const char *pid = strstr(path, "%p");
  if (pid && (size_t)snprintf(expanded, sizeof expanded, "%.*s%d%s", (int)(pid - path), path, (int)getpid(),
                              pid + 2) < sizeof expanded)
    path = expanded;
  FILE *f = fopen(path, "w");
  if (!f) fprintf(stderr, "slurm-pin: error: cannot write %s\n", path);
  return f;
}

static void write_results(void) {
  unsigned threads = n_threads < MAX_THREADS ? n_threads : MAX_THREADS;
  FILE *f = open_output("SLURM_PIN_TRACE", NULL);
  if (f) {
    write_header(f, "slurm-pin-trace", threads);
    for (unsigned t = 0; t < threads; ++t)
      if (tables[t]) {
        struct out o = {f, t};
        lc_for_each(tables[t], write_line, &o);
      }
    fprintf(f, "end\n"); /* a complete file (docs/profiler.md) */
    fclose(f);
  }
  if (!(f = open_output("SLURM_PIN_SHARING", "sharing"))) return;
  SharingSums sums;
  memset(&sums, 0, sizeof sums);
  ss_compute(&sums, tables, threads, n_regions);
  write_header(f, "slurm-pin-sharing", threads);
  ss_write(&sums, put_text, f);
  ss_free(&sums);
  fprintf(f, "end\n");
  fclose(f);
}

/* ---- progress ------------------------------------------------------------ */

/* A line on stderr every $SLURM_PIN_PROGRESS seconds (default 5, 0: none),
 * from a timer thread glibc starts itself: it runs no instrumented code, so
 * it is no thread of the profile. */
static struct timespec run_start;

static void progress(union sigval unused) {
  (void)unused;
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  char line[160];
  int n = snprintf(line, sizeof line, "slurm-pin: profiling: %ld s, %u threads, %zu MiB of line tables\n",
                   (long)(now.tv_sec - run_start.tv_sec), __atomic_load_n(&n_threads, __ATOMIC_RELAXED),
                   __atomic_load_n(&table_bytes, __ATOMIC_RELAXED) >> 20);
  if (n > 0) (void)!write(2, line, (size_t)n);
}

static void start_progress(void) {
  const char *env = getenv("SLURM_PIN_PROGRESS");
  long every = env && *env ? atol(env) : 5;
  if (every <= 0) return;
  clock_gettime(CLOCK_MONOTONIC, &run_start);
  struct sigevent ev;
  memset(&ev, 0, sizeof ev);
  ev.sigev_notify = SIGEV_THREAD;
  ev.sigev_notify_function = progress;
  timer_t timer;
  if (timer_create(CLOCK_MONOTONIC, &ev, &timer) != 0) return;
  struct itimerspec period = {{every, 0}, {every, 0}};
  timer_settime(timer, 0, &period, NULL);
}

void __tsan_init(void) {
  static int done;
  if (done++) return;
  const char *ls = getenv("SLURM_PIN_LINE_SIZE");
  if (ls) {
    unsigned v = (unsigned)atoi(ls), s = 0;
    while ((1u << s) < v) ++s;
    if ((1u << s) == v && v >= 8 && v <= 4096) line_shift = s;
  }
  atexit(write_results);
  start_progress();
}

/* ---- the hooks the compiler emits ----------------------------------------- */

#define ACCESS_HOOKS(n)                                                              \
  void __tsan_read##n(void *a) { record(a, n, 0); }                                  \
  void __tsan_write##n(void *a) { record(a, n, 1); }                                 \
  void __tsan_unaligned_read##n(void *a) { record(a, n, 0); }                        \
  void __tsan_unaligned_write##n(void *a) { record(a, n, 1); }                       \
  void __tsan_volatile_read##n(void *a) { record(a, n, 0); }                         \
  void __tsan_volatile_write##n(void *a) { record(a, n, 1); }                        \
  void __tsan_unaligned_volatile_read##n(void *a) { record(a, n, 0); }               \
  void __tsan_unaligned_volatile_write##n(void *a) { record(a, n, 1); }              \
  void __tsan_read##n##_pc(void *a, void *pc) { (void)pc, record(a, n, 0); }         \
  void __tsan_write##n##_pc(void *a, void *pc) { (void)pc, record(a, n, 1); }
ACCESS_HOOKS(1)
ACCESS_HOOKS(2)
ACCESS_HOOKS(4)
ACCESS_HOOKS(8)
ACCESS_HOOKS(16)

void __tsan_read_range(void *a, unsigned long size) { record(a, size, 0); }
void __tsan_write_range(void *a, unsigned long size) { record(a, size, 1); }
void __tsan_func_entry(void *pc) { (void)pc; }
void __tsan_func_exit(void) {}
void __tsan_vptr_read(void **p) { record(p, sizeof *p, 0); }
void __tsan_vptr_update(void **p, void *v) { (void)v, record(p, sizeof *p, 1); }

void *__tsan_memcpy(void *d, const void *s, unsigned long n) {
  record(s, n, 0), record(d, n, 1);
  return memcpy(d, s, n);
}
void *__tsan_memmove(void *d, const void *s, unsigned long n) {
  record(s, n, 0), record(d, n, 1);
  return memmove(d, s, n);
}
void *__tsan_memset(void *d, int c, unsigned long n) {
  record(d, n, 1);
  return memset(d, c, n);
}

/* Atomics: recorded, then performed (sequentially consistent: never weaker
 * than what the program asked for). */
#define ATOMIC_HOOKS(bits, T)                                                                              \
  T __tsan_atomic##bits##_load(const volatile T *a, int mo) {                                              \
    (void)mo, record((const void *)a, sizeof(T), 0);                                                       \
    return __atomic_load_n(a, __ATOMIC_SEQ_CST);                                                           \
  }                                                                                                        \
  void __tsan_atomic##bits##_store(volatile T *a, T v, int mo) {                                           \
    (void)mo, record((const void *)a, sizeof(T), 1);                                                       \
    __atomic_store_n(a, v, __ATOMIC_SEQ_CST);                                                              \
  }                                                                                                        \
  RMW(bits, T, exchange, __atomic_exchange_n(a, v, __ATOMIC_SEQ_CST))                                      \
  RMW(bits, T, fetch_add, __atomic_fetch_add(a, v, __ATOMIC_SEQ_CST))                                      \
  RMW(bits, T, fetch_sub, __atomic_fetch_sub(a, v, __ATOMIC_SEQ_CST))                                      \
  RMW(bits, T, fetch_and, __atomic_fetch_and(a, v, __ATOMIC_SEQ_CST))                                      \
  RMW(bits, T, fetch_or, __atomic_fetch_or(a, v, __ATOMIC_SEQ_CST))                                        \
  RMW(bits, T, fetch_xor, __atomic_fetch_xor(a, v, __ATOMIC_SEQ_CST))                                      \
  RMW(bits, T, fetch_nand, __atomic_fetch_nand(a, v, __ATOMIC_SEQ_CST))                                    \
  int __tsan_atomic##bits##_compare_exchange_strong(volatile T *a, T *c, T v, int mo, int fmo) {           \
    (void)mo, (void)fmo, record((const void *)a, sizeof(T), 0), record((const void *)a, sizeof(T), 1);     \
    return __atomic_compare_exchange_n(a, c, v, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);                    \
  }                                                                                                        \
  int __tsan_atomic##bits##_compare_exchange_weak(volatile T *a, T *c, T v, int mo, int fmo) {             \
    (void)mo, (void)fmo, record((const void *)a, sizeof(T), 0), record((const void *)a, sizeof(T), 1);     \
    return __atomic_compare_exchange_n(a, c, v, 1, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);                    \
  }                                                                                                        \
  T __tsan_atomic##bits##_compare_exchange_val(volatile T *a, T c, T v, int mo, int fmo) {                 \
    (void)mo, (void)fmo, record((const void *)a, sizeof(T), 0), record((const void *)a, sizeof(T), 1);     \
    __atomic_compare_exchange_n(a, &c, v, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);                          \
    return c;                                                                                              \
  }
#define RMW(bits, T, op, expr)                                                                             \
  T __tsan_atomic##bits##_##op(volatile T *a, T v, int mo) {                                               \
    (void)mo, record((const void *)a, sizeof(T), 0), record((const void *)a, sizeof(T), 1);                \
    return expr;                                                                                           \
  }
ATOMIC_HOOKS(8, char)
ATOMIC_HOOKS(16, short)
ATOMIC_HOOKS(32, int)
ATOMIC_HOOKS(64, long)
/* 16-byte atomics are done through libatomic's lock when the CPU has no
 * lock-free ones, as the program's own would be: what clang warns about is
 * the program's choice, not ours. */
#if defined(__clang__)
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Watomic-alignment"
#endif
ATOMIC_HOOKS(128, __int128)
#if defined(__clang__)
#pragma clang diagnostic pop
#endif

void __tsan_atomic_thread_fence(int mo) {
  (void)mo;
  __atomic_thread_fence(__ATOMIC_SEQ_CST);
}
void __tsan_atomic_signal_fence(int mo) {
  (void)mo;
  __atomic_signal_fence(__ATOMIC_SEQ_CST);
}
