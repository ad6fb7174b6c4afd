/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The step record's own functions (pin_step.h): which step this is, its
 * failure, its state once placed, where the node's saved topology is.
 */
#include "pin_step.h"

#include <slurm/slurm.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *cache_path(struct pin_step *s) {
  if (s->config.topology[0] || strcmp(s->config.topology_cache, "none") == 0) return NULL;
  if (s->config.topology_cache[0]) return s->config.topology_cache;
  snprintf(s->topology_cache, sizeof s->topology_cache, "%s/topology.xml", s->config.run_dir);
  return s->topology_cache;
}

int is_application_step(spank_t sp) {
  uint32_t step = 0;
  if (spank_get_item(sp, S_JOB_STEPID, &step) != ESPANK_SUCCESS) return 0;
  /* The batch shell, the extern step and interactive steps are not pinned:
   * pinning the batch shell would also leak OMP_* into every inner step. */
  return step != SLURM_BATCH_SCRIPT && step != SLURM_EXTERN_CONT && step != SLURM_INTERACTIVE_STEP;
}

int is_batch_step(spank_t sp) {
  uint32_t step = 0;
  return spank_get_item(sp, S_JOB_STEPID, &step) == ESPANK_SUCCESS && step == SLURM_BATCH_SCRIPT;
}

int step_fail(struct pin_step *s, const char *message) {
  if (!s->failure[0]) snprintf(s->failure, sizeof s->failure, "%.*s", (int)sizeof s->failure - 1, message);
  return -1;
}

/* The components of this heterogeneous step (SLURM_HET_SIZE, or its old
 * name), 0 otherwise. */
int het_size(spank_t sp) {
  char size[16];
  if (spank_getenv(sp, "SLURM_HET_SIZE", size, sizeof size) != ESPANK_SUCCESS &&
      spank_getenv(sp, "SLURM_PACK_SIZE", size, sizeof size) != ESPANK_SUCCESS)
    return 0;
  int n = atoi(size);
  return n > 0 && n <= MAX_COMPONENTS ? n : 0;
}

/* user_init's outcomes: a failure task_init reports, or the step placed
 * (rc 0), failing (-1, its failure set) or left alone (-2: exclusive_only
 * and a shared node). Hooks in slurmstepd return 0 whatever happened. */
int step_fails(struct pin_step *s) {
  s->state = STEP_FAILING;
  return 0;
}

int step_placed(struct pin_step *s, int rc) {
  s->state = rc == -2 ? STEP_LEFT_ALONE : s->failure[0] ? STEP_FAILING : STEP_PINNED;
  return 0;
}
