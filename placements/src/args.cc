// SPDX-License-Identifier: GPL-2.0-or-later
#include "args.hh"

#include "error.hh"

namespace slurmpin {

long parse_count(const std::string& option, const std::string& text, long lo, long hi) {
  if (text.empty() || text.size() > 18 || text.find_first_not_of("0123456789") != std::string::npos ||
      std::stol(text) < lo || std::stol(text) > hi)
    throw Error(option + " wants a whole number from " + std::to_string(lo) + " to " + std::to_string(hi) +
                ", not '" + text + "'");
  return std::stol(text);
}

}  // namespace slurmpin
