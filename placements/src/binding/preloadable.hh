// SPDX-License-Identifier: GPL-2.0-or-later
// Whether the loader will preload slurm-pin's thread library into a
// program: not into a statically linked one (no loader runs), nor into a
// set-user-ID or set-group-ID one (the loader ignores LD_PRELOAD paths
// there). Threads of such programs would stay where the task is while
// slurm-pin reported places for them.
#pragma once
#include <string>

namespace slurmpin {

// `program` as execvp finds it (`path_env`: the task's PATH; a name with a
// slash is a path, relative to the working directory), opened once as the
// caller and read on that descriptor: its ELF program headers, or for a
// script (#!) its interpreter's. Why the loader will not preload the
// library into it, naming the program; "" when it will. A program that
// cannot be found or read passes: exec will say so.
std::string preload_problem(const std::string& program, const std::string& path_env);

// preload_problem's reason, and its fix, thrown (thread binding preload
// and ompt, which cannot bind without the library).
void check_preloadable(const std::string& program, const std::string& path_env);

// Thread binding auto where the library cannot reach the program (`why`):
// the note front ends print, as it binds by OMP_PLACES alone.
std::string env_only_note(const std::string& why);

}  // namespace slurmpin
