/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * An OMPT tool (OMP_TOOL_LIBRARIES=libslurm_pin_ompt.so) that tags every
 * parallel region of a program running on LLVM's libomp for the profiler:
 * regions are identified by OMPT's codeptr_ra (the call site), which the
 * valgrind backend names function+offset, stable for a given binary.
 * GCC's libgomp has no OMPT; there the backends wrap GOMP_parallel instead.
 */
#include <omp-tools.h>
#include <stddef.h>

#include "ompt_tool.h"
#include "slurm_pin/regions.h"

/* A marker the Pin backend instruments (Pin sees no client requests). */
__attribute__((noinline, visibility("default"))) void slurm_pin_ompt_region(const void *code, int begin) {
  __asm__ volatile("" ::"r"(code), "r"(begin) : "memory");
}

static void on_parallel_begin(ompt_data_t *task, const ompt_frame_t *frame, ompt_data_t *parallel,
                              unsigned int requested, int flags, const void *codeptr_ra) {
  (void)task, (void)frame, (void)parallel, (void)requested, (void)flags;
  SLURM_PIN_REGION_BEGIN_CODE(codeptr_ra);
  slurm_pin_ompt_region(codeptr_ra, 1);
}

static void on_parallel_end(ompt_data_t *parallel, ompt_data_t *task, int flags, const void *codeptr_ra) {
  (void)parallel, (void)task, (void)flags, (void)codeptr_ra;
  SLURM_PIN_REGION_END();
  slurm_pin_ompt_region(codeptr_ra, 0);
}

ompt_start_tool_result_t *ompt_start_tool(unsigned int version, const char *runtime) {
  (void)version, (void)runtime;
  static const struct sp_ompt_callback callbacks[] = {
      {ompt_callback_parallel_begin, (ompt_callback_t)on_parallel_begin},
      {ompt_callback_parallel_end, (ompt_callback_t)on_parallel_end},
      {ompt_callback_parallel_begin, NULL}};
  return sp_ompt_tool(callbacks);
}
