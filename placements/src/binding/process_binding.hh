// SPDX-License-Identifier: GPL-2.0-or-later
// Applying a task's binding to the calling process: its CPU affinity
// (checked by reading it back, so CPUs the kernel refuses are caught, never
// silently dropped) and its NUMA memory policy. Both survive execve, so a
// launcher applies them and then executes the task.
#pragma once
#include "binding/task_binding.hh"
#include "topology/cpu_set.hh"

namespace slurmpin {

// The CPUs the calling process may run on now.
CpuSet process_cpus();

// Binds the calling process to `cpus`; throws when the kernel refuses any.
void bind_process(const CpuSet& cpus);

// Sets the calling process's memory policy for a task on `cpus`.
void set_memory_policy(MemPolicy mem, const CpuSet& cpus);

// The same policy as the kernel takes it, for a caller that applies it
// elsewhere (the SPANK plugin's tasks, with set_mempolicy): "none",
// "local", or "interleave " and the NUMA nodes' list. Throws as
// set_memory_policy would.
std::string memory_policy_text(MemPolicy mem, const CpuSet& cpus);

}  // namespace slurmpin
