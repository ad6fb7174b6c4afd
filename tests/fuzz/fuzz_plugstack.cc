// SPDX-License-Identifier: GPL-2.0-or-later
// plugstack.conf arguments, and the option checks done with them.
#include <cstring>
#include <vector>

#include "fuzz_support.hh"
extern "C" {
#include "pin_config.h"
#include "slurm_pin_options.h"
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string text = input_text(data, size);
  std::vector<std::string> words;
  size_t pos = 0;
  while (pos < text.size()) {  // arguments split as Slurm splits the line
    size_t end = text.find_first_of(" \n\t", pos);
    if (end == std::string::npos) end = text.size();
    std::string w = text.substr(pos, end - pos);
    if (!w.empty() && w.find('\0') == std::string::npos) words.push_back(w);
    pos = end + 1;
  }
  std::vector<char*> av;
  for (auto& w : words) av.push_back(&w[0]);
  pin_config c;
  char err[1024];
  pin_config_defaults(&c);
  if (pin_config_parse(&c, static_cast<int>(av.size()), av.data(), err, sizeof err) != 0 ||
      pin_config_check(&c, err, sizeof err) != 0) {
    if (!err[0] || std::strchr(err, '\n')) __builtin_trap();  // one line, never empty
    return 0;
  }
  for (const auto& w : words) {
    pin_check_strategy(&c, w.c_str(), err, sizeof err);
    sp_check_mem_policy(w.c_str(), err, sizeof err);
    sp_check_granularity(w.c_str(), err, sizeof err);
  }
  pin_request r{};
  if (pin_check_strategy(&c, pin_effective_strategy(&c, &r, nullptr), err, sizeof err) != 0) __builtin_trap();
  return 0;
}
