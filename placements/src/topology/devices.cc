// SPDX-License-Identifier: GPL-2.0-or-later
#include "topology/devices.hh"

#include <algorithm>
#include <cstdio>
#include <tuple>

#include "error.hh"

namespace slurmpin {

const char* const kGpuEnvNames[] = {"CUDA_VISIBLE_DEVICES", "ROCR_VISIBLE_DEVICES", "ZE_AFFINITY_MASK", nullptr};

namespace {

constexpr unsigned kNvidia = 0x10de, kAmd = 0x1002, kIntel = 0x8086;

bool has_subtype(const PciDevice& d, const std::string& subtype) {
  for (const auto& o : d.os_devices)
    if (o.second == subtype) return true;
  return false;
}

// The variable a GPU runtime reads to choose devices, "" when not a GPU:
// display (0x03) or processing-accelerator (0x12) class.
std::string gpu_variable(const PciDevice& d) {
  unsigned base = d.class_id >> 8;
  if (base != 0x03 && base != 0x12) return "";
  if (d.vendor == kNvidia) return "CUDA_VISIBLE_DEVICES";
  if (d.vendor == kAmd) return "ROCR_VISIBLE_DEVICES";
  // Intel: only devices Level Zero drives, not a server's integrated graphics.
  if (d.vendor == kIntel && has_subtype(d, "LevelZero")) return "ZE_AFFINITY_MASK";
  return "";
}

std::vector<std::string> split_list(const std::string& s) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= s.size()) {
    size_t end = s.find(',', start);
    if (end == std::string::npos) end = s.size();
    out.push_back(s.substr(start, end - start));
    start = end + 1;
  }
  return out;
}

bool is_index(const std::string& s) {
  return !s.empty() && s.size() <= 6 && s.find_first_not_of("0123456789") == std::string::npos;
}

const std::string* find(const std::map<std::string, std::string>& env, const std::string& name) {
  auto it = env.find(name);
  return it == env.end() ? nullptr : &it->second;
}

// How much of `cpus` lies near a device.
size_t overlap(const CpuSet& near, const CpuSet& cpus) { return (near & cpus).count(); }

}  // namespace

NodeDevices node_devices(const std::vector<PciDevice>& pci) {
  NodeDevices out;
  std::map<std::string, int> per_vendor;
  for (const PciDevice& d : pci) {
    std::string var = gpu_variable(d);
    if (!var.empty()) {
      Gpu g{d.busid, var, d.os_devices.empty() ? d.busid : d.os_devices.front().first, per_vendor[var]++,
            d.around.empty() ? CpuSet() : d.around.front()};
      out.gpus.push_back(g);
      continue;
    }
    for (const auto& o : d.os_devices)
      if (o.second == "OpenFabrics") {
        out.nics.push_back({o.first, d.around});
        break;
      }
  }
  return out;
}

std::vector<VisibleGpu> visible_gpus(const NodeDevices& node, const std::map<std::string, std::string>& env,
                                     const std::string& indices) {
  std::vector<VisibleGpu> out;
  if (node.gpus.empty()) return out;
  // One vendor's GPUs per node: the first one's (mixed nodes use that one).
  const std::string var = node.gpus.front().variable;
  std::vector<const Gpu*> mine;
  for (const Gpu& g : node.gpus)
    if (g.variable == var) mine.push_back(&g);
  const std::string *listed = find(env, var), *given = indices.empty() ? nullptr : &indices;
  if (!listed && !given) {
    for (const Gpu* g : mine) out.push_back({*g, std::to_string(g->index)});
    return out;
  }
  if (listed && listed->empty()) return out;  // the job may use no GPU
  std::vector<std::string> tokens = split_list(listed ? *listed : *given);
  std::vector<std::string> ids = given ? split_list(*given) : tokens;
  if (ids.size() != tokens.size()) ids = tokens;  // the indices are of another set: trust the entries
  for (size_t i = 0; i < tokens.size(); ++i) {
    if (!is_index(ids[i]))
      throw Error(var + " names GPU '" + tokens[i].substr(0, 64) +
                  "', which slurm-pin cannot match to this node's GPUs (it knows them by index): give the job's GPUs "
                  "by index, or turn GPU locality off (--pin-gpu=none)");
    size_t id = std::stoul(ids[i]);
    if (id >= mine.size())
      throw Error(var + " names GPU " + ids[i] + " but this node has " + std::to_string(mine.size()) +
                  " GPU" + (mine.size() == 1 ? "" : "s") + " (0-" + std::to_string(mine.size() - 1) +
                  "): check which GPUs the job was given, or turn GPU locality off (--pin-gpu=none)");
    out.push_back({*mine[id], tokens[i]});
  }
  return out;
}

