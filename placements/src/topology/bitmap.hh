// SPDX-License-Identifier: GPL-2.0-or-later
// CPU sets as hwloc bitmaps, where the engine meets the outside (the C API,
// the kernel). Inside, a set is a sorted vector of PU ids or CpuRanges.
#pragma once
#include <hwloc.h>

#include <memory>
#include <string>
#include <vector>

namespace slurmpin {

struct BitmapFree {
  void operator()(hwloc_bitmap_s* b) const { hwloc_bitmap_free(b); }
};
using Bitmap = std::unique_ptr<hwloc_bitmap_s, BitmapFree>;

struct CpuRange;
Bitmap bitmap_of(const std::vector<CpuRange>& ranges);
Bitmap bitmap_of(const std::vector<unsigned>& sorted_cpus);
std::vector<unsigned> cpus_of(hwloc_const_bitmap_t b);
// A set as one of hwloc's text formats: hwloc_bitmap_list_asprintf ("0-3,8")
// or hwloc_bitmap_taskset_asprintf ("0x10f").
std::string bitmap_text(const Bitmap& b, int (*format)(char**, hwloc_const_bitmap_t));

}  // namespace slurmpin
