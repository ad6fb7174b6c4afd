// SPDX-License-Identifier: GPL-2.0-or-later
// CPU lists: the engine's bounded parser and the plugin's C helpers. The
// first byte picks the machine's highest CPU id, the rest is the list.
#include <cstring>

#include "topology/cpulist.hh"
#include "fuzz_support.hh"
#include "topology/cpu_set.hh"

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
  // The same list through a CpuSet (an hwloc bitmap) and back.
  expect_error_or_success([&] {
    std::vector<unsigned> cpus = parse_cpulist(text, "fuzz", max_id);
    if (CpuSet::of(cpus).ids() != cpus || CpuSet::of(cpus) != CpuSet::of(ranges_of(cpus))) __builtin_trap();
  });
  return 0;
}
