// SPDX-License-Identifier: GPL-2.0-or-later
// Sharing sums (what the backends write at the end of a run, read by the analyzer).
#include <sstream>

#include "fuzz_support.hh"
#include "sums.hh"

using namespace slurmpin;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  expect_error_or_success([&] {
    std::istringstream in(input_text(data, size));
    parse_sums(in, "fuzz");
  });
  return 0;
}
