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
    if (p.nenv < 0 || p.nenv > PIN_POLICY_ENV_MAX) __builtin_trap();
    for (int i = 0; i < p.nenv; ++i) {
      // Names the policy accepts; values printable, never ending a line.
      if (!p.env[i].name[0] || std::strncmp(p.env[i].name, "LD_", 3) == 0 || std::strcmp(p.env[i].name, "OMP_PLACES") == 0)
        __builtin_trap();
      for (const char* c = p.env[i].value; *c; ++c)
        if (*c < 32 || *c > 126) __builtin_trap();
    }
  }
  return 0;
}
