// SPDX-License-Identifier: GPL-2.0-or-later
// Placement files (file:PATH): parsed, and when valid, written back and
// parsed again to the same content.
#include "fuzz_support.hh"
#include "strategies/placement_file.hh"

using namespace slurmpin;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  expect_error_or_success([&] {
    PlacementFile p = parse_placement_file(input_text(data, size), "fuzz");
    PlacementFile q = parse_placement_file(format_placement_file(p), "again");
    if (q.tasks != p.tasks || q.regions != p.regions) __builtin_trap();
  });
  return 0;
}
