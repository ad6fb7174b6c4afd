// SPDX-License-Identifier: GPL-2.0-or-later
// Profiler traces (what the backends write, read back by the analyzer).
#include <sstream>

#include "fuzz_support.hh"
#include "trace.hh"

using namespace slurmpin;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  expect_error_or_success([&] {
    std::istringstream in(input_text(data, size));
    parse_trace(in, "fuzz");
  });
  return 0;
}
