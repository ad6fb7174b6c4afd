// SPDX-License-Identifier: GPL-2.0-or-later
// A command's word as exec would run it, for `slurm-pin profile`: the
// program to profile, and the MPI program inside a launcher's command.
#pragma once
#include <string>

namespace slurmpin {

// `word` as execvp finds it: a path (holding '/') as given, a bare name in
// $PATH's directories in order; "" unless it is a regular file the caller
// may execute.
std::string find_executable(const std::string& word);

}  // namespace slurmpin
