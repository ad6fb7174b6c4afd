// SPDX-License-Identifier: GPL-2.0-or-later
// The placement engine: (topology, allowed CPUs, tasks x threads, optional
// sharing matrix, strategy) -> the CPUs of every thread of every task.
#pragma once
#include <string>

#include "placement.hh"

namespace slurmpin {

Result compute_placement(const Request& r);

// pu, core (binding slots), or l2, l3, numa (cores, widened to that domain).
void set_granularity(Request& r, const std::string& g);

// closest or none (Request::gpu_closest).
void set_gpu(Request& r, const std::string& mode);

// Takes the matrix (and, with phases, every region's matrix) from the
// profile file at `path`; `name` (the store name, may be empty) is for messages.
void use_profile_file(Request& r, const std::string& path, const std::string& name);
struct Profile;
void use_profile(Request& r, Profile profile, const std::string& path, const std::string& name);

}  // namespace slurmpin
