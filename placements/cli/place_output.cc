// SPDX-License-Identifier: GPL-2.0-or-later
#include "place_output.hh"

#include <jansson.h>

#include <cstdio>
#include <map>
#include <memory>

#include "topology/cpulist.hh"
#include "error.hh"
#include "strategies/placement_file.hh"
#include "binding/task_binding.hh"

namespace slurmpin {

namespace {

// "Package#1 L3#1 L2#2 Core#5": where a slot sits, with logical indices.
class DomainNames {
 public:
  explicit DomainNames(const Tree& t) : t_(t), index_(t.nodes.size()) {
    std::map<std::string, int> next;
    for (int n : preorder())
      for (const auto& k : t.nodes[n].kinds) index_[n][k] = next[k]++;
  }

  std::string path(int slot) const {
    std::vector<std::string> parts;
    for (int n = slot; n >= 0; n = t_.nodes[n].parent)
      for (auto it = t_.nodes[n].kinds.rbegin(); it != t_.nodes[n].kinds.rend(); ++it)
        if (*it != "Machine") parts.push_back(*it + "#" + std::to_string(index_[n].at(*it)));
    std::string s;
    for (auto it = parts.rbegin(); it != parts.rend(); ++it) s += (s.empty() ? "" : " ") + *it;
    return s;
  }

 private:
  std::vector<int> preorder() const {
    std::vector<int> out, stack{t_.root};
    while (!stack.empty()) {
      int n = stack.back();
      stack.pop_back();
      out.push_back(n);
      const auto& c = t_.nodes[n].children;
      for (auto it = c.rbegin(); it != c.rend(); ++it) stack.push_back(*it);
    }
    return out;
  }

