// SPDX-License-Identifier: GPL-2.0-or-later
#include "topology/cpulist.hh"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <utility>

#include "topology/cpu_set.hh"
#include "error.hh"

namespace slurmpin {

namespace {

std::string shown(const std::string& text) {
  return text.size() <= 64 ? text : text.substr(0, 60) + "...";
}

unsigned parse_index(const std::string& text, size_t& pos, const std::string& what, unsigned max_id) {
  if (pos >= text.size() || !std::isdigit(static_cast<unsigned char>(text[pos])))
    throw Error(what + ": '" + shown(text) + "' is not a CPU list: expected a number at position " +
                std::to_string(pos + 1) + " (write lists like 0-3,8,10-11)");
  size_t start = pos;
  unsigned long v = 0;
  while (pos < text.size() && std::isdigit(static_cast<unsigned char>(text[pos]))) {
    v = v * 10 + static_cast<unsigned long>(text[pos] - '0');
    ++pos;
    if (v > max_id) {
      while (pos < text.size() && std::isdigit(static_cast<unsigned char>(text[pos]))) ++pos;
      std::string id = text.substr(start, std::min<size_t>(pos - start, 24));
      throw Error(what + ": CPU " + id + " is beyond " +
                  (max_id == kMaxCpuId ? "the largest CPU id slurm-pin accepts (" + std::to_string(max_id) + ")"
                                       : "this machine, whose highest CPU is " + std::to_string(max_id)) +
                  " (use CPUs that exist)");
    }
  }
  return static_cast<unsigned>(v);
}

}  // namespace

// The text is checked first (syntax, and every id against max_id, in one
// linear pass); only then does hwloc parse it, into a bitmap no larger than
// max_id allows. hwloc reads "010" as octal: it gets the ids in canonical
// decimal, as checked ("010" is 10, as the kernel and Slurm mean it).
CpuRanges parse_cpu_ranges(const std::string& text, const std::string& what, unsigned max_id) {
  if (text.empty()) throw Error(what + ": empty CPU list (write lists like 0-3,8,10-11)");
  size_t pos = 0;
  std::string canonical;
  while (true) {
    unsigned lo = parse_index(text, pos, what, max_id), hi = lo;
    if (pos < text.size() && text[pos] == '-') {
      ++pos;
      hi = parse_index(text, pos, what, max_id);
      if (hi < lo)
        throw Error(what + ": reversed range " + std::to_string(lo) + "-" + std::to_string(hi) + " in '" +
                    shown(text) + "' (write the lower CPU first)");
    }
    canonical += (canonical.empty() ? "" : ",") + std::to_string(lo) + (hi > lo ? "-" + std::to_string(hi) : "");
    if (pos == text.size()) break;
    if (text[pos] != ',')
      throw Error(what + ": unexpected '" + std::string(1, text[pos]) + "' in CPU list '" + shown(text) +
                  "' (write lists like 0-3,8,10-11)");
    ++pos;
  }
  CpuSet b;
  if (hwloc_bitmap_list_sscanf(b.get(), canonical.c_str()) != 0)
    throw Error(what + ": '" + shown(text) + "' is not a CPU list (write lists like 0-3,8,10-11)");
  return ranges_of(b.get());
}

CpuRanges ranges_of(hwloc_const_bitmap_t b) {
  CpuRanges r;
  for (int lo = hwloc_bitmap_first(b); lo >= 0;) {
    int end = hwloc_bitmap_next_unset(b, lo);  // finite sets: past the last
    r.push_back({static_cast<unsigned>(lo), static_cast<unsigned>(end - 1)});
    lo = hwloc_bitmap_next(b, end - 1);
  }
  return r;
}

CpuRanges merge_ranges(CpuRanges r) {
  std::sort(r.begin(), r.end(), [](const CpuRange& a, const CpuRange& b) { return a.lo < b.lo; });
  CpuRanges merged;
  for (const CpuRange& x : r) {
    if (!merged.empty() && x.lo <= merged.back().hi + 1) merged.back().hi = std::max(merged.back().hi, x.hi);
    else merged.push_back(x);
  }
  return merged;
}

std::vector<unsigned> expand_ranges(const CpuRanges& r) {
  std::vector<unsigned> out;
  out.reserve(count_cpus(r));
  for (const CpuRange& x : r)
    for (unsigned long c = x.lo; c <= x.hi; ++c) out.push_back(static_cast<unsigned>(c));
  return out;
}

std::vector<unsigned> parse_cpulist(const std::string& text, const std::string& what, unsigned max_id) {
  return expand_ranges(parse_cpu_ranges(text, what, max_id));
}

CpuRanges ranges_of(const std::vector<unsigned>& cpus) {
  CpuRanges r;
  for (unsigned c : cpus) {
    if (!r.empty() && c == r.back().hi + 1) r.back().hi = c;
    else r.push_back({c, c});
  }
  return r;
}

size_t count_cpus(const CpuRanges& r) {
  size_t n = 0;
  for (const CpuRange& x : r) n += static_cast<size_t>(x.hi - x.lo) + 1;
  return n;
}

std::string format_cpulist(const CpuRanges& r) { return CpuSet::of(r).list(); }

std::string format_cpulist(const std::vector<unsigned>& cpus) { return CpuSet::of(cpus).list(); }

}  // namespace slurmpin
