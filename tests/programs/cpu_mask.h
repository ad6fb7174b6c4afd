/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The calling thread's CPU affinity as "0,2,5", for the test programs. */
#ifndef SLURM_PIN_TEST_CPU_MASK_H
#define SLURM_PIN_TEST_CPU_MASK_H

#include <sched.h>
#include <stdio.h>

static void own_cpu_mask(char *buf, size_t len) {
  cpu_set_t set;
  size_t pos = 0;
  buf[0] = '\0';
  if (sched_getaffinity(0, sizeof set, &set) != 0) return;
  for (int c = 0; c < CPU_SETSIZE && pos < len; ++c)
    if (CPU_ISSET(c, &set)) pos += (size_t)snprintf(buf + pos, len - pos, pos ? ",%d" : "%d", c);
}

#endif
