/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A 3-D Jacobi stencil (7 points) with OpenMP, in two schedules (seed 004):
 *  - static: each thread owns a block of z-planes, every iteration;
 *  - hybrid: each thread first computes the static share (1 - f) of its own
 *    block, then takes planes from a queue: its own block's remaining planes
 *    first (locality), then the nearest threads' (stealing). A thread slowed
 *    by OS noise then costs the step less than under static.
 *   jacobi3d N ITERATIONS static|hybrid [F (default 0.25)]
 * Prints "time: S" (the iterations only) and a checksum of the grid.
 */
#include <omp.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int n;
#define AT(g, z, y, x) ((g)[((size_t)(z) * n + (y)) * n + (x)])

static void plane(const double *in, double *out, int z) {
  for (int y = 1; y < n - 1; ++y)
    for (int x = 1; x < n - 1; ++x)
      AT(out, z, y, x) = (AT(in, z, y, x) + AT(in, z - 1, y, x) + AT(in, z + 1, y, x) + AT(in, z, y - 1, x) +
                          AT(in, z, y + 1, x) + AT(in, z, y, x - 1) + AT(in, z, y, x + 1)) / 7.0;
}

/* Thread t's block of the interior planes 1..n-2. */
static void block(int t, int threads, int *lo, int *hi) {
  int planes = n - 2;
  *lo = 1 + (int)((long)planes * t / threads);
  *hi = 1 + (int)((long)planes * (t + 1) / threads);
}

int main(int argc, char **argv) {
  if (argc < 4 || (strcmp(argv[3], "static") != 0 && strcmp(argv[3], "hybrid") != 0)) {
    fprintf(stderr, "usage: jacobi3d N ITERATIONS static|hybrid [DYNAMIC_FRACTION]\n");
    return 2;
  }
  n = atoi(argv[1]);
  int iterations = atoi(argv[2]), hybrid = strcmp(argv[3], "hybrid") == 0;
  double f = argc > 4 ? atof(argv[4]) : 0.25;
  if (n < 3 || n > 2048 || iterations < 1 || f < 0 || f > 1) {
    fprintf(stderr, "jacobi3d: N in 3..2048, ITERATIONS >= 1, F in [0, 1]\n");
    return 2;
  }
  size_t cells = (size_t)n * n * n;
  double *a = malloc(cells * sizeof *a), *b = malloc(cells * sizeof *b);
  int threads = omp_get_max_threads();
  atomic_int *next = malloc(sizeof *next * (size_t)threads);
  if (!a || !b || !next) return perror("jacobi3d"), 1;
#pragma omp parallel for schedule(static)
  for (int z = 0; z < n; ++z) /* first touch by the thread that computes the plane */
    for (int y = 0; y < n; ++y)
      for (int x = 0; x < n; ++x) AT(a, z, y, x) = AT(b, z, y, x) = (z == 0 || y == 0 || x == 0) ? 1.0 : 0.0;

  double t0 = omp_get_wtime();
  for (int it = 0; it < iterations; ++it) {
    if (hybrid)
      for (int t = 0; t < threads; ++t) {
        int lo, hi;
        block(t, threads, &lo, &hi);
        atomic_store(&next[t], lo + (int)((hi - lo) * (1 - f)));
      }
#pragma omp parallel
    {
      int t = omp_get_thread_num(), lo, hi;
      block(t, threads, &lo, &hi);
      if (!hybrid) {
        for (int z = lo; z < hi; ++z) plane(a, b, z);
      } else {
        int split = lo + (int)((hi - lo) * (1 - f));
        for (int z = lo; z < split; ++z) plane(a, b, z);
        /* Own queue first, then the nearest threads' (t+1, t-1, t+2, ...). */
        for (int k = 0; k < 2 * threads; ++k) {
          int d = (k + 1) / 2, v = k % 2 ? t + d : t - d;
          if (k > 0 && (d >= threads || v < 0 || v >= threads)) continue;
          if (k == 0) v = t;
          int vlo, vhi;
          block(v, threads, &vlo, &vhi);
          for (int z; (z = atomic_fetch_add(&next[v], 1)) < vhi;) plane(a, b, z);
        }
      }
    }
    double *s = a;
    a = b;
    b = s;
  }
  double seconds = omp_get_wtime() - t0;
  double sum = 0;
  for (size_t i = 0; i < cells; ++i) sum += a[i];
  printf("time: %.6f\nchecksum: %.6e\nthreads: %d schedule: %s\n", seconds, sum, threads, argv[3]);
  return 0;
}
