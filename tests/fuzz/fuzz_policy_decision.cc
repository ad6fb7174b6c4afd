// SPDX-License-Identifier: GPL-2.0-or-later
// The policy's decision as the plugin reads it back (AdminComment): a
// decision that parses holds only values of its own syntax.
#include <cstring>

#include "fuzz_support.hh"
extern "C" {
#include "pin_config.h"
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string text = input_text(data, size);
  text = text.substr(0, std::strlen(text.c_str()));
  pin_policy p;
  if (pin_policy_parse(text.c_str(), &p) == 0 && p.present) {
    if (!p.rule[0] || std::strchr(p.profile, '/') || std::strchr(p.rule, ' ')) __builtin_trap();
    if (std::strncmp(p.strategy, "file:", 5) == 0) __builtin_trap();  // never a user file from a decision
  }
  return 0;
}
