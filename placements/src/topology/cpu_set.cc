// SPDX-License-Identifier: GPL-2.0-or-later
#include "topology/cpu_set.hh"

#include <cstdlib>

#include "error.hh"
#include "topology/cpulist.hh"

namespace slurmpin {

namespace {

hwloc_bitmap_t checked(hwloc_bitmap_t b) {
  if (!b) throw Error("out of memory");
  return b;
}

void ok(int rc) {
  if (rc != 0) throw Error("out of memory");
}

std::string text(hwloc_const_bitmap_t b, int (*format)(char**, hwloc_const_bitmap_t)) {
  char* s = nullptr;
  if (format(&s, b) < 0 || !s) throw Error("out of memory");
  std::string out(s);
  std::free(s);
  return out;
}

}  // namespace

CpuSet::CpuSet() : b_(checked(hwloc_bitmap_alloc())) {}

CpuSet::CpuSet(hwloc_const_bitmap_t b) : b_(checked(hwloc_bitmap_dup(b))) {}

CpuSet& CpuSet::operator=(const CpuSet& o) {
  if (this != &o) ok(hwloc_bitmap_copy(get(), o.get()));
  return *this;
}

CpuSet CpuSet::of(const std::vector<unsigned>& ids) {
  CpuSet s;
  for (unsigned c : ids) s.add(c);
  return s;
}

CpuSet CpuSet::of(const std::vector<CpuRange>& ranges) {
  CpuSet s;
  for (const CpuRange& r : ranges) ok(hwloc_bitmap_set_range(s.get(), r.lo, static_cast<int>(r.hi)));
  return s;
}

CpuSet CpuSet::operator&(const CpuSet& o) const {
  CpuSet s;
  ok(hwloc_bitmap_and(s.get(), get(), o.get()));
  return s;
}

CpuSet CpuSet::operator-(const CpuSet& o) const {
  CpuSet s;
  ok(hwloc_bitmap_andnot(s.get(), get(), o.get()));
  return s;
}

CpuSet& CpuSet::operator|=(const CpuSet& o) {
  ok(hwloc_bitmap_or(get(), get(), o.get()));
  return *this;
}

CpuSet& CpuSet::add(unsigned cpu) {
  ok(hwloc_bitmap_set(get(), cpu));
  return *this;
}

std::vector<unsigned> CpuSet::ids() const {
  std::vector<unsigned> out;
  out.reserve(count());
  for_each([&](unsigned c) { out.push_back(c); });
  return out;
}

std::string CpuSet::list() const { return text(get(), hwloc_bitmap_list_asprintf); }

std::string CpuSet::taskset() const { return text(get(), hwloc_bitmap_taskset_asprintf); }

}  // namespace slurmpin
