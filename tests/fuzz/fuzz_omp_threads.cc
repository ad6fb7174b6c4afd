// SPDX-License-Identifier: GPL-2.0-or-later
// OMP_NUM_THREADS as the plugin reads it ("8", "8,2" for nested levels).
#include <cstring>

#include "fuzz_support.hh"
#include "input/args.hh"

using namespace slurmpin;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string text = input_text(data, size);
  text = text.substr(0, std::strlen(text.c_str()));
  expect_error_or_success([&] {
    int n = parse_omp_num_threads(text);
    if (n > 65536 || n < 0 || (n == 0 && !text.empty())) __builtin_trap();
  });
  return 0;
}
