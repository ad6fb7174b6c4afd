// SPDX-License-Identifier: GPL-2.0-or-later
// Splitting a node's allowed slots among the tasks of a step, before any
// thread is placed: every task gets `share` slots, contiguous in the tree.
#pragma once
#include <vector>

#include "topology/topology.hh"

namespace slurmpin {

enum class TaskLayout { kCompact, kScatter };

// compact: task t takes slots [t*share, (t+1)*share) in compact order (like
// Slurm's block distribution). scatter: tasks are dealt round-robin over the
// outermost domains that can hold a whole share (like cyclic), each task's
// slots staying contiguous inside its domain.
std::vector<std::vector<int>> split_tasks(const Tree& t, int tasks, int share, TaskLayout layout);

// Near devices: task t (in order) takes `share` free slots, those whose PUs
// are all in near[t] first, then the free slots closest to them in the tree
// (fewest levels up to a domain holding one), each group in compact order.
std::vector<std::vector<int>> split_tasks_near(const Tree& t, int share,
                                               const std::vector<CpuSet>& near);

}  // namespace slurmpin
