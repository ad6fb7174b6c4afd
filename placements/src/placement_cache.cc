// SPDX-License-Identifier: GPL-2.0-or-later
#include "placement_cache.hh"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <sstream>

// Inlined: the engine is loaded by every slurmstepd, one library fewer.
#define XXH_INLINE_ALL
#include <xxhash.h>

#include "error.hh"
#include "input/printable.hh"
#include "input/user_file.hh"
#include "topology/cpulist.hh"
#include "trusted_dir.h"

namespace slurmpin {

namespace {

// Bumped whenever an entry's meaning changes; with the engine's version in
// every key, an upgraded engine never reads what an older one placed.
constexpr int kFormat = 5;  // 2: tasks split evenly along the tree (every slot used); 3: with GPUs and scatter too; 4: XXH3 keys; 5: load first (busiest threads on distinct cores)
constexpr const char* kMagic = "slurm-pin-placement-cache";

// A store entry's text as xxHash's XXH3 (64 bits, gigabytes per second).
// Store entries are the admin's, so it need not resist crafted collisions;
// the key keeps the text's size beside it.
uint64_t text_hash(std::string_view s) { return XXH3_64bits(s.data(), s.size()); }

std::string hex(uint64_t v) {
  char b[17];
  std::snprintf(b, sizeof b, "%016llx", static_cast<unsigned long long>(v));
  return b;
}

// The allowed tree node by node: a placement's slots are indices into it.
void describe_tree(std::ostringstream& k, const Tree& t) {
  k << "tree " << t.root << " " << t.nodes.size() << "\n";
  for (const Domain& d : t.nodes)
    k << "n " << d.label() << " " << d.parent << " " << d.slots << " " << format_cpulist(d.pus) << "\n";
}

void format_task(std::ostringstream& o, const TaskPlace& t) {
  o << "task " << t.share.list() << "\n";
  for (const ThreadPlace& th : t.threads) o << "th " << th.slot << " " << th.pu << " " << th.cpus.list() << "\n";
}

// Reads an entry's body back, every value checked against the tree and the
// step: root wrote it, but a stale or damaged entry must not bind anything.
// Lines are walked in place (an entry of 100 regions of 128 threads has
// 12,800 thread lines, read at every step's launch).
class EntryReader {
 public:
  EntryReader(const char* begin, const char* end, const Tree& tree, int tasks, int threads)
      : at_(begin), end_(end), tree_(tree), tasks_(tasks), threads_(threads),
        allowed_(CpuSet::of(tree.nodes[tree.root].pus)) {}

  bool read(Result& out) {
    std::vector<TaskPlace>* into = &out.tasks;
    std::string line;
    while (next(line)) {
      if (line.rfind("note ", 0) == 0) {
        out.notes.push_back(line.substr(5));
      } else if (line.rfind("region ", 0) == 0 && line.size() > 9 && (line[7] == '0' || line[7] == '1')) {
        if (!complete(*into)) return false;
        out.regions.push_back(RegionPlace{line.substr(9), {}, line[7] == '1'});
        into = &out.regions.back().tasks;
      } else if (line.rfind("task ", 0) == 0) {
        if (static_cast<int>(into->size()) == tasks_ ||
            (!into->empty() && static_cast<int>(into->back().threads.size()) != threads_))
          return false;
        into->emplace_back();
        into->back().threads.reserve(static_cast<size_t>(threads_));
        if (!cpus(line.c_str() + 5, into->back().share, allowed_)) return false;
      } else if (line.rfind("th ", 0) == 0) {
        if (into->empty() || static_cast<int>(into->back().threads.size()) == threads_) return false;
        ThreadPlace th;
        if (!thread(line.c_str() + 3, th)) return false;
        into->back().threads.push_back(std::move(th));
      } else {
        return line == "end" && at_ == end_ && complete(*into) && complete(out.tasks);
      }
    }
    return false;  // no "end": cut short
  }

 private:
  bool next(std::string& line) {
    if (at_ == end_) return false;
    const char* nl = static_cast<const char*>(std::memchr(at_, '\n', static_cast<size_t>(end_ - at_)));
    if (!nl) return false;
    line.assign(at_, nl);
    at_ = nl + 1;
    return true;
  }

  bool complete(const std::vector<TaskPlace>& t) const {
    if (static_cast<int>(t.size()) != tasks_) return false;
    for (const TaskPlace& p : t)
      if (static_cast<int>(p.threads.size()) != threads_) return false;
    return true;
  }

  // A decimal number of at most 9 digits at *p, then `stop`.
  static bool number(const char*& p, char stop, long& v) {
    const char* from = p;
    v = 0;
    while (*p >= '0' && *p <= '9' && p - from < 9) v = v * 10 + (*p++ - '0');
    return p > from && *p++ == stop;
  }

  bool cpus(const char* text, CpuSet& out, const CpuSet& within) const {
    const char* p = text;
    long one;
    if (number(p, '\0', one)) {  // most threads: one CPU
      if (!allowed_.has(static_cast<unsigned>(one))) return false;
      out.add(static_cast<unsigned>(one));
    } else {
      try {
        out = CpuSet::of(parse_cpu_ranges(text, "cached placement", static_cast<unsigned>(allowed_.last())));
      } catch (const Error&) {
        return false;
      }
    }
    return !out.empty() && within.includes(out);
  }

