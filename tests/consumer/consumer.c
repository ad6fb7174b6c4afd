/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A program outside slurm-pin that uses its C API through the installed
 * library: built by the install tests with pkg-config and with CMake. */
#include <stdio.h>

#include <slurm_pin/slurm_pin.h>

int main(void) {
  sp_placement_t *p = sp_init();
  char cpus[64];
  hwloc_const_bitmap_t set;
  if (!p || sp_set_topology(p, "pack:2 core:2 pu:1") || sp_set_strategy(p, "scatter") || sp_set_threads(p, 4) ||
      sp_compute(p)) {
    fprintf(stderr, "consumer: %s\n", sp_error(p));
    return 1;
  }
  for (int i = 0; i < sp_get_nthreads(p); ++i) {
    /* CPU sets are hwloc bitmaps: hwloc comes with the library's flags. */
    if (!(set = sp_get_thread_cpuset(p, 0, i)) || hwloc_bitmap_list_snprintf(cpus, sizeof cpus, set) < 0) return 1;
    printf("%s%s", i ? " " : "", cpus);
  }
  printf("\n");
  sp_finalize(p);
  return 0;
}
