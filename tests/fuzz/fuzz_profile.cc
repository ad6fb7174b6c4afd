// SPDX-License-Identifier: GPL-2.0-or-later
// Sharing profiles (--pin-profile FILE, the store): parsed, and every
// matrix they hold turned into an affinity.
#include "fuzz_support.hh"
#include "sharing/profile.hh"

using namespace slurmpin;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  expect_error_or_success([&] {
    Profile p = parse_profile(input_text(data, size), "fuzz");
    p.affinity("simple", "", "fuzz");
    for (const auto& r : p.regions)
      for (const auto& m : r.matrices) p.affinity(m.first, r.name, "fuzz");
    parse_profile(format_profile(p), "again");
  });
  return 0;
}
