// SPDX-License-Identifier: GPL-2.0-or-later
// Placements a node computed before, kept by root for the node's next steps
// (slurmstepd places every step before any task starts, and per-region
// placement of a dense 100-region profile costs hundreds of milliseconds).
// Only profile-guided placements from the admin's store are kept: their
// inputs are the store entry's text, the allowed part of the machine and
// numbers, all of which the key holds in full, so an entry is used only for
// exactly the inputs it was computed from. The engine reads entries (a
// directory and files only root can change, opened once and checked by
// descriptor); it never writes them: whoever runs it as root stores
// Result::cache_key's entry (the SPANK plugin, from its privileged hook).
#pragma once
#include <string>
#include <string_view>

#include "placement.hh"

namespace slurmpin {

// The largest entry kept (100 regions of 128 threads take about 170 KB):
// with the plugin's bound on the directory's total, what a node keeps stays
// small whatever users run.
constexpr size_t kMaxCacheEntryBytes = 4u << 20;

// What a cached placement depends on beyond the profile: everything of the
// request that reaches the strategies, and the allowed tree node by node.
// Empty when this request is not kept (no cache directory, a strategy
// without a matrix, a profile given by path, device locality, a task
// matrix).
std::string placement_cache_key(const Request& r, const LoadedTopology& lt, const std::string& profile_path,
                                std::string_view profile_text);

// The entry's file name in the cache directory: "placement-" and 16 hex digits.
std::string placement_cache_name(const std::string& key);

// Fills out's tasks, regions and notes from the entry for `key`, checked
// against the allowed `tree` and the step's task and thread counts. False
// when there is none, or it cannot be trusted or used: the caller computes
// instead.
bool read_cached_placement(const std::string& dir, const std::string& key, const Tree& tree, int tasks, int threads,
                           Result& out);

// The same for an entry's text as read: false unless it holds exactly `key`
// and places every thread of `tasks` x `threads` inside `tree`.
bool parse_cached_placement(std::string_view text, const std::string& key, const Tree& tree, int tasks, int threads,
                            Result& out);

// The entry for a computed result (Result::cache_key set); "" when it
// cannot be kept (larger than kMaxCacheEntryBytes, a name that would not
// read back as it is).
std::string format_cached_placement(const Result& r);

}  // namespace slurmpin
