// SPDX-License-Identifier: GPL-2.0-or-later
// How each backend runs a program so that it writes its results: the
// sharing sums (valgrind, compiler) or a raw trace (pin), and a raw trace
// too when one is asked for.
#pragma once
#include <string>
#include <vector>

namespace slurmpin {

struct BackendRun {
  std::vector<std::string> env;   // NAME=VALUE to add
  std::vector<std::string> argv;  // the command
  bool writes_sums = true;        // else only the raw trace (summed afterwards)
};

// backend: valgrind, compiler or pin. libdir: where slurm-pin's own pieces
// are (the valgrind tool directory, the OMPT tool, the Pin tool).
// `sums` and `trace` are the paths to write; an empty `trace`: none.
BackendRun backend_command(const std::string& backend, const std::string& libdir, const std::string& sums,
                           const std::string& trace, int threads, const std::vector<std::string>& program);

}  // namespace slurmpin
