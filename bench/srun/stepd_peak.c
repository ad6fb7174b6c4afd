/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * bench/srun's probe, a SPANK plugin of its own: at the end of each step,
 * slurmstepd's peak resident memory (VmHWM) in slurmd's log, for the
 * same step with and without slurm-pin (the probe is in both
 * plugstack.conf files, after slurm-pin's line).
 */
#include <slurm/spank.h>
#include <stdio.h>
#include <string.h>

SPANK_PLUGIN(stepd_peak, 1);

int slurm_spank_exit(spank_t sp, int ac, char **av) {
  (void)ac, (void)av;
  if (!spank_remote(sp)) return 0;
  FILE *f = fopen("/proc/self/status", "r");
  char line[256];
  long kib;
  while (f && fgets(line, sizeof line, f))
    if (sscanf(line, "VmHWM: %ld kB", &kib) == 1) slurm_info("stepd_peak: slurmstepd peak %ld KiB", kib);
  if (f) fclose(f);
  return 0;
}