  const Tree& t_;
  std::vector<std::map<std::string, int>> index_;
};

std::string format_text(const OutputContext& c) {
  const Result& r = c.result;
  std::string out = "topology   " + r.fingerprint + "\nallowed    " +
                    format_cpulist(r.tree.nodes[r.tree.root].pus) + "\nstrategy   " +
                    c.strategy_name + "\n";
  DomainNames names(r.tree);
  char line[512];
  std::snprintf(line, sizeof line, "\n%-5s %-7s %-5s %-12s %s\n", "task", "thread", "pu", "cpus", "where");
  out += line;
  for (size_t t = 0; t < r.tasks.size(); ++t)
    for (size_t i = 0; i < r.tasks[t].threads.size(); ++i) {
      const ThreadPlace& th = r.tasks[t].threads[i];
      std::snprintf(line, sizeof line, "%-5zu %-7zu %-5s %-12s %s\n", t, i,
                    th.pu < 0 ? "-" : std::to_string(th.pu).c_str(), format_cpulist(th.cpus).c_str(),
                    th.slot < 0 ? "unbound" : names.path(th.slot).c_str());
      out += line;
    }
  // Device locality (--gpu closest): each task's GPUs and nearest NIC.
  if (!r.gpu_variable.empty() || (!r.tasks.empty() && !r.tasks[0].nic.empty())) {
    out += "\ntask  cpus         " + (r.gpu_variable.empty() ? std::string("-") : r.gpu_variable) + "  nic\n";
    for (size_t t = 0; t < r.tasks.size(); ++t) {
      std::string gpus;
      for (size_t g = 0; g < r.tasks[t].gpus.size(); ++g)
        gpus += (g ? "," : "") + r.tasks[t].gpus[g] + " (" + r.tasks[t].gpu_names[g] + ")";
      std::snprintf(line, sizeof line, "%-5zu %-12s %s  %s\n", t, format_cpulist(r.tasks[t].share).c_str(),
                    gpus.empty() ? "-" : gpus.c_str(), r.tasks[t].nic.empty() ? "-" : r.tasks[t].nic.c_str());
      out += line;
    }
  }
  out += "\nlevel      domains  sharing kept inside one domain\n";
  for (const auto& l : r.levels()) {
    char kept[32];
    if (r.scored) std::snprintf(kept, sizeof kept, "%.1f%%", 100 * l.fraction());
    else std::snprintf(kept, sizeof kept, "- (no matrix)");
    std::snprintf(line, sizeof line, "%-10s %7d  %s\n", l.kind.c_str(), l.domains, kept);
    out += line;
  }
  for (const auto& region : r.regions) {
    out += "\nregion " + region.name + (region.merged ? " (merged with the previous region)" : "") + "\n";
    for (size_t t = 0; t < region.tasks.size(); ++t) {
      out += "  task " + std::to_string(t) + ":";
      for (const auto& th : region.tasks[t].threads) out += " " + format_cpulist(th.cpus);
      out += "\n";
    }
  }
  for (const auto& n : r.notes) out += "note: " + n + "\n";
  return out;
}

struct JsonDeleter {
  void operator()(json_t* j) const { json_decref(j); }
};

std::string format_json(const OutputContext& c) {
  const Result& r = c.result;
  std::unique_ptr<json_t, JsonDeleter> root(json_object());
  json_t* o = root.get();
  json_object_set_new(o, "version", json_integer(1));
  json_object_set_new(o, "topology", json_string(r.fingerprint.c_str()));
  json_object_set_new(o, "allowed", json_string(format_cpulist(r.tree.nodes[r.tree.root].pus).c_str()));
  json_object_set_new(o, "strategy", json_string(c.strategy_name.c_str()));
  json_object_set_new(o, "seed", json_integer(static_cast<json_int_t>(c.request.seed)));
  if (!r.gpu_variable.empty()) json_object_set_new(o, "gpu_variable", json_string(r.gpu_variable.c_str()));
  json_t* tasks = json_array();
  for (size_t t = 0; t < r.tasks.size(); ++t) {
    json_t* task = json_object();
    json_object_set_new(task, "task", json_integer(static_cast<json_int_t>(t)));
    json_object_set_new(task, "cpus", json_string(format_cpulist(r.tasks[t].share).c_str()));
    json_t* threads = json_array();
    for (size_t i = 0; i < r.tasks[t].threads.size(); ++i) {
      const ThreadPlace& th = r.tasks[t].threads[i];
      json_t* j = json_object();
      json_object_set_new(j, "thread", json_integer(static_cast<json_int_t>(i)));
      json_object_set_new(j, "pu", th.pu < 0 ? json_null() : json_integer(th.pu));
      json_object_set_new(j, "cpus", json_string(format_cpulist(th.cpus).c_str()));
      json_array_append_new(threads, j);
    }
    json_object_set_new(task, "threads", threads);
    if (!r.gpu_variable.empty()) {
      json_t* gpus = json_array();
      for (const auto& g : r.tasks[t].gpus) json_array_append_new(gpus, json_string(g.c_str()));
      json_object_set_new(task, "gpus", gpus);
    }
    if (!r.tasks[t].nic.empty()) json_object_set_new(task, "nic", json_string(r.tasks[t].nic.c_str()));
    json_array_append_new(tasks, task);
  }
  json_object_set_new(o, "tasks", tasks);
  json_t* regions = json_array();
  for (const auto& region : r.regions) {
    json_t* j = json_object();
    json_object_set_new(j, "name", json_string(region.name.c_str()));
    json_object_set_new(j, "merged", json_boolean(region.merged));
    json_t* rt = json_array();
    for (const auto& task : region.tasks) {
      json_t* threads = json_array();
      for (const auto& th : task.threads) json_array_append_new(threads, json_string(format_cpulist(th.cpus).c_str()));
      json_array_append_new(rt, threads);
    }
    json_object_set_new(j, "tasks", rt);
    json_array_append_new(regions, j);
  }
  json_object_set_new(o, "regions", regions);
  json_t* levels = json_array();
  double quality = 0;
  for (const auto& l : r.levels()) {
    json_t* j = json_object();
    json_object_set_new(j, "level", json_string(l.kind.c_str()));
    json_object_set_new(j, "domains", json_integer(l.domains));
    if (r.scored) {
      json_object_set_new(j, "kept", json_real(l.kept));
      json_object_set_new(j, "total", json_real(l.total));
      json_object_set_new(j, "fraction", json_real(l.fraction()));
      quality += l.kept;
    }
    json_array_append_new(levels, j);
  }
  json_t* score = json_object();
  json_object_set_new(score, "levels", levels);
  json_object_set_new(score, "quality", r.scored ? json_real(quality) : json_null());
  json_object_set_new(o, "score", score);
  json_t* notes = json_array();
  for (const auto& n : r.notes) json_array_append_new(notes, json_string(n.c_str()));
  json_object_set_new(o, "notes", notes);
  char* text = json_dumps(o, JSON_COMPACT);
  std::string out = std::string(text) + "\n";
  free(text);
  return out;
}

// OpenMP places in placement order, one task per line, as tasks get them.
std::string format_omp(const Result& r) {
  std::string out;
  for (const auto& t : r.tasks) out += omp_places(t) + "\n";
  return out;
}

std::string format_likwid(const Result& r) {
  std::string out;
  for (const auto& t : r.tasks) {
    std::string line;
    for (const auto& th : t.threads)
      if (th.pu >= 0) line += (line.empty() ? "" : ",") + std::to_string(th.pu);
    out += line + "\n";
  }
  return out;
}

std::string format_placement(const OutputContext& c) {
  PlacementFile p;
  p.topology = c.result.fingerprint;
  p.strategy = c.strategy_name;
  auto cpus_of = [](const std::vector<TaskPlace>& tasks) {
    TaskCpus out;
    for (const auto& t : tasks) {
      out.emplace_back();
      for (const auto& th : t.threads) out.back().push_back(ranges_of(th.cpus));
    }
    return out;
  };
  p.tasks = cpus_of(c.result.tasks);
  for (const auto& region : c.result.regions) p.regions.emplace_back(region.name, cpus_of(region.tasks));
  return format_placement_file(p);
}

}  // namespace

std::string format_result(const std::string& format, const OutputContext& c) {
  if (format == "text") return format_text(c);
  if (format == "json") return format_json(c);
  if (format == "omp") return format_omp(c.result);
  if (format == "likwid") return format_likwid(c.result);
  if (format == "placement") return format_placement(c);
  throw Error("unknown format '" + format + "': use text, json, omp, likwid or placement");
}

}  // namespace slurmpin
