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
  if (value.find('\0') != std::string::npos) throw Error("OMP_NUM_THREADS holds a NUL byte");
  char err[512];
  int n = sp_omp_num_threads_of(value.c_str(), err, sizeof err);
  if (n < 0) throw Error(err);
  return n;
}

}  // namespace slurmpin
