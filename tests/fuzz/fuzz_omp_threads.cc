// SPDX-License-Identifier: GPL-2.0-or-later
// OMP_NUM_THREADS as the plugin reads it ("8", "8,2" for nested levels).
#include <cstring>

#include "fuzz_support.hh"
extern "C" {
#include "pin_config.h"
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string text = input_text(data, size);
  text = text.substr(0, std::strlen(text.c_str()));
  int n = pin_omp_threads(text.c_str());
  if (n > 65536 || n < -1) __builtin_trap();
  return 0;
}
