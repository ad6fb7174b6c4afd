/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A compression-style pthread pipeline (pigz, xz): the main thread reads
 * chunks into input buffers, workers transform them into output buffers,
 * and a writer helper thread consumes the outputs in order. The writer is
 * created first, as pigz creates its helpers; workers are created on
 * demand, when the first chunk for them has been read, up to
 * OMP_NUM_THREADS (default 4), as xz does. Worker k owns slot k (its input
 * and output buffers) and takes chunks k, k + W, ...
 * Sharing: the reader (thread 0) with every worker (input buffers), every
 * worker with the writer (thread 1, outputs); workers with each other only
 * through the lock's line.
 *   pipeline [CHUNKS] [KIB_PER_CHUNK]
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

enum { FREE, READ, DONE };

static long chunks = 64, words = 16384; /* 128 KiB of longs per chunk */
static long max_workers = 4, workers, finished;
static long **in, **out, *state;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t changed = PTHREAD_COND_INITIALIZER;

static void wait_for(long s, long want) {
  pthread_mutex_lock(&lock);
  while (state[s] != want && !(want == READ && finished)) pthread_cond_wait(&changed, &lock);
  pthread_mutex_unlock(&lock);
}

static void set(long s, long value) {
  pthread_mutex_lock(&lock);
  state[s] = value;
  pthread_cond_broadcast(&changed);
  pthread_mutex_unlock(&lock);
}

static void *worker(void *slot) {
  long s = (long)slot;
  for (long c = s; c < chunks; c += max_workers) {
    wait_for(s, READ);
    /* Locals: an instrumented build would otherwise reload in[s], out[s]
     * and words on every access (and count those globals as shared). */
    const long *src = in[s], n = words;
    long *dst = out[s];
    for (long i = 0; i < n; ++i) dst[i] = src[i] * 31 + (src[(i + 1) % n] >> 3);
    set(s, DONE);
  }
  return NULL;
}

static void *writer(void *sum) {
  long total = 0;
  for (long c = 0; c < chunks; ++c) {
    long s = c % max_workers;
    wait_for(s, DONE);
    const long *src = out[s], n = words;
    for (long i = 0; i < n; ++i) total += src[i];
    set(s, FREE);
  }
  *(long *)sum = total;
  return NULL;
}

int main(int argc, char **argv) {
  if (argc > 1) chunks = atol(argv[1]);
  if (argc > 2) words = atol(argv[2]) * 1024 / (long)sizeof(long);
  const char *omp = getenv("OMP_NUM_THREADS");
  if (omp && atol(omp) > 0) max_workers = atol(omp) < 1024 ? atol(omp) : 1024;
  if (chunks < 1 || words < 8) return 2;
  in = calloc(max_workers, sizeof *in), out = calloc(max_workers, sizeof *out);
  state = calloc(max_workers, sizeof *state);
  pthread_t *threads = calloc(max_workers, sizeof *threads);
  for (long s = 0; s < max_workers; ++s) in[s] = malloc(words * sizeof(long)), out[s] = malloc(words * sizeof(long));
  long total = 0;
  pthread_t w;
  pthread_create(&w, NULL, writer, &total);
  for (long c = 0; c < chunks; ++c) {
    long s = c % max_workers;
    wait_for(s, FREE);
    long *dst = in[s], n = words;
    for (long i = 0; i < n; ++i) dst[i] = c * n + i; /* "read" the chunk */
    set(s, READ);
    if (s == workers) pthread_create(&threads[workers++], NULL, worker, (void *)s); /* on demand */
  }
  for (long i = 0; i < workers; ++i) pthread_join(threads[i], NULL);
  pthread_join(w, NULL);
  printf("pipeline %ld chunks, %ld workers, checksum %ld\n", chunks, workers, total);
  return 0;
}
