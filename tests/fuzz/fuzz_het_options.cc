// SPDX-License-Identifier: GPL-2.0-or-later
// A heterogeneous component's options as slurmstepd reads them from the
// job's environment (SLURM_PIN_OPTIONS_HET_GROUP_<k>): parsing never
// overflows, a refused text leaves nothing behind, and what parses formats
// back to text that parses to the same options.
#include <cstring>

#include "fuzz_support.hh"
extern "C" {
#include "pin_components.h"
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string text = input_text(data, size);
  text = text.substr(0, std::strlen(text.c_str()));
  pin_request r;
  if (pin_request_parse(text.c_str(), &r) != 0) {
    if (r.strategy[0] || r.profile[0] || r.strategy_set || r.dryrun) __builtin_trap();
    return 0;
  }
  static char again[3 * sizeof(pin_request) + 256];
  if (pin_request_format(&r, again, sizeof again) != 0) __builtin_trap();
  pin_request back;
  if (pin_request_parse(again, &back) != 0 || std::memcmp(&r, &back, sizeof r) != 0) __builtin_trap();
  return 0;
}
