/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Accesses that take the recorders off their common path, for the
 * profiler's exactness test: counters past their limit (32767), accesses
 * of 2, 4 and 8 bytes across a line boundary, and a walk over more pages
 * than the page cache holds, three times (every page evicted before it
 * comes back); a walk through 16 lines and 8-byte reads across the line
 * between its 8th and 9th (the Valgrind tool's sites count blocks of 8
 * lines: this crosses into the next block); a line read through an index
 * read from memory past the counters' limit, and the walk's third round so
 * (the tool counts such gathers in its table directly).
 * Prints the number (address / 64) of the hot line, of the first of the two
 * lines crossed, of the walk's first line (the walk's lines are 1024 lines
 * apart), of the 16 lines' first and of the gathered line.
 *   hot line:     70000 reads, 140000 writes
 *   crossed:      each of the two lines 200 reads (2 and 4 bytes), 100 writes (8 bytes)
 *   walk:         1024 lines, 3 reads each
 *   16 lines:     16 reads each, and 100 more on the 8th and the 9th
 *   gathered:     70000 reads
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

enum { WALK = 1024, STRIDE = 1024 * 64 };

static _Alignas(64) uint64_t hot[8];
static _Alignas(64) char crossed[128];
static _Alignas(512) uint64_t blocks[128]; /* 16 lines */
static _Alignas(64) uint64_t gathered[8];
static volatile size_t zero; /* an index read from memory: every access through it is a gather */
static volatile uint64_t sink; /* keeps every load live: Valgrind drops a load whose value nothing uses */

int main(void) {
  volatile uint64_t *h = hot;
  uint64_t sum = 0;
  for (int i = 0; i < 70000; ++i) sum += h[0];
  for (int i = 0; i < 140000; ++i) h[1] = (uint64_t)i;
  for (int i = 0; i < 100; ++i) {
    sum += *(volatile uint16_t *)(crossed + 63);
    sum += *(volatile uint32_t *)(crossed + 62);
    *(volatile uint64_t *)(crossed + 60) = (uint64_t)i;
  }
  volatile uint64_t *b = blocks;
  for (int round = 0; round < 2; ++round)
    for (int i = 0; i < 128; ++i) sum += b[i];
  for (int i = 0; i < 100; ++i) sum += *(volatile uint64_t *)((char *)blocks + 508);
  volatile char *walk = aligned_alloc(STRIDE, (size_t)WALK * STRIDE);
  if (!walk) return 1;
  for (int i = 0; i < 70000; ++i) sum += gathered[zero];
  for (int round = 0; round < 2; ++round)
    for (size_t k = 0; k < WALK; ++k) sum += walk[k * STRIDE];
  for (size_t k = 0; k < WALK; ++k) sum += walk[k * STRIDE + zero];
  sink = sum;
  printf("%lu %lu %lu %lu %lu\n", (unsigned long)((uintptr_t)hot / 64), (unsigned long)((uintptr_t)crossed / 64),
         (unsigned long)((uintptr_t)walk / 64), (unsigned long)((uintptr_t)blocks / 64),
         (unsigned long)((uintptr_t)gathered / 64));
  return 0;
}
