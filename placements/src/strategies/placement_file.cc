// SPDX-License-Identifier: GPL-2.0-or-later
#include "strategies/placement_file.hh"

#include <algorithm>
#include <cctype>
#include <unordered_map>
#include <utility>

#include "topology/cpulist.hh"
#include "error.hh"
#include "input/text_lines.hh"
#include "input/user_file.hh"

namespace slurmpin {

namespace {

const char kHeader[] = "slurm-pin-placement";

// "task 3: 0 1 2" or "task 3 region NAME: 0 1 2". Tasks come in order, so a
// task number below the next expected one was listed already: every check is
// constant time and a region is found through `region_index`.
void parse_task_line(const TextLine& l, const std::string& path, PlacementFile& p,
                     std::unordered_map<std::string, size_t>& region_index, unsigned max_cpu) {
  size_t colon = l.text.find(':');
  if (colon == std::string::npos)
    throw Error(where(path, l.number) + "missing ':' (write 'task N: CPUS-OF-THREAD-0 ...')");
  std::vector<std::string> head = split_fields(l.text.substr(0, colon));
  std::vector<std::string> cpus = split_fields_blank(l.text.substr(colon + 1));
  bool region = head.size() == 4 && head[2] == "region";
  if (!(head.size() == 2 || region) || head[1].empty() ||
      head[1].find_first_not_of("0123456789") != std::string::npos || head[1].size() > 6)
    throw Error(where(path, l.number) +
                "expected 'task N:' or 'task N region NAME:' (N is the task's local rank)");
  int task = std::stoi(head[1]);
  if (cpus.empty())
    throw Error(where(path, l.number) + "task " + head[1] + " lists no CPUs (one CPU list per thread)");
  std::string name = region ? head[3] : "";
  TaskCpus* target = &p.tasks;
  if (region) {
    auto it = region_index.find(name);
    if (it == region_index.end()) {
      it = region_index.emplace(name, p.regions.size()).first;
      p.regions.emplace_back(name, TaskCpus());
    }
    target = &p.regions[it->second].second;
  }
  if (task < static_cast<int>(target->size()))
    throw Error(where(path, l.number) + "task " + head[1] + (region ? " region " + name : "") +
                " is listed twice (keep one line per task)");
  if (task != static_cast<int>(target->size()))
    throw Error(where(path, l.number) + "task " + head[1] + " out of order: expected task " +
                std::to_string(target->size()) + " (list tasks 0, 1, 2, ... in order)");
  std::vector<CpuRanges> threads;
  for (const auto& c : cpus)
    threads.push_back(parse_cpu_ranges(c, where(path, l.number) + "task " + head[1], max_cpu));
  target->push_back(std::move(threads));
}

void check_shapes(const PlacementFile& p, const std::string& path, int last_line) {
  std::string at = where(path, last_line);
  if (p.tasks.empty()) throw Error(at + "no 'task N:' lines (give the CPUs of every thread)");
  size_t threads = p.tasks[0].size();
  std::vector<std::pair<CpuRange, size_t>> owned;  // each task's CPUs, merged
  for (size_t t = 0; t < p.tasks.size(); ++t) {
    if (p.tasks[t].size() != threads)
      throw Error(at + "task " + std::to_string(t) + " has " + std::to_string(p.tasks[t].size()) +
                  " threads but task 0 has " + std::to_string(threads) +
                  " (every task runs the same number of threads)");
    for (const CpuRange& r : task_cpus(p.tasks[t])) owned.emplace_back(r, t);
  }
  // Sorted by first CPU, a range that starts at or below the highest CPU seen
  // so far overlaps another task's (a task's own ranges are disjoint).
  std::sort(owned.begin(), owned.end(), [](const auto& a, const auto& b) { return a.first.lo < b.first.lo; });
  long highest = -1;
  for (const auto& o : owned) {
    if (static_cast<long>(o.first.lo) <= highest)
      throw Error(at + "CPU " + std::to_string(o.first.lo) + " is given to two tasks (tasks must not share CPUs)");
    highest = std::max(highest, static_cast<long>(o.first.hi));
  }
  for (const auto& r : p.regions) {
    if (r.second.size() != p.tasks.size())
      throw Error(at + "region " + r.first + " covers " + std::to_string(r.second.size()) + " of " +
                  std::to_string(p.tasks.size()) + " tasks (give a line for every task)");
    for (size_t t = 0; t < r.second.size(); ++t)
      if (r.second[t].size() != threads)
        throw Error(at + "region " + r.first + " task " + std::to_string(t) + " has " +
                    std::to_string(r.second[t].size()) + " threads, expected " +
                    std::to_string(threads));
  }
}

}  // namespace

CpuRanges task_cpus(const std::vector<CpuRanges>& threads) {
  CpuRanges all;
  for (const auto& th : threads) all.insert(all.end(), th.begin(), th.end());
  return merge_ranges(std::move(all));
}

PlacementFile read_placement_file(const std::string& path, unsigned max_cpu, size_t max_bytes) {
  return parse_placement_file(read_user_file(path, std::min(max_bytes, kMaxPlacementFileBytes)), path, max_cpu);
}

PlacementFile parse_placement_file(const std::string& text, const std::string& path, unsigned max_cpu) {
  std::vector<TextLine> lines = split_text_lines(text, path);
  PlacementFile p;
  bool header = false;
  std::unordered_map<std::string, size_t> region_index;
  int last = 0;
  for (const TextLine& l : lines) {
    if (l.text.empty()) continue;
    last = l.number;
    std::vector<std::string> f = split_fields_blank(l.text);
    if (!header) {
      if (f.size() != 2 || f[0] != kHeader)
        throw Error(where(path, l.number) + "not a placement file: the first line must be '" +
                    kHeader + " 1' (write one with `slurm-pin place --format placement`)");
      if (f[1] != "1")
        throw Error(where(path, l.number) + "placement format version " + f[1] +
                    " is not supported by this slurm-pin (it reads version 1): regenerate the file");
      header = true;
    } else if (f[0] == "topology") {
      p.topology = l.text.substr(l.text.find_first_of(" \t") + 1);
      p.topology = p.topology.substr(p.topology.find_first_not_of(" \t"));
    } else if (f[0] == "strategy") {
      if (f.size() != 2) throw Error(where(path, l.number) + "expected 'strategy NAME'");
      p.strategy = f[1];
    } else if (f[0] == "task") {
      parse_task_line(l, path, p, region_index, max_cpu);
    } else {
      throw Error(where(path, l.number) + "unknown key '" + f[0] +
                  "' (a placement file has topology, strategy and task lines)");
    }
  }
  if (!header) throw Error(path + ": empty placement file (write one with `slurm-pin place --format placement`)");
  check_shapes(p, path, last);
  return p;
}

namespace {
void format_tasks(const TaskCpus& tasks, const std::string& region, std::string& out) {
  for (size_t t = 0; t < tasks.size(); ++t) {
    out += "task " + std::to_string(t) + (region.empty() ? "" : " region " + region) + ":";
    for (const auto& th : tasks[t]) out += " " + format_cpulist(th);
    out += "\n";
  }
}
}  // namespace

std::string format_placement_file(const PlacementFile& p) {
  std::string out = std::string(kHeader) + " " + std::to_string(PlacementFile::kVersion) + "\n";
  if (!p.topology.empty()) out += "topology " + p.topology + "\n";
  if (!p.strategy.empty()) out += "strategy " + p.strategy + "\n";
  format_tasks(p.tasks, "", out);
  for (const auto& r : p.regions) format_tasks(r.second, r.first, out);
  return out;
}

}  // namespace slurmpin
