// SPDX-License-Identifier: GPL-2.0-or-later
#include "sums.hh"

#include <stddef.h>
#include <stdint.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <utility>

#include "error.hh"

// The backends' own aggregation, compiled here too (one implementation).
#define LC_CALLOC(n, size) calloc_or_throw(n, size)
#define LC_FREE std::free
#define SS_SORT std::qsort
#define SS_SNPRINTF std::snprintf
namespace {
void* calloc_or_throw(size_t n, size_t size) {
  void* p = std::calloc(n, size);
  if (!p) throw slurmpin::Error("out of memory while summing the trace");
  return p;
}
#include "sharing_sums.h"
}  // namespace

namespace slurmpin {

namespace {

struct Reader {
  Sums& s;
  bool have_lines = false;

  void record(const std::vector<std::string>& f, const std::string& at) {
    RunHeader& h = s.header;
    if (h.threads == 0) throw Error(at + "'threads N' must come before the sums");
    if (s.thread_lines.empty()) start();
    if (f[0] == "lines" && f.size() == 2) {
      s.lines = static_cast<double>(whole_number(f[1], at, "lines"));
      have_lines = true;
    } else if (f[0] == "t" && f.size() == 4) {
      size_t t = thread(f[1], at);
      s.thread_lines[t] = count(f[2], at), s.thread_accesses[t] = count(f[3], at);
    } else if (f[0] == "r" && f.size() == 3) {
      uint64_t r = whole_number(f[1], at, "region");
      if (r >= h.regions.size() || r >= s.region_accesses.size())
        throw Error(at + "region " + f[1] + " was not declared before the sums");
      s.region_accesses[r] = count(f[2], at);
    } else if (f[0] == "p" && f.size() == 6) {
      pair(f, 2, at, scope(f[1], at));
    } else if (f[0] == "s" && f.size() == 5) {
      pair(f, 1, at, s.shared);
    } else {
      throw Error(at + "unknown or malformed record '" + f[0] + "' (a sharing file has lines, t, r, p, s)");
    }
  }

  void start() {
    size_t n = static_cast<size_t>(s.header.threads), r = s.header.regions.size() + (s.header.regions.empty());
    s.thread_lines.assign(n, 0), s.thread_accesses.assign(n, 0);
    s.region_accesses.assign(r, 0), s.region.assign(r, {});
  }

  size_t thread(const std::string& f, const std::string& at) const {
    uint64_t t = whole_number(f, at, "thread");
    if (t >= static_cast<uint64_t>(s.header.threads) || t >= s.thread_lines.size())
      throw Error(at + "thread " + f + " but the file declares " + std::to_string(s.header.threads) + " threads");
    return t;
  }
  static double count(const std::string& f, const std::string& at) {
    return static_cast<double>(whole_number(f, at, "count"));
  }

  std::vector<PairSum>& scope(const std::string& f, const std::string& at) {
    if (f == "run") return s.run;
    if (f == "par") return s.par;
    uint64_t r = whole_number(f, at, "scope");
    if (r >= s.region.size() || r >= s.header.regions.size())
      throw Error(at + "scope " + f + " is neither run, par nor a declared region");
    return s.region[r];
  }

