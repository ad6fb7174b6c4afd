/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The start-up every OMPT tool of slurm-pin shares (the runtime's region
 * pinning, the profiler's region tags): when LLVM's libomp asks for a tool,
 * register a list of callbacks, or decline. Header only: each tool is a
 * library of its own, and includes it in the one file that defines
 * ompt_start_tool.
 */
#ifndef SLURM_PIN_OMPT_TOOL_H
#define SLURM_PIN_OMPT_TOOL_H

#include <omp-tools.h>
#include <stddef.h>

/* One callback to register: an event and its function. */
struct sp_ompt_callback {
  ompt_callbacks_t event;
  ompt_callback_t fn;
};

/* The list ompt_start_tool handed to sp_ompt_tool (ends with fn NULL). */
static const struct sp_ompt_callback *sp_ompt_callbacks;

static int sp_ompt_initialize(ompt_function_lookup_t lookup, int device, ompt_data_t *data) {
  (void)device, (void)data;
  ompt_set_callback_t set = (ompt_set_callback_t)lookup("ompt_set_callback");
  if (!set) return 0; /* no tool, as if none were asked for */
  for (const struct sp_ompt_callback *c = sp_ompt_callbacks; c && c->fn; ++c) set(c->event, c->fn);
  return 1;
}

static void sp_ompt_finalize(ompt_data_t *data) { (void)data; }

/* What ompt_start_tool returns to register `callbacks` (static storage). */
static inline ompt_start_tool_result_t *sp_ompt_tool(const struct sp_ompt_callback *callbacks) {
  static ompt_start_tool_result_t result = {sp_ompt_initialize, sp_ompt_finalize, {0}};
  sp_ompt_callbacks = callbacks;
  return &result;
}

#endif
