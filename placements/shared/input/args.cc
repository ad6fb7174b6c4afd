// SPDX-License-Identifier: GPL-2.0-or-later
#include "input/args.hh"

#include "error.hh"
#include "slurm_pin_options.h"

namespace slurmpin {

long parse_count(const std::string& option, const std::string& text, long lo, long hi) {
  if (text.empty() || text.size() > 18 || text.find_first_not_of("0123456789") != std::string::npos ||
      std::stol(text) < lo || std::stol(text) > hi)
    throw Error(option + " wants a whole number from " + std::to_string(lo) + " to " + std::to_string(hi) +
                ", not '" + text + "'");
  return std::stol(text);
}

int parse_smt(const std::string& text) {
  char err[512];
  int k = sp_smt_of(text.c_str(), err, sizeof err);  // srun's check too, without the engine
  if (k < 0) throw Error(err);
  return k;
}

uint64_t parse_seed(const std::string& text) {
  if (text.empty() || text.size() > 19 || text.find_first_not_of("0123456789") != std::string::npos)
    throw Error("--seed wants a whole number, not '" + text + "'");
  return std::stoull(text);
}

int parse_omp_num_threads(const std::string& value) {
  if (value.empty()) return 0;
  auto bad = [&] {
    std::string shown = value.size() <= 64 ? value : value.substr(0, 60) + "...";
    return Error("OMP_NUM_THREADS='" + shown +
                 "' is not a thread count: set a number (or a list such as 8,2 for nested levels), or unset it");
  };
  long first = 0;
  size_t pos = 0;
  while (true) {
    if (pos > 0)
      while (pos < value.size() && value[pos] == ' ') ++pos;
    size_t end = value.find(',', pos);
    std::string level = value.substr(pos, end == std::string::npos ? std::string::npos : end - pos);
    if (level.empty() || level.size() > 5 || level.find_first_not_of("0123456789") != std::string::npos) throw bad();
    long n = std::stol(level);
    if (n < 1 || n > 65536) throw bad();
    if (pos == 0) first = n;
    if (end == std::string::npos) return static_cast<int>(first);
    pos = end + 1;
  }
}

}  // namespace slurmpin
