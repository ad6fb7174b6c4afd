/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A 3-D 7-point Jacobi sweep, the shape of a multigrid smoother or a
 * hydrodynamics proxy: two N^3 grids of doubles (N=256: 256 MiB), split
 * into slabs along z by OpenMP's static schedule. Each thread reads the
 * boundary planes of its two neighbours' slabs, so the sharing of the
 * parallel part is a chain: thread t with t-1 and t+1. The grids are set up
 * by the main thread alone (serial code), which a whole-run matrix would
 * show as a hub at thread 0.
 *   stencil3d [N] [SWEEPS]
 */
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
  long n = argc > 1 ? atol(argv[1]) : 256, sweeps = argc > 2 ? atol(argv[2]) : 4;
  if (n < 4 || n > 2048 || sweeps < 1) {
    fprintf(stderr, "usage: stencil3d [N 4-2048] [SWEEPS]\n");
    return 2;
  }
  size_t cells = (size_t)n * n * n;
  double *a = malloc(cells * sizeof(double)), *b = malloc(cells * sizeof(double));
  if (!a || !b) {
    fprintf(stderr, "stencil3d: out of memory for N=%ld\n", n);
    return 1;
  }
  for (size_t i = 0; i < cells; ++i) a[i] = (double)(i % 97), b[i] = 0; /* serial set-up */
#define AT(g, z, y, x) g[((size_t)(z) * n + (y)) * n + (x)]
  for (long s = 0; s < sweeps; ++s) {
    double *from = s % 2 ? b : a, *to = s % 2 ? a : b;
#pragma omp parallel for schedule(static)
    for (long z = 1; z < n - 1; ++z)
      for (long y = 1; y < n - 1; ++y)
        for (long x = 1; x < n - 1; ++x)
          AT(to, z, y, x) = (AT(from, z - 1, y, x) + AT(from, z + 1, y, x) + AT(from, z, y - 1, x) +
                             AT(from, z, y + 1, x) + AT(from, z, y, x - 1) + AT(from, z, y, x + 1)) / 6.0;
  }
  double sum = 0;
  for (size_t i = 0; i < cells; i += 4099) sum += (sweeps % 2 ? b : a)[i];
  printf("checksum %.6f\n", sum);
  free(a);
  free(b);
  return 0;
}