  void pair(const std::vector<std::string>& f, size_t first, const std::string& at, std::vector<PairSum>& to) {
    size_t i = thread(f[first], at), j = thread(f[first + 1], at);
    if (i >= j) throw Error(at + "a pair is written once, as 'I J' with I < J");
    to.push_back({static_cast<int>(i), static_cast<int>(j), count(f[first + 2], at), count(f[first + 3], at)});
  }
};

// The pairs i < j of an n x n table of C sums (SsPair: simple, rw; SsShared:
// lines, accesses) whose two values are not both zero.
template <class T, class V>
std::vector<PairSum> pairs_of(const T* m, unsigned n, V T::*a, V T::*b) {
  std::vector<PairSum> out;
  for (unsigned i = 0; m && i < n; ++i)
    for (unsigned j = i + 1; j < n; ++j) {
      const T& p = m[static_cast<size_t>(i) * n + j];
      if (p.*a || p.*b)
        out.push_back({static_cast<int>(i), static_cast<int>(j), static_cast<double>(p.*a),
                       static_cast<double>(p.*b)});
    }
  return out;
}

std::vector<PairSum> pairs_of(const SsPair* m, unsigned n) { return pairs_of(m, n, &SsPair::simple, &SsPair::rw); }

}  // namespace

Sums read_sums(const std::string& path) {
  std::ifstream in = open_run_file(path);
  return parse_sums(in, path);
}

Sums parse_sums(std::istream& in, const std::string& path) {
  Sums s;
  Reader r{s};
  parse_records(in, path, "slurm-pin-sharing", s.header,
                [&](const std::vector<std::string>& f, const std::string& at) { r.record(f, at); });
  if (s.header.threads == 0) throw Error(path + ": no 'threads N' line");
  if (!r.have_lines) throw Error(path + ": no 'lines N' line: not a complete sharing file");
  s.region_accesses.resize(s.header.regions.size(), 0);
  s.region.resize(s.header.regions.size());
  return s;
}

Sums sum_trace(const Trace& t) {
  unsigned n = static_cast<unsigned>(t.header.threads), regions = static_cast<unsigned>(t.header.regions.size());
  std::vector<LineCounts> tables(n);
  std::vector<LineCounts*> of(n);
  for (unsigned i = 0; i < n; ++i) of[i] = &tables[i];
  SharingSums c{};
  auto release = [&] {
    for (LineCounts& l : tables) lc_release(&l);
  };
  try {
    for (const Access& a : t.accesses) {
      lc_add(&tables[a.thread], a.line, a.region, a.reads, a.writes);
    }
    ss_compute(&c, of.data(), n, regions);
  } catch (...) {
    ss_free(&c);
    release();
    throw;
  }
  Sums s;
  s.header = t.header;
  s.lines = static_cast<double>(c.lines);
  for (unsigned i = 0; i < n; ++i)
    s.thread_lines.push_back(static_cast<double>(c.thread_lines[i])),
        s.thread_accesses.push_back(static_cast<double>(c.thread_accesses[i]));
  for (unsigned r = 0; r < regions; ++r) {
    s.region_accesses.push_back(static_cast<double>(c.region_accesses[r]));
    s.region.push_back(pairs_of(c.region[r], n));
  }
  s.run = pairs_of(c.run, n), s.par = pairs_of(c.par, n);
  // A line both threads touch has accesses: lines and accesses are zero together.
  s.shared = pairs_of(c.shared, n, &SsShared::lines, &SsShared::accesses);
  ss_free(&c);
  release();
  return s;
}

namespace {

using PairTotals = std::map<std::pair<int, int>, std::pair<double, double>>;

void add_pairs(PairTotals& into, const std::vector<PairSum>& pairs) {
  for (const PairSum& p : pairs) {
    auto& t = into[{p.i, p.j}];
    t.first += p.a, t.second += p.b;
  }
}

std::vector<PairSum> pairs_of(const PairTotals& totals) {
  std::vector<PairSum> out;
  out.reserve(totals.size());
  for (const auto& [ij, ab] : totals) out.push_back({ij.first, ij.second, ab.first, ab.second});
  return out;
}

}  // namespace

Sums merge_sums(std::vector<Sums> parts) {
  if (parts.empty()) throw Error("no sums to merge");
  if (parts.size() == 1) return std::move(parts[0]);
  Sums out;
  out.header = parts[0].header;
  RunHeader& h = out.header;
  h.regions.clear(), h.sources.clear(), h.codes.clear();
  for (const Sums& s : parts)
    if (s.header.threads > h.threads) h.threads = s.header.threads, h.origins = s.header.origins;
  size_t threads = static_cast<size_t>(h.threads);
  out.thread_lines.assign(threads, 0), out.thread_accesses.assign(threads, 0);
  std::map<std::string, size_t> id_of;
  PairTotals run, par, shared;
  std::vector<PairTotals> region;
  for (const Sums& s : parts) {
    out.lines += s.lines;
    for (size_t t = 0; t < s.thread_lines.size() && t < threads; ++t)
      out.thread_lines[t] += s.thread_lines[t], out.thread_accesses[t] += s.thread_accesses[t];
    add_pairs(run, s.run), add_pairs(par, s.par), add_pairs(shared, s.shared);
    size_t regions = std::max(s.region.size(), s.region_accesses.size());
    for (size_t r = 0; r < regions; ++r) {
      std::string name = r < s.header.regions.size() ? s.header.regions[r] : "serial";
      auto [it, added] = id_of.emplace(name, id_of.size());
      if (added) {
        h.regions.push_back(name);
        h.sources.push_back(r < s.header.sources.size() ? s.header.sources[r] : "");
        h.codes.push_back(r < s.header.codes.size() ? s.header.codes[r] : std::pair<std::string, std::string>());
        region.emplace_back();
        out.region_accesses.push_back(0);
      }
      if (r < s.region_accesses.size()) out.region_accesses[it->second] += s.region_accesses[r];
      if (r < s.region.size()) add_pairs(region[it->second], s.region[r]);
    }
  }
  out.run = pairs_of(run), out.par = pairs_of(par), out.shared = pairs_of(shared);
  for (const PairTotals& r : region) out.region.push_back(pairs_of(r));
  // Sources and code addresses only where some process gave them.
  auto none = [&](auto member) {
    return std::all_of(parts.begin(), parts.end(), [&](const Sums& s) { return (s.header.*member).empty(); });
  };
  if (none(&RunHeader::sources)) h.sources.clear();
  if (none(&RunHeader::codes)) h.codes.clear();
  return out;
}

}  // namespace slurmpin
