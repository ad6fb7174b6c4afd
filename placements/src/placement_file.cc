#include "placement_file.hh"

#include <algorithm>
#include <cctype>
#include <set>

#include "cpulist.hh"
#include "error.hh"
#include "text_lines.hh"

namespace slurmpin {

namespace {

const char kHeader[] = "slurm-pin-placement";

// "task 3: 0 1 2" or "task 3 region NAME: 0 1 2".
void parse_task_line(const TextLine& l, const std::string& path, PlacementFile& p,
                     std::vector<std::pair<std::string, std::vector<int>>>& seen) {
  size_t colon = l.text.find(':');
  if (colon == std::string::npos)
    throw Error(where(path, l.number) + "missing ':' (write 'task N: CPUS-OF-THREAD-0 ...')");
  std::vector<std::string> head = split_fields(l.text.substr(0, colon));
  std::vector<std::string> cpus = split_fields_blank(l.text.substr(colon + 1));
  bool region = head.size() == 4 && head[2] == "region";
  if (!(head.size() == 2 || region) ||
      head[1].find_first_not_of("0123456789") != std::string::npos || head[1].size() > 6)
    throw Error(where(path, l.number) +
                "expected 'task N:' or 'task N region NAME:' (N is the task's local rank)");
  int task = std::stoi(head[1]);
  if (cpus.empty())
    throw Error(where(path, l.number) + "task " + head[1] + " lists no CPUs (one CPU list per thread)");
  std::string name = region ? head[3] : "";
  TaskCpus* target = &p.tasks;
  if (region) {
    auto it = std::find_if(p.regions.begin(), p.regions.end(),
                           [&](const auto& r) { return r.first == name; });
    if (it == p.regions.end()) {
      p.regions.emplace_back(name, TaskCpus());
      seen.emplace_back(name, std::vector<int>());
      it = p.regions.end() - 1;
    }
    target = &it->second;
  }
  auto s = std::find_if(seen.begin(), seen.end(), [&](const auto& x) { return x.first == name; });
  if (std::find(s->second.begin(), s->second.end(), task) != s->second.end())
    throw Error(where(path, l.number) + "task " + head[1] + (region ? " region " + name : "") +
                " is listed twice (keep one line per task)");
  if (task != static_cast<int>(target->size()))
    throw Error(where(path, l.number) + "task " + head[1] + " out of order: expected task " +
                std::to_string(target->size()) + " (list tasks 0, 1, 2, ... in order)");
  s->second.push_back(task);
  std::vector<std::vector<unsigned>> threads;
  for (const auto& c : cpus)
    threads.push_back(parse_cpulist(c, where(path, l.number) + "task " + head[1]));
  target->push_back(std::move(threads));
}

void check_shapes(const PlacementFile& p, const std::string& path, int last_line) {
  std::string at = where(path, last_line);
  if (p.tasks.empty()) throw Error(at + "no 'task N:' lines (give the CPUs of every thread)");
  size_t threads = p.tasks[0].size();
  std::set<unsigned> owner_check;
  for (size_t t = 0; t < p.tasks.size(); ++t) {
    if (p.tasks[t].size() != threads)
      throw Error(at + "task " + std::to_string(t) + " has " + std::to_string(p.tasks[t].size()) +
                  " threads but task 0 has " + std::to_string(threads) +
                  " (every task runs the same number of threads)");
    std::set<unsigned> mine;
    for (const auto& th : p.tasks[t]) mine.insert(th.begin(), th.end());
    for (unsigned c : mine)
      if (!owner_check.insert(c).second)
        throw Error(at + "CPU " + std::to_string(c) + " is given to two tasks (tasks must not share CPUs)");
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

PlacementFile read_placement_file(const std::string& path) {
  std::vector<TextLine> lines = read_text_lines(path, 16u << 20);
  PlacementFile p;
  bool header = false;
  std::vector<std::pair<std::string, std::vector<int>>> seen{{"", {}}};
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
      parse_task_line(l, path, p, seen);
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