std::vector<std::vector<int>> gpus_per_task(const std::vector<VisibleGpu>& gpus, int tasks) {
  std::vector<int> order(gpus.size());
  for (size_t i = 0; i < gpus.size(); ++i) order[i] = static_cast<int>(i);
  // By the first CPU near each, so that blocks of GPUs meet blocks of tasks.
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
    unsigned fa = gpus[a].gpu.near.empty() ? ~0u : static_cast<unsigned>(gpus[a].gpu.near.first());
    unsigned fb = gpus[b].gpu.near.empty() ? ~0u : static_cast<unsigned>(gpus[b].gpu.near.first());
    return fa < fb;
  });
  std::vector<std::vector<int>> out(tasks);
  long g = static_cast<long>(gpus.size());
  if (g == 0) return out;
  for (long t = 0; t < tasks; ++t) {
    if (tasks <= g) {
      for (long i = t * g / tasks; i < (t + 1) * g / tasks; ++i) out[t].push_back(order[i]);
    } else {
      out[t].push_back(order[t * g / tasks]);
    }
  }
  return out;
}

std::string nearest_nic(const NodeDevices& node, const CpuSet& cpus, std::vector<int>& uses) {
  uses.resize(node.nics.size(), 0);
  int best = -1;
  std::tuple<size_t, long, int> best_key;  // (level, -overlap, uses): smallest wins
  for (size_t i = 0; i < node.nics.size(); ++i) {
    const auto& around = node.nics[i].around;
    size_t level = 0;
    long o = 0;
    for (; level < around.size(); ++level)
      if ((o = static_cast<long>(overlap(around[level], cpus))) > 0) break;
    auto key = std::make_tuple(level, -o, uses[i]);
    if (best < 0 || key < best_key) best = static_cast<int>(i), best_key = key;
  }
  if (best < 0) return "";
  ++uses[best];
  return node.nics[best].name;
}

std::vector<CpuSet> cpus_near_gpus(const std::vector<VisibleGpu>& visible,
                                   const std::vector<std::vector<int>>& task_gpus) {
  std::vector<CpuSet> near;
  for (const auto& gpus : task_gpus) {
    CpuSet n;
    for (int g : gpus) n |= visible[g].gpu.near;
    near.push_back(n);
  }
  return near;
}

std::vector<TaskDevices> task_devices(const NodeDevices& node, const std::vector<VisibleGpu>& visible,
                                      const std::vector<std::vector<int>>& task_gpus,
                                      const std::vector<CpuSet>& task_cpus) {
  std::vector<TaskDevices> out(task_cpus.size());
  std::vector<int> nic_uses;
  for (size_t t = 0; t < task_cpus.size(); ++t) {
    for (int g : task_gpus[t]) {
      out[t].gpus.push_back(visible[g].token);
      out[t].gpu_names.push_back(visible[g].gpu.name);
    }
    out[t].nic = nearest_nic(node, task_cpus[t], nic_uses);
  }
  return out;
}

std::vector<PciDevice> pci_devices(hwloc_topology_t topo) {
  std::vector<PciDevice> out;
  for (hwloc_obj_t o = nullptr; (o = hwloc_get_next_pcidev(topo, o));) {
    PciDevice d;
    char busid[32];
    std::snprintf(busid, sizeof busid, "%04x:%02x:%02x.%01x", o->attr->pcidev.domain, o->attr->pcidev.bus,
                  o->attr->pcidev.dev, o->attr->pcidev.func);
    d.busid = busid;
    d.vendor = o->attr->pcidev.vendor_id;
    d.class_id = o->attr->pcidev.class_id;
    for (hwloc_obj_t c = o->io_first_child; c; c = c->next_sibling)
      if (c->type == HWLOC_OBJ_OS_DEVICE && c->name)
        d.os_devices.push_back({c->name, c->subtype ? c->subtype : ""});
    for (hwloc_obj_t a = hwloc_get_non_io_ancestor_obj(topo, o); a; a = a->parent)
      if (a->cpuset) d.around.emplace_back(a->cpuset);
    out.push_back(d);
  }
  std::sort(out.begin(), out.end(), [](const PciDevice& a, const PciDevice& b) { return a.busid < b.busid; });
  return out;
}

}  // namespace slurmpin
