/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Two parallel regions from one source line (a macro that repeats its
 * construct, as unrolling or inlining repeats one for a compiler): the
 * compiler makes two regions, the profiler merges them into one region of
 * that line, whose other call site is an alias. Threads share in pairs
 * (t, t ^ 1) in both.
 *   omp_one_line [ROUNDS]
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

#define TWICE(x) x x
static long cells[64][8];

static void work(int rounds) {
  int t = omp_get_thread_num();
  for (int r = 0; r < rounds; ++r)
    for (int i = 0; i < 8; ++i) cells[t & ~1][i] += t;
}

int main(int argc, char **argv) {
  int rounds = argc > 1 ? atoi(argv[1]) : 1000;
  TWICE(_Pragma("omp parallel") work(rounds);)
  printf("%ld\n", cells[0][0]);
  return 0;
}
