// SPDX-License-Identifier: GPL-2.0-or-later
#include "topology/bitmap.hh"

#include <cstdlib>

#include "topology/cpulist.hh"
#include "error.hh"

namespace slurmpin {

Bitmap bitmap_of(const CpuRanges& ranges) {
  Bitmap b(hwloc_bitmap_alloc());
  if (!b) throw Error("out of memory");
  for (const CpuRange& r : ranges)
    if (hwloc_bitmap_set_range(b.get(), r.lo, static_cast<int>(r.hi)) != 0) throw Error("out of memory");
  return b;
}

Bitmap bitmap_of(const std::vector<unsigned>& cpus) { return bitmap_of(ranges_of(cpus)); }

std::string bitmap_text(const Bitmap& b, int (*format)(char**, hwloc_const_bitmap_t)) {
  char* text = nullptr;
  if (format(&text, b.get()) < 0 || !text) throw Error("out of memory");
  std::string out(text);
  std::free(text);
  return out;
}

std::vector<unsigned> cpus_of(hwloc_const_bitmap_t b) {
  std::vector<unsigned> out;
  int c;
  hwloc_bitmap_foreach_begin(c, b) out.push_back(static_cast<unsigned>(c));
  hwloc_bitmap_foreach_end();
  return out;
}

}  // namespace slurmpin
