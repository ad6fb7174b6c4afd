/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Two OpenMP parallel regions whose threads share in different pairs (for 8
 * threads): region 1 pairs (0,4) (1,5) (2,6) (3,7), region 2 pairs (0,1)
 * (2,3) (4,5) (6,7). In each region every thread writes then reads the block
 * it shares with its partner; a barrier separates the two halves.
 *   omp_two_regions [ROUNDS] [KIB_PER_BLOCK]
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

static long *blocks;
static size_t words = 2048;

/* Each thread touches half of its pair's block, writing it, then reads all of it. */
static void share(int block, int half, long *sum) {
  long *b = blocks + (size_t)block * words;
  for (size_t i = half * words / 2; i < (half + 1) * words / 2; ++i) b[i] += (long)i;
#pragma omp barrier
  for (size_t i = 0; i < words; ++i) *sum += b[i];
#pragma omp barrier
}

int main(int argc, char **argv) {
  int rounds = argc > 1 ? atoi(argv[1]) : 10;
  if (argc > 2) words = (size_t)atol(argv[2]) * 1024 / sizeof(long);
  int n = omp_get_max_threads();
  blocks = aligned_alloc(64, (size_t)n * words * sizeof(long) + 64);
  for (size_t i = 0; i < (size_t)n * words; ++i) blocks[i] = 0;
  long total = 0;
  for (int r = 0; r < rounds; ++r) {
#pragma omp parallel reduction(+ : total)
    { /* region 1: thread t with t + n/2 */
      int t = omp_get_thread_num(), half = n / 2;
      share(t % half, t / half, &total);
    }
#pragma omp parallel reduction(+ : total)
    { /* region 2: thread t with t ^ 1 */
      int t = omp_get_thread_num();
      share(n / 2 + t / 2, t % 2, &total);
    }
  }
  printf("total %ld\n", total);
  return 0;
}
