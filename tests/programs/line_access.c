/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Known accesses to four 64-byte lines, for the profiler's exactness test.
 * Prints the number of the first line (address / 64).
 *   thread 0 (main): 1000 reads of line 0, 500 writes of line 1,
 *                    10 8-byte reads straddling lines 2 and 3,
 *                    7 atomic adds and 5 compare-and-swaps on line 3 (a read
 *                    and a write each)
 *   thread 1:        300 writes of line 0, 20 reads of line 2
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>

static _Alignas(64) char lines[4 * 64];

static void *second(void *unused) {
  (void)unused;
  volatile uint64_t *l0 = (volatile uint64_t *)lines, *l2 = (volatile uint64_t *)(lines + 128);
  uint64_t sum = 0;
  for (int i = 0; i < 300; ++i) *l0 = (uint64_t)i;
  for (int i = 0; i < 20; ++i) sum += *l2;
  return (void *)(uintptr_t)sum;
}

int main(void) {
  volatile uint64_t *l0 = (volatile uint64_t *)lines, *l1 = (volatile uint64_t *)(lines + 64);
  volatile uint64_t *across = (volatile uint64_t *)(lines + 188); /* bytes 188-195: lines 2 and 3 */
  uint64_t *l3 = (uint64_t *)(lines + 200), sum = 0;
  for (int i = 0; i < 1000; ++i) sum += *l0;
  for (int i = 0; i < 500; ++i) *l1 = (uint64_t)i;
  for (int i = 0; i < 10; ++i) sum += *across;
  for (int i = 0; i < 7; ++i) __atomic_fetch_add(l3, 1, __ATOMIC_SEQ_CST);
  for (uint64_t i = 0, expected = 7; i < 5; ++i, ++expected)
    __atomic_compare_exchange_n(l3, &expected, expected + 1, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
  pthread_t t;
  void *r;
  pthread_create(&t, NULL, second, NULL);
  pthread_join(t, &r);
  printf("%lu\n", (unsigned long)((uintptr_t)lines / 64) + (unsigned long)(sum & 0) + (unsigned long)((uintptr_t)r & 0));
  return 0;
}
