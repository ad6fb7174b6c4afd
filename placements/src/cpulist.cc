// SPDX-License-Identifier: GPL-2.0-or-later
#include "cpulist.hh"

#include <algorithm>
#include <cctype>
#include <utility>

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

CpuRanges parse_cpu_ranges(const std::string& text, const std::string& what, unsigned max_id) {
  if (text.empty()) throw Error(what + ": empty CPU list (write lists like 0-3,8,10-11)");
  CpuRanges r;
  size_t pos = 0;
  while (true) {
    unsigned lo = parse_index(text, pos, what, max_id), hi = lo;
    if (pos < text.size() && text[pos] == '-') {
      ++pos;
      hi = parse_index(text, pos, what, max_id);
      if (hi < lo)
        throw Error(what + ": reversed range " + std::to_string(lo) + "-" + std::to_string(hi) + " in '" +
                    shown(text) + "' (write the lower CPU first)");
    }
    r.push_back({lo, hi});
    if (pos == text.size()) break;
    if (text[pos] != ',')
      throw Error(what + ": unexpected '" + std::string(1, text[pos]) + "' in CPU list '" + shown(text) +
                  "' (write lists like 0-3,8,10-11)");
    ++pos;
  }
  return merge_ranges(std::move(r));
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

std::string format_cpulist(const CpuRanges& r) {
  std::string out;
  for (const CpuRange& x : r) {
    if (!out.empty()) out += ',';
    out += std::to_string(x.lo);
    if (x.hi > x.lo) out += "-" + std::to_string(x.hi);
  }
  return out;
}

std::string format_cpulist(const std::vector<unsigned>& cpus) { return format_cpulist(ranges_of(cpus)); }

}  // namespace slurmpin
