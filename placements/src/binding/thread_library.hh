// SPDX-License-Identifier: GPL-2.0-or-later
// Finding slurm-pin's thread library (libslurm_pin_threads.so, which binds
// threads for the preload and ompt modes) from a file of the same
// installation: the SPANK plugin, the slurm-pin command or libslurmpin. A build tree
// and the packages lay them out differently; both are tried.
#pragma once
#include <string>

namespace slurmpin {

// The library for a program or plugin at `from` (its own path). Throws
// naming every place looked at.
std::string find_thread_library(const std::string& from);

// The file this engine was loaded from (libslurmpin, the plugin's engine,
// or a program linking it statically), for find_thread_library.
std::string this_library();

// A regular file, opened once (non-blocking) and checked on its descriptor
// (check_user_file).
void check_thread_library(const std::string& path);

}  // namespace slurmpin
