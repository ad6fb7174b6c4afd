// SPDX-License-Identifier: GPL-2.0-or-later
// CPU lists in the syntax Slurm, numactl and the kernel use: "0-3,8,10-11".
//
// Lists come from users (placement files, --restrict), so parsing never
// expands a range before its ends are checked: ids are bounded first (by the
// machine when it is known, else by kMaxCpuId), and a list is kept as merged
// ranges, whose size follows the text, not the ids it names.
#pragma once
#include <hwloc.h>

#include <string>
#include <vector>

namespace slurmpin {

// The largest CPU id accepted before a machine is known. Linux supports at
// most 8192 CPUs per system (NR_CPUS); this leaves room for sparse numbering.
constexpr unsigned kMaxCpuId = 65535;

struct CpuRange {
  unsigned lo, hi;  // inclusive
  bool operator==(const CpuRange& o) const { return lo == o.lo && hi == o.hi; }
};
// Sorted, disjoint and non-adjacent ranges.
using CpuRanges = std::vector<CpuRange>;

// Parses a list strictly (no spaces, no empty items, no reversed ranges) into
// merged ranges: checked here, parsed by hwloc. An id above `max_id` is an
// error naming it, found before anything is allocated. Throws Error naming
// `what`.
CpuRanges parse_cpu_ranges(const std::string& text, const std::string& what, unsigned max_id = kMaxCpuId);

// The same, expanded to sorted unique ids: at most max_id + 1 of them.
std::vector<unsigned> parse_cpulist(const std::string& text, const std::string& what,
                                    unsigned max_id = kMaxCpuId);

// Any ranges sorted and merged into CpuRanges (overlapping and adjacent
// ones become one).
CpuRanges merge_ranges(CpuRanges r);

std::vector<unsigned> expand_ranges(const CpuRanges& r);
CpuRanges ranges_of(const std::vector<unsigned>& sorted_unique);
CpuRanges ranges_of(hwloc_const_bitmap_t finite_set);
size_t count_cpus(const CpuRanges& r);

// Formats with ranges collapsed, by hwloc: {0,1,2,5} -> "0-2,5".
std::string format_cpulist(const std::vector<unsigned>& cpus);
std::string format_cpulist(const CpuRanges& r);

}  // namespace slurmpin
