// SPDX-License-Identifier: GPL-2.0-or-later
// A helper command's output, for `slurm-pin profile` (sha256sum, sinfo,
// valgrind --version, addr2line).
#pragma once
#include <cstddef>
#include <string>
#include <vector>

namespace slurmpin {

// The first `limit` bytes `argv` prints on stdout, run without a shell (a
// program path is the user's text, and may hold quotes or `$(...)`); ""
// when it cannot run.
std::string capture(const std::vector<std::string>& argv, size_t limit = 4096);

}  // namespace slurmpin
