// SPDX-License-Identifier: GPL-2.0-or-later
// Sharing matrices (--matrix FILE).
#include "fuzz_support.hh"
#include "sharing/matrix_file.hh"

using namespace slurmpin;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  expect_error_or_success([&] { parse_matrix_text(input_text(data, size), "fuzz"); });
  return 0;
}
