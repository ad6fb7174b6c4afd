// SPDX-License-Identifier: GPL-2.0-or-later
// The step plan slurmstepd reads from its placing helper
// (spank_plugin/step_plan.h): whatever the bytes, reading ends with a plan
// whose every string lies inside them, or with an error.
#include <cstdlib>
#include <cstring>

#include "fuzz_support.hh"

extern "C" {
#include "step_plan.h"
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // An exact-size copy: a read past the end is one past the buffer.
  char* copy = static_cast<char*>(malloc(size ? size : 1));
  if (size) memcpy(copy, data, size);
  plan_reader r{copy, size, 0, 0};
  step_plan plan;
  if (step_plan_decode(&r, &plan) == 0) {
    auto inside = [&](const char* s) { return s >= copy && s < copy + size && s + strlen(s) < copy + size; };
    for (int t = 0; t < plan.ntasks; ++t) {
      const task_plan& tp = plan.tasks[t];
      if (!inside(tp.cpus) || !inside(tp.mem) || !inside(tp.line) || tp.data + tp.data_len > copy + size) __builtin_trap();
      for (int i = 0; i < plan.env_count; ++i) {
        char out[256];
        if (!inside(tp.env[i].name) || !inside(tp.env[i].value)) __builtin_trap();
        plan_env_value(&tp.env[i], "a b:c", out, sizeof out);
      }
    }
    for (int i = 0; i < plan.nnotes; ++i)
      if (!inside(plan.notes[i])) __builtin_trap();
    plan.wire = nullptr;  // the copy is freed below
    step_plan_free(&plan);
  }
  free(copy);
  return 0;
}
