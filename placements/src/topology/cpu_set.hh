// SPDX-License-Identifier: GPL-2.0-or-later
// The engine's one CPU-set type: an hwloc bitmap of PU OS indices, as the
// C API hands it out and the kernel is given it. Text a user wrote is first
// parsed into CpuRanges (cpulist.hh), whose size follows the text rather
// than the ids it names, and becomes a CpuSet once its ids are known to be
// the machine's: a bitmap costs memory up to its highest id.
#pragma once
#include <hwloc.h>

#include <memory>
#include <string>
#include <vector>

namespace slurmpin {

struct CpuRange;

// Calls f(cpu) for every CPU of a finite set, in increasing order.
template <class F>
void for_each_cpu(hwloc_const_bitmap_t set, F f) {
  for (int c = hwloc_bitmap_first(set); c >= 0; c = hwloc_bitmap_next(set, c)) f(static_cast<unsigned>(c));
}

class CpuSet {
 public:
  CpuSet();  // empty
  explicit CpuSet(hwloc_const_bitmap_t b);  // a copy of b
  CpuSet(const CpuSet& o) : CpuSet(o.get()) {}
  CpuSet(CpuSet&&) noexcept = default;
  CpuSet& operator=(const CpuSet& o);
  CpuSet& operator=(CpuSet&&) noexcept = default;
  // From sorted or unsorted ids, and from checked ranges.
  static CpuSet of(const std::vector<unsigned>& ids);
  static CpuSet of(const std::vector<CpuRange>& ranges);

  hwloc_const_bitmap_t get() const { return b_.get(); }
  hwloc_bitmap_t get() { return b_.get(); }
  bool empty() const { return hwloc_bitmap_iszero(get()); }
  unsigned count() const { return static_cast<unsigned>(hwloc_bitmap_weight(get())); }
  bool has(unsigned cpu) const { return hwloc_bitmap_isset(get(), cpu); }
  // The lowest and highest CPU; -1 when empty.
  int first() const { return hwloc_bitmap_first(get()); }
  int last() const { return hwloc_bitmap_last(get()); }
  bool includes(const CpuSet& o) const { return hwloc_bitmap_isincluded(o.get(), get()); }
  bool operator==(const CpuSet& o) const { return hwloc_bitmap_isequal(get(), o.get()); }
  bool operator!=(const CpuSet& o) const { return !(*this == o); }
  CpuSet operator&(const CpuSet& o) const;
  CpuSet operator-(const CpuSet& o) const;  // the CPUs of this set not in o
  CpuSet& operator|=(const CpuSet& o);
  CpuSet& add(unsigned cpu);
  template <class F>
  void for_each(F f) const {
    for_each_cpu(get(), f);
  }
  // The ids in order, for the algorithms that index them.
  std::vector<unsigned> ids() const;
  // "0-3,8" (hwloc_bitmap_list_asprintf) and "0x10f" (hwloc_bitmap_taskset_asprintf).
  std::string list() const;
  std::string taskset() const;

 private:
  struct Free {
    void operator()(hwloc_bitmap_s* b) const { hwloc_bitmap_free(b); }
  };
  std::unique_ptr<hwloc_bitmap_s, Free> b_;
};

}  // namespace slurmpin
