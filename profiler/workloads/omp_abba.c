/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * C = A x B + B x A with a block-diagonal B (seed 001 section 6.4.1): groups
 * of four threads share one diagonal block of B, and the groups differ
 * between the two products (two parallel regions).
 *
 * With T threads B has T/4 diagonal blocks.
 *  - A x B: column j of the result reads only the block of B holding column
 *    j. Thread t computes a quarter of the columns of block t / 4: groups
 *    {0,1,2,3}, {4,5,6,7}, ...
 *  - B x A: row i reads only the block of B holding row i. Thread t computes
 *    a quarter of the rows of block t % (T/4): groups {0,2,4,6}, {1,3,5,7}
 *    for eight threads.
 *   omp_abba [N]   (N divisible by T)
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 64;
  int threads = omp_get_max_threads();
  int nblocks = threads >= 4 ? threads / 4 : 1;
  int bs = n / nblocks, chunk = bs / 4 > 0 ? bs / 4 : 1;
  double *A = malloc(sizeof(double) * n * n), *B = calloc((size_t)n * n, sizeof(double)),
         *C = calloc((size_t)n * n, sizeof(double));
  for (int i = 0; i < n * n; ++i) A[i] = (i % 7) * 0.5;
  for (int b = 0; b < nblocks; ++b)
    for (int i = 0; i < bs; ++i)
      for (int j = 0; j < bs; ++j) B[(b * bs + i) * n + b * bs + j] = (i + j) % 3 + 1;

#pragma omp parallel
  { /* A x B, by columns of block t / 4 */
    int t = omp_get_thread_num(), b = (t / 4) % nblocks, first = b * bs + (t % 4) * chunk;
    for (int j = first; j < first + chunk; ++j)
      for (int i = 0; i < n; ++i) {
        double s = 0;
        for (int k = b * bs; k < (b + 1) * bs; ++k) s += A[i * n + k] * B[k * n + j];
        C[i * n + j] += s;
      }
  }
#pragma omp parallel
  { /* B x A, by rows of block t % nblocks */
    int t = omp_get_thread_num(), b = t % nblocks, first = b * bs + ((t / nblocks) % 4) * chunk;
    for (int i = first; i < first + chunk; ++i)
      for (int j = 0; j < n; ++j) {
        double s = 0;
        for (int k = b * bs; k < (b + 1) * bs; ++k) s += B[i * n + k] * A[k * n + j];
        C[i * n + j] += s;
      }
  }
  double sum = 0;
  for (int i = 0; i < n * n; ++i) sum += C[i];
  printf("sum %.1f\n", sum);
  free(A), free(B), free(C);
  return 0;
}
