// SPDX-License-Identifier: GPL-2.0-or-later
// Device locality: the GPUs and network adapters of a node (hwloc's PCI and
// OS devices), which of the GPUs a job may use (as Slurm's GRES says), and
// which of them each task gets: the ones nearest its CPUs, whose CPUs the
// task's share is then taken from (as mpibind does).
#pragma once
#include <hwloc.h>

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "topology/cpu_set.hh"

namespace slurmpin {

// A PCI device of the machine (hwloc's I/O objects), for device locality.
struct PciDevice {
  std::string busid;  // "0000:07:00.0"
  unsigned vendor = 0, class_id = 0;
  // Its OS devices: name ("cuda0", "rsmi0", "mlx5_0") and hwloc subtype
  // ("CUDA", "RSMI", "LevelZero", "OpenFabrics"...).
  std::vector<std::pair<std::string, std::string>> os_devices;
  // The PUs of each CPU-side ancestor, closest first (the CPUs near it), up
  // to the machine: how far any CPU is from the device.
  std::vector<CpuSet> around;
};

// Every PCI device of a loaded topology (with its I/O objects), in PCI bus
// order: the order CUDA_DEVICE_ORDER=PCI_BUS_ID and resource managers' GPU
// detection number GPUs in.
std::vector<PciDevice> pci_devices(hwloc_topology_t topo);

struct Gpu {
  std::string busid;     // PCI address, "0000:07:00.0"
  std::string variable;  // what selects it: CUDA_VISIBLE_DEVICES, ROCR_VISIBLE_DEVICES, ZE_AFFINITY_MASK
  std::string name;      // an OS device name for messages ("cuda3", "rsmi0"), or the bus id
  int index = 0;         // among the node's GPUs of its vendor, in PCI bus order
  CpuSet near;  // PUs of its closest CPU-side domain
};

struct Nic {
  std::string name;  // the OpenFabrics device ("mlx5_0"), or the network interface
  std::vector<CpuSet> around;  // its CPU-side ancestors' PUs, closest first
};

struct NodeDevices {
  std::vector<Gpu> gpus;
  std::vector<Nic> nics;
};

// The variables GPU runtimes choose devices by (NVIDIA, AMD, Intel),
// NULL-terminated: what a job's view of its GPUs is (Request::gpu_env).
extern const char* const kGpuEnvNames[];

// The node's GPUs (NVIDIA, AMD; Intel with a Level Zero device) and
// high-speed NICs (those with an OpenFabrics device), among its PCI devices
// (LoadedTopology::devices).
NodeDevices node_devices(const std::vector<PciDevice>& pci);

// A GPU the job may use, and how the job names it.
struct VisibleGpu {
  Gpu gpu;
  std::string token;  // its entry in the job's *_VISIBLE_DEVICES, or its index
};

// The GPUs the job may use, in the job's order. `env` holds the job's
// vendor variables (absent: unset); `indices` which of the node's GPUs its
// resource manager gave it ("0,2", by index among the vendor's GPUs; empty:
// not said). The vendor variable's entries are the job's names; `indices`
// (or the entries themselves, when they are numbers) say which GPUs of the
// node they are. Neither: every GPU of the node. Throws Error when the job
// names a GPU the node does not have or that cannot be told.
std::vector<VisibleGpu> visible_gpus(const NodeDevices& node, const std::map<std::string, std::string>& env,
                                     const std::string& indices);

// Which of `gpus` (by position) each of `tasks` tasks gets: GPUs in the
// order of their CPUs, in blocks (tasks <= GPUs: task t gets GPUs
// [t*G/T, (t+1)*G/T)); more tasks than GPUs share them the same way.
std::vector<std::vector<int>> gpus_per_task(const std::vector<VisibleGpu>& gpus, int tasks);

// The NIC nearest `cpus`: the one with the smallest domain around it that
// holds any of them, then the most of them there; among equals, the one
// `uses` counts least (then the first), so tasks spread over a domain's
// NICs. "" when the node has none; the chosen NIC's count is increased.
std::string nearest_nic(const NodeDevices& node, const CpuSet& cpus, std::vector<int>& uses);


// The union of the CPUs near each task's GPUs (`task_gpus`: positions in
// `visible`, from gpus_per_task): where each task's CPUs are taken.
std::vector<CpuSet> cpus_near_gpus(const std::vector<VisibleGpu>& visible,
                                                  const std::vector<std::vector<int>>& task_gpus);

// What each task is told of its devices: its GPUs, by the job's names and
// the node's ("cuda3", for messages), and the NIC nearest its CPUs.
struct TaskDevices {
  std::vector<std::string> gpus, gpu_names;
  std::string nic;
};
std::vector<TaskDevices> task_devices(const NodeDevices& node, const std::vector<VisibleGpu>& visible,
                                      const std::vector<std::vector<int>>& task_gpus,
                                      const std::vector<CpuSet>& task_cpus);

}  // namespace slurmpin
