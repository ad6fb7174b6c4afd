/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A program outside slurm-pin that uses its C API through the installed
 * library: built by the install tests with pkg-config and with CMake. */
#include <stdio.h>

#include <slurm_pin/slurm_pin.h>

/* Each thread's CPUs on one line. CPU sets are hwloc bitmaps: hwloc comes
 * with the library's flags. */
static int print_threads(sp_placement_t *p) {
  char cpus[64];
  hwloc_const_bitmap_t set;
  for (int i = 0; i < sp_get_nthreads(p); ++i) {
    if (!(set = sp_get_thread_cpuset(p, 0, i)) || hwloc_bitmap_list_snprintf(cpus, sizeof cpus, set) < 0) return 1;
    printf("%s%s", i ? " " : "", cpus);
  }
  printf("\n");
  return 0;
}

int main(void) {
  sp_placement_t *p = sp_init();
  if (!p || sp_set_topology(p, "pack:2 core:2 pu:1") || sp_set_strategy(p, "scatter") || sp_set_threads(p, 4) ||
      sp_compute(p) || print_threads(p)) {
    fprintf(stderr, "consumer: %s\n", p ? sp_error(p) : "out of memory");
    return 1;
  }
  /* On a topology the program loaded itself, as mpibind_set_topology. */
  hwloc_topology_t mine;
  if (hwloc_topology_init(&mine) || hwloc_topology_set_synthetic(mine, "pack:2 core:4 pu:1") ||
      hwloc_topology_load(mine))
    return 1;
  if (sp_set_hwloc_topology(p, mine) || sp_compute(p) || print_threads(p)) {
    fprintf(stderr, "consumer: %s\n", sp_error(p));
    return 1;
  }
  sp_finalize(p);
  hwloc_topology_destroy(mine);
  return 0;
}
