// SPDX-License-Identifier: GPL-2.0-or-later
// Splitting a node's allowed slots among the tasks of a step, before any
// thread is placed: every slot used, task sizes within one, each task's
// slots together in the tree.
#pragma once
#include <vector>

#include "topology/topology.hh"

namespace slurmpin {

enum class TaskLayout { kCompact, kScatter };

// Every slot of the tree to one of `tasks` tasks, in task order along the
// tree (as mpibind splits a node): down from the root, each domain's tasks
// go to its children in proportion to their slots (each child at least
// one) when that keeps every task's size within one slot of the others',
// or within the spread of the children's own sizes when each gets as many
// tasks (a KNL's uneven quadrants); fewer tasks than children take whole
// children, cut where the sizes come out most even, on the same condition.
// Otherwise the domain's slots are cut in compact order into sizes within
// one, the larger first. Ties go to the first child. More tasks than slots:
// task i shares slot i * slots / tasks, in compact order. With
// `cores_whole` (slots are hardware threads) the same in cores: no core's
// hardware threads go to two tasks.
std::vector<std::vector<int>> split_tasks_evenly(const Tree& t, int tasks, bool cores_whole = false);

// The even split (split_tasks_evenly) in `layout`: compact keeps it;
// scatter deals its shares to the tasks round-robin over the outermost
// domains, and so on down inside each (like Slurm's cyclic distribution):
// task 1 on the second package, every slot still used.
std::vector<std::vector<int>> split_tasks(const Tree& t, int tasks, TaskLayout layout, bool cores_whole = false);

// Near devices: task t (in order) takes sizes[t] free slots, those whose
// PUs are all in near[t] first, then the free slots closest to them in the
// tree (fewest levels up to a domain holding one), each group in compact
// order.
std::vector<std::vector<int>> split_tasks_near(const Tree& t, const std::vector<int>& sizes,
                                               const std::vector<CpuSet>& near);

}  // namespace slurmpin
