// SPDX-License-Identifier: GPL-2.0-or-later
#include "place_output.hh"

#include <jansson.h>

#include <cstdio>
#include <memory>
#include <vector>

#include "api_check.hh"
#include "error.hh"

namespace slurmpin {

namespace {

std::string task_cpus(sp_placement_t* p, int t) {
  return cpu_list(sp_get_task_cpuset(p, t));
}

std::string thread_cpus(sp_placement_t* p, int t, int i) {
  return cpu_list(sp_get_thread_cpuset(p, t, i));
}

std::string region_cpus(sp_placement_t* p, int r, int t, int i) {
  return text_of(p, [&](char* b, size_t l) { return sp_get_region_thread_cpus(p, r, t, i, b, l); });
}

std::string allowed_cpus(sp_placement_t* p) {
  return text_of(p, [&](char* b, size_t l) { return sp_get_allowed_cpus(p, b, l); });
}

// The job's GPU variable the tasks' GPUs are named for (CUDA_VISIBLE_DEVICES,
// ...): the one of the task environment; "" when the placement sets none.
std::string gpu_variable(sp_placement_t* p) {
  for (int i = 0; i < sp_get_env_count(p); ++i) {
    std::string name = text_of(p, [&](char* b, size_t l) { return sp_get_env_name(p, i, b, l); });
    for (const char* const* g = sp_job_gpu_variable_names(); *g; ++g)
      if (name == *g) return name;
  }
  return "";
}

// A comma-separated list's items ("" has none).
std::vector<std::string> items(const std::string& list) {
  std::vector<std::string> out;
  if (list.empty()) return out;
  size_t start = 0;
  for (size_t comma; (comma = list.find(',', start)) != std::string::npos; start = comma + 1)
    out.push_back(list.substr(start, comma - start));
  out.push_back(list.substr(start));
  return out;
}

// Task `t`'s GPUs as the job's variable names them ("0", "2").
std::vector<std::string> task_gpus(sp_placement_t* p, int t) {
  return items(text_of(p, [&](char* b, size_t l) { return sp_get_task_gpus(p, t, b, l); }));
}

// Threads of task `t` (the API's CPU sets: no list is formatted to count them).
int threads_of(sp_placement_t* p, int t) {
  int n = 0;
  while (sp_get_thread_cpuset(p, t, n)) ++n;
  return n;
}

// Threads of task `t` in region `r`.
int region_threads_of(sp_placement_t* p, int r, int t) {
  int n = 0;
  while (sp_get_region_thread_cpus(p, r, t, n, nullptr, 0) >= 0) ++n;
  return n;
}

std::string format_text(const OutputContext& c) {
  sp_placement_t* p = c.placement;
  std::string out = std::string("topology   ") + sp_get_fingerprint(p) + "\nallowed    " + allowed_cpus(p) +
                    "\nstrategy   " + c.strategy_name + "\n";
  char line[512];
  std::snprintf(line, sizeof line, "\n%-5s %-7s %-5s %-12s %s\n", "task", "thread", "pu", "cpus", "where");
  out += line;
  for (int t = 0; t < sp_get_ntasks(p); ++t)
    for (int i = 0, n = threads_of(p, t); i < n; ++i) {
      int pu = sp_get_thread_pu(p, t, i);
      std::string where = text_of(p, [&](char* b, size_t l) { return sp_get_thread_domain(p, t, i, b, l); });
      std::snprintf(line, sizeof line, "%-5d %-7d %-5s %-12s %s\n", t, i, pu < 0 ? "-" : std::to_string(pu).c_str(),
                    thread_cpus(p, t, i).c_str(), where.empty() ? "unbound" : where.c_str());
      out += line;
    }
  // Device locality (--gpu closest): each task's GPUs and nearest NIC.
  std::string variable = gpu_variable(p);
  auto nic_of = [&](int t) { return text_of(p, [&](char* b, size_t l) { return sp_get_task_nic(p, t, b, l); }); };
  if (!variable.empty() || (sp_get_ntasks(p) > 0 && !nic_of(0).empty())) {
    out += "\ntask  cpus         " + (variable.empty() ? std::string("-") : variable) + "  nic\n";
    for (int t = 0; t < sp_get_ntasks(p); ++t) {
      std::string gpus;
      std::vector<std::string> ids = task_gpus(p, t),
                               names = items(text_of(p, [&](char* b, size_t l) { return sp_get_task_gpu_names(p, t, b, l); }));
      for (size_t g = 0; g < ids.size() && g < names.size(); ++g)
        gpus += std::string(g ? "," : "") + ids[g] + " (" + names[g] + ")";
      std::string nic = nic_of(t);
      std::snprintf(line, sizeof line, "%-5d %-12s %s  %s\n", t, task_cpus(p, t).c_str(),
                    gpus.empty() ? "-" : gpus.c_str(), nic.empty() ? "-" : nic.c_str());
      out += line;
    }
  }
  bool tasks = sp_get_level_task_traffic(p, 0, nullptr, nullptr) == 0;
  out += std::string("\nlevel      domains  sharing kept inside one domain") +
         (tasks ? "   task traffic kept inside one domain\n" : "\n");
  for (int l = 0; l < sp_get_nlevels(p); ++l) {
    char kept[32], traffic[32] = "";
    double score = sp_get_level_score(p, l), k = 0, all = 0;
    if (score >= 0) std::snprintf(kept, sizeof kept, "%.1f%%", 100 * score);
    else std::snprintf(kept, sizeof kept, "- (no matrix)");
    if (tasks && sp_get_level_task_traffic(p, l, &k, &all) == 0)
      std::snprintf(traffic, sizeof traffic, "%.1f%%", all > 0 ? 100 * k / all : 0.0);
    if (tasks)
      std::snprintf(line, sizeof line, "%-10s %7d  %-33s%s\n", sp_get_level_name(p, l), sp_get_level_domains(p, l),
                    kept, traffic);
    else
      std::snprintf(line, sizeof line, "%-10s %7d  %s\n", sp_get_level_name(p, l), sp_get_level_domains(p, l), kept);
    out += line;
  }
  for (int r = 0; r < sp_get_nregions(p); ++r) {
    out += std::string("\nregion ") + sp_get_region_name(p, r) +
           (sp_get_region_merged(p, r) == 1 ? " (merged with the previous region)" : "") + "\n";
    for (int t = 0; t < sp_get_ntasks(p); ++t) {
      out += "  task " + std::to_string(t) + ":";
      for (int i = 0, n = region_threads_of(p, r, t); i < n; ++i) out += " " + region_cpus(p, r, t, i);
      out += "\n";
    }
  }
  for (int i = 0; i < sp_get_nnotes(p); ++i) out += "note: " + note(p, i) + "\n";
  return out;
}

struct JsonDeleter {
  void operator()(json_t* j) const { json_decref(j); }
};

json_t* json_task(sp_placement_t* p, int t, bool gpus) {
  json_t* task = json_object();
  json_object_set_new(task, "task", json_integer(t));
  json_object_set_new(task, "cpus", json_string(task_cpus(p, t).c_str()));
  json_t* threads = json_array();
  for (int i = 0, n = threads_of(p, t); i < n; ++i) {
    int pu = sp_get_thread_pu(p, t, i);
    json_t* j = json_object();
    json_object_set_new(j, "thread", json_integer(i));
    json_object_set_new(j, "pu", pu < 0 ? json_null() : json_integer(pu));
    json_object_set_new(j, "cpus", json_string(thread_cpus(p, t, i).c_str()));
    json_array_append_new(threads, j);
  }
  json_object_set_new(task, "threads", threads);
  if (gpus) {
    json_t* list = json_array();
    for (const std::string& g : task_gpus(p, t)) json_array_append_new(list, json_string(g.c_str()));
    json_object_set_new(task, "gpus", list);
  }
  std::string nic = text_of(p, [&](char* b, size_t l) { return sp_get_task_nic(p, t, b, l); });
  if (!nic.empty()) json_object_set_new(task, "nic", json_string(nic.c_str()));
  return task;
}

json_t* json_regions(sp_placement_t* p) {
  json_t* regions = json_array();
  for (int r = 0; r < sp_get_nregions(p); ++r) {
    json_t* j = json_object();
    json_object_set_new(j, "name", json_string(sp_get_region_name(p, r)));
    json_object_set_new(j, "merged", json_boolean(sp_get_region_merged(p, r) == 1));
    json_t* rt = json_array();
    for (int t = 0; t < sp_get_ntasks(p); ++t) {
      json_t* threads = json_array();
      for (int i = 0, n = region_threads_of(p, r, t); i < n; ++i)
        json_array_append_new(threads, json_string(region_cpus(p, r, t, i).c_str()));
      json_array_append_new(rt, threads);
    }
    json_object_set_new(j, "tasks", rt);
    json_array_append_new(regions, j);
  }
  return regions;
}

json_t* json_score(sp_placement_t* p) {
  json_t* levels = json_array();
  double quality = 0;
  bool scored = false;
  for (int l = 0; l < sp_get_nlevels(p); ++l) {
    json_t* j = json_object();
    json_object_set_new(j, "level", json_string(sp_get_level_name(p, l)));
    json_object_set_new(j, "domains", json_integer(sp_get_level_domains(p, l)));
    double kept = 0, total = 0;
    if (sp_get_level_sharing(p, l, &kept, &total) == 0) {
      scored = true;
      json_object_set_new(j, "kept", json_real(kept));
      json_object_set_new(j, "total", json_real(total));
      json_object_set_new(j, "fraction", json_real(sp_get_level_score(p, l)));
      quality += kept;
    }
    if (sp_get_level_task_traffic(p, l, &kept, &total) == 0) {
      json_t* t = json_object();
      json_object_set_new(t, "kept", json_real(kept));
      json_object_set_new(t, "total", json_real(total));
      json_object_set_new(j, "task_traffic", t);
    }
    json_array_append_new(levels, j);
  }
  json_t* score = json_object();
  json_object_set_new(score, "levels", levels);
  json_object_set_new(score, "quality", scored ? json_real(quality) : json_null());
  return score;
}

std::string format_json(const OutputContext& c) {
  sp_placement_t* p = c.placement;
  std::unique_ptr<json_t, JsonDeleter> root(json_object());
  json_t* o = root.get();
  std::string variable = gpu_variable(p);
  json_object_set_new(o, "version", json_integer(1));
  json_object_set_new(o, "topology", json_string(sp_get_fingerprint(p)));
  json_object_set_new(o, "allowed", json_string(allowed_cpus(p).c_str()));
  json_object_set_new(o, "strategy", json_string(c.strategy_name.c_str()));
  json_object_set_new(o, "seed", json_integer(static_cast<json_int_t>(c.seed)));
  if (!variable.empty()) json_object_set_new(o, "gpu_variable", json_string(variable.c_str()));
  json_t* tasks = json_array();
  for (int t = 0; t < sp_get_ntasks(p); ++t) json_array_append_new(tasks, json_task(p, t, !variable.empty()));
  json_object_set_new(o, "tasks", tasks);
  json_object_set_new(o, "regions", json_regions(p));
  json_object_set_new(o, "score", json_score(p));
  json_t* notes = json_array();
  for (int i = 0; i < sp_get_nnotes(p); ++i) json_array_append_new(notes, json_string(note(p, i).c_str()));
  json_object_set_new(o, "notes", notes);
  char* text = json_dumps(o, JSON_COMPACT);
  std::string out = std::string(text) + "\n";
  free(text);
  return out;
}

// OpenMP places, one task per line, as tasks get them in OMP_PLACES.
std::string format_omp(sp_placement_t* p) {
  std::string out;
  for (int t = 0; t < sp_get_ntasks(p); ++t)
    out += text_of(p, [&](char* b, size_t l) { return sp_get_task_omp_places(p, t, b, l); }) + "\n";
  return out;
}

std::string format_likwid(sp_placement_t* p) {
  std::string out;
  for (int t = 0; t < sp_get_ntasks(p); ++t) {
    std::string line;
    for (int i = 0, n = threads_of(p, t); i < n; ++i)
      if (int pu = sp_get_thread_pu(p, t, i); pu >= 0) line += (line.empty() ? "" : ",") + std::to_string(pu);
    out += line + "\n";
  }
  return out;
}

}  // namespace

std::string format_result(const std::string& format, const OutputContext& c) {
  if (format == "text") return format_text(c);
  if (format == "json") return format_json(c);
  if (format == "omp") return format_omp(c.placement);
  if (format == "likwid") return format_likwid(c.placement);
  if (format == "placement")
    return text_of(c.placement, [&](char* b, size_t l) { return sp_get_placement_file(c.placement, c.strategy_name.c_str(), b, l); });
  throw Error("unknown format '" + format + "': use text, json, omp, likwid or placement");
}


// A share of all traffic, for people.
std::string share_of(double part, double total) {
  char b[64];
  std::snprintf(b, sizeof b, "%.6g (%.1f%%)", part, total > 0 ? 100 * part / total : 0.0);
  return b;
}

std::string format_rank_nodes(const std::string& format, const std::vector<std::string>& names,
                              const std::vector<int>& node_of, const sp_rank_traffic& t) {
  std::string out;
  if (format == "hostfile") {
    for (int n : node_of) out += names[static_cast<size_t>(n)] + "\n";
    return out;
  }
  if (format == "json") {
    std::unique_ptr<json_t, JsonDeleter> root(json_object());
    json_t* nodes = json_array();
    for (int n : node_of) json_array_append_new(nodes, json_string(names[static_cast<size_t>(n)].c_str()));
    json_object_set_new(root.get(), "node_of_rank", nodes);
    json_t* traffic = json_object();
    json_object_set_new(traffic, "total", json_real(t.total));
    json_object_set_new(traffic, "crossing", json_real(t.crossing));
    json_object_set_new(traffic, "block", json_real(t.block));
    json_object_set_new(traffic, "cyclic", json_real(t.cyclic));
    json_object_set_new(root.get(), "traffic", traffic);
    char* text = json_dumps(root.get(), JSON_COMPACT);
    out = std::string(text) + "\n";
    free(text);
    return out;
  }
  out = "node       ranks\n";
  for (size_t n = 0; n < names.size(); ++n) {
    std::string ranks;
    for (size_t r = 0; r < node_of.size(); ++r)
      if (node_of[r] == static_cast<int>(n)) ranks += (ranks.empty() ? "" : ",") + std::to_string(r);
    char line[64];
    std::snprintf(line, sizeof line, "%-10s ", names[n].c_str());
    out += line + ranks + "\n";
  }
  out += "\ntraffic crossing nodes\n";
  out += "  by traffic  " + share_of(t.crossing, t.total) + "\n";
  out += "  block       " + share_of(t.block, t.total) + "\n";
  out += "  cyclic      " + share_of(t.cyclic, t.total) + "\n";
  return out;
}

}  // namespace slurmpin
