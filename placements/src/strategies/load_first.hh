// SPDX-License-Identifier: GPL-2.0-or-later
// Load first: where a task runs more threads than it has cores and the
// profile says how busy each thread is (thread_accesses), a profile-guided
// placement must not put two busy threads on one core while another core
// holds only idle ones: each would get half a core (pigz with 2 busy
// threads of 4 on 2 cores ran 1.8x slower under lpgp than under scatter).
// The strategy's placement is kept when no core's load is more than a
// tenth above the average (threads of even work differ a little in any
// profile), else repaired by swaps, which keep every core's thread count:
// first the busy threads (at most one per core, each over 1.5 times a
// thread's average load) go to distinct cores, then the busiest core sheds
// load to a lighter one while that lowers it by at least 5% of a core's
// average and it is still above that bound; each swap the one that keeps
// the most sharing. Whole-run placements only: a region's loads are not known.
#pragma once
#include <functional>
#include <vector>

#include "sharing/sharing_matrix.hh"
#include "topology/topology.hh"

namespace slurmpin {

// The core (a node of t carrying "Core", else the slot itself, or for a
// virtual slot of an oversubscribed tree its original slot) of every slot.
// Index: node of t; -1 for nodes that are not slots.
std::vector<int> core_of_slots(const Tree& t);

// Repairs `slot_of` (thread -> slot of t, as a strategy placed them) so that
// the busiest threads (by `load`, one per thread) sit on distinct cores and
// no swap between the busiest core and another lowers its load. Nothing
// changes when there are no more threads than cores, when `load` does not
// match, or when the placement already holds. `tick` is called every round
// (the caller's deadline). Returns how many swaps were made.
int balance_load(const Tree& t, const SharingMatrix& w, const std::vector<double>& load, std::vector<int>& slot_of,
                 const std::function<void()>& tick);

}  // namespace slurmpin