  // "SLOT PU CPUS": a slot is a node of the tree and its PU that slot's
  // first; its CPUs may be wider than its task's (granularity l2, l3,
  // numa), never wider than the allowed ones.
  bool thread(const char* text, ThreadPlace& th) const {
    long slot, pu;
    if (!number(text, ' ', slot) || !number(text, ' ', pu) || slot >= static_cast<long>(tree_.nodes.size()) ||
        tree_.nodes[slot].pus.empty() || pu != static_cast<long>(tree_.nodes[slot].pus.front()))
      return false;
    th.slot = static_cast<int>(slot);
    th.pu = static_cast<int>(pu);
    return cpus(text, th.cpus, allowed_) && th.cpus.has(static_cast<unsigned>(th.pu));
  }

  const char *at_, *end_;
  const Tree& tree_;
  int tasks_, threads_;
  CpuSet allowed_;
};

}  // namespace

std::string placement_cache_key(const Request& r, const LoadedTopology& lt, const std::string& profile_path,
                                std::string_view profile_text) {
  if (r.cache_dir.empty() || !strategy_info(r.strategy).needs_matrix || r.gpu_closest || r.has_task_matrix) return "";
  std::ostringstream k;
  k << "engine " << SLURM_PIN_VERSION << " format " << kFormat << "\n";
  k << "machine " << lt.fingerprint << "\n";
  describe_tree(k, lt.tree);
  k << "granularity " << static_cast<int>(r.topology.granularity) << " widen " << r.widen_to << " smt "
    << r.topology.smt << " cores_whole " << r.cores_whole << "\n";
  k << "tasks " << r.tasks << " layout " << static_cast<int>(r.task_layout) << " threads " << r.threads
    << " oversubscribe " << r.oversubscribe << " seed " << r.seed << " max_file " << r.max_file_bytes << "\n";
  char merge[40];
  std::snprintf(merge, sizeof merge, "%.17g", r.phase_merge);
  k << "strategy " << strategy_info(r.strategy).name << " phases " << r.phases << " merge " << merge << "\n";
  k << "profile " << printable(profile_path) << " " << profile_text.size() << " " << hex(text_hash(profile_text))
    << " model " << r.profile_model << " region " << printable(r.profile_region) << "\n";
  k << "job_tasks " << r.job_tasks << " ranks";  // which rows of a rank section are this node's
  for (int rank : r.task_ranks) k << " " << rank;
  k << "\n";
  return k.str();
}

std::string placement_cache_name(const std::string& key) { return "placement-" + hex(text_hash(key)); }

bool read_cached_placement(const std::string& dir, const std::string& key, const Tree& tree, int tasks, int threads,
                           Result& out) {
  char err[512];
  Fd d(trusted_dir_open(dir.c_str(), 0, err, sizeof err));
  if (d.fd < 0) return false;
  size_t size = 0;
  // An entry is its key and one line per thread and region: a few times
  // the key, bounded like any file the engine reads for a step.
  std::unique_ptr<char, decltype(&std::free)> text(
      trusted_file_read(d.fd, placement_cache_name(key).c_str(), kMaxCacheEntryBytes, &size, err, sizeof err),
      &std::free);
  return text && parse_cached_placement(std::string_view(text.get(), size), key, tree, tasks, threads, out);
}

bool parse_cached_placement(std::string_view text, const std::string& key, const Tree& tree, int tasks, int threads,
                            Result& out) {
  std::string head = std::string(kMagic) + " " + std::to_string(kFormat) + "\n" + key + "placement\n";
  if (text.compare(0, head.size(), head) != 0) return false;
  Result got;
  if (!EntryReader(text.data() + head.size(), text.data() + text.size(), tree, tasks, threads).read(got))
    return false;
  out.tasks = std::move(got.tasks);
  out.regions = std::move(got.regions);
  out.notes = std::move(got.notes);
  return true;
}

std::string format_cached_placement(const Result& r) {
  // A name or note that would not read back as it is (a control byte: a
  // line break among them): not kept, as the thread library finds a region
  // by its exact name.
  for (const RegionPlace& rp : r.regions)
    if (printable(rp.name) != rp.name) return "";
  for (const std::string& n : r.notes)
    if (printable(n) != n) return "";
  std::ostringstream o;
  o << kMagic << " " << kFormat << "\n" << r.cache_key << "placement\n";
  for (const std::string& n : r.notes) o << "note " << n << "\n";
  for (const TaskPlace& t : r.tasks) format_task(o, t);
  for (const RegionPlace& rp : r.regions) {
    o << "region " << (rp.merged ? 1 : 0) << " " << rp.name << "\n";
    for (const TaskPlace& t : rp.tasks) format_task(o, t);
  }
  o << "end\n";
  std::string entry = o.str();
  return entry.size() <= kMaxCacheEntryBytes ? entry : "";
}

}  // namespace slurmpin
