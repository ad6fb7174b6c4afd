// SPDX-License-Identifier: GPL-2.0-or-later
// CPU lists: the engine's bounded parser and the plugin's C helpers. The
// first byte picks the machine's highest CPU id, the rest is the list.
#include <cstring>

#include "cpulist.hh"
#include "fuzz_support.hh"
extern "C" {
#include "pin_env.h"
}

using namespace slurmpin;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  unsigned max_id = data[0] % 2 ? kMaxCpuId : data[0];
  std::string text = input_text(data + 1, size - 1);
  expect_error_or_success([&] {
    CpuRanges r = parse_cpu_ranges(text, "fuzz", max_id);
    for (size_t i = 0; i < r.size(); ++i) {
      if (r[i].hi > max_id || r[i].lo > r[i].hi) __builtin_trap();          // bounded, ordered
      if (i && r[i].lo <= r[i - 1].hi + 1) __builtin_trap();                // merged
    }
    if (parse_cpu_ranges(format_cpulist(r), "again", max_id) != r) __builtin_trap();  // round trip
  });
  // The plugin's helpers take NUL-terminated text.
  std::string c = text.substr(0, std::strlen(text.c_str()));
  static int cpus[1024];
  int n = pin_expand_cpulist(c.c_str(), cpus, 1024);
  for (int i = 0; i < n; ++i)
    if (cpus[i] < 0 || cpus[i] > PIN_MAX_CPU_ID) __builtin_trap();
  char out[4096];
  size_t half = c.size() / 2;
  std::string a = c.substr(0, half), b = c.substr(half);
  pin_intersect_cpulists(a.c_str(), b.c_str(), out, sizeof out);
  const char* threads[2] = {a.c_str(), b.c_str()};
  pin_omp_places(threads, 2, out, sizeof out);
  pin_kmp_affinity(threads, 2, out, sizeof out);
  pin_gomp_affinity(threads, 2, out, sizeof out);
  return 0;
}
