// SPDX-License-Identifier: GPL-2.0-or-later
// The thread runtime's task file (runtime/task_places.h): whatever it holds,
// parsing ends with every place a valid CPU set or with an error.
#include <sched.h>

#include <cstdlib>

#include "fuzz_support.hh"

extern "C" {
#include "task_places.h"
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  task_places t;
  char err[256];
  if (task_places_parse(reinterpret_cast<const char*>(data), size, &t, err, sizeof err) != 0) return 0;
  for (size_t i = 0; i < t.count; ++i)
    if (!t.places[i].set || CPU_COUNT_S(t.places[i].size, t.places[i].set) == 0) __builtin_trap();
  for (size_t r = 0; r < t.nregions; ++r)
    for (size_t i = 0; i < t.regions[r].count; ++i)
      if (!t.regions[r].places[i].set) __builtin_trap();
  task_places_free(&t);
  return 0;
}
