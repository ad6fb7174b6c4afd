// SPDX-License-Identifier: GPL-2.0-or-later
// The machine as a tree of sharing domains, built from hwloc and restricted
// to the CPUs a job may use. Leaves are binding slots: cores by default,
// PUs on request. Objects with identical CPU sets (a package and its L3, a
// core and its L2) collapse into one node that carries every kind.
#pragma once
#include <hwloc.h>

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "topology/cpu_set.hh"
#include "topology/devices.hh"

namespace slurmpin {

// A synthetic topology ("pack:2 core:4 pu:2") may describe at most this many
// PUs: larger ones cost seconds and gigabytes to build, and no machine has
// them. An XML topology may be at most kMaxTopologyXmlBytes.
constexpr unsigned long long kMaxSyntheticPus = 16384;
constexpr size_t kMaxTopologyXmlBytes = 64u << 20;

// The PUs a synthetic description creates (the product of its arities), or
// 0 when it cannot tell; capped just above kMaxSyntheticPus. Used to refuse
// a description before hwloc builds it; `canonical` (if given) receives the
// text as counted, which is what hwloc must be given.
unsigned long long synthetic_pus(const std::string& text, std::string* canonical = nullptr);

enum class Granularity { kCore, kPu };

struct Domain {
  std::vector<std::string> kinds;  // "Package", "NUMANode", "L3", "L2", "Core", ...
  int parent = -1;
  std::vector<int> children;
  // OS indices of the PUs below, sorted: the tree's own index for the
  // strategies, which walk, count and copy it per slot; what leaves the tree
  // (a task's or thread's CPUs) is a CpuSet.
  std::vector<unsigned> pus;
  int slots = 0;              // number of binding slots below (1 for a slot)
  int origin = -1;            // index in the tree this one was copied from (-1: itself)
  bool has_kind(const std::string& k) const;
  bool is_slot() const { return children.empty(); }
  std::string label() const;  // kinds joined with '+'
};

class Tree {
 public:
  std::vector<Domain> nodes;
  int root = -1;

  // Slots below `node` in depth-first (hwloc logical) order.
  std::vector<int> slots_below(int node) const;
  std::vector<int> slots() const { return slots_below(root); }
  // A copy keeping only the given slots (and the domains above them).
  Tree restricted_to(const std::vector<int>& keep) const;
  // A copy where each slot holds `times` virtual slots (oversubscription).
  Tree oversubscribed(int times) const;
  // Kinds present below the root, outermost first ("NUMANode", "L3", ...).
  std::vector<std::string> kinds() const;
  // Counts per kind, e.g. "Package:2 L3:2 L2:8 Core:16 PU:16": the fingerprint
  // placement files carry.
  std::string summary() const;
  // The node of the original (unrestricted) tree that `node` stands for.
  int origin_of(int node) const { return nodes[node].origin >= 0 ? nodes[node].origin : node; }
  // Nearest node at or above `node` that carries `kind`, or -1.
  int ancestor_of_kind(int node, const std::string& kind) const;

 private:
  int copy_subtree(const Tree& from, int node, int parent, const std::vector<char>& keep);
  void recount(int node);
};

// Where a topology comes from: "this" (the running machine), an hwloc XML
// file, or an hwloc synthetic description ("pack:2 l3:1 core:4 pu:1").
struct TopologySpec {
  std::string source = "this";
  // For "this": where slurmd saved the node's topology (node_topology.hh),
  // read instead of discovering when it can be trusted; empty: discover.
  std::string cache;
  // A loaded hwloc topology the caller owns (sp_set_hwloc_topology), used
  // instead of `source`: copied at each use, never modified or memoised
  // (the caller may change or free it between calls).
  hwloc_topology_t given = nullptr;
  CpuSet allowed;  // empty = every PU
  Granularity granularity = Granularity::kCore;
  // smt:k (as mpibind): only the first k allowed PUs of each core are used,
  // each a slot of its own; 0 = every PU, slots by `granularity`.
  int smt = 0;
  // Also the machine's PCI devices (LoadedTopology::devices), for device
  // locality: a PCI scan when discovering a real machine.
  bool devices = false;
};

struct LoadedTopology {
  Tree tree;                  // restricted to `allowed`
  std::string fingerprint;    // summary of the whole machine, before restriction
  CpuSet all_pus;
  // The most hardware threads a core has among the allowed PUs (before
  // smt:k keeps k of them): smt beyond it changes nothing, and says so.
  int most_pus_per_core = 0;
  // With TopologySpec::devices: every PCI device of the whole machine
  // (devices.hh's pci_devices), in PCI bus order (the order CUDA_DEVICE_ORDER=PCI_BUS_ID and resource
  // managers' GPU detection number GPUs in); from the same load as the tree.
  std::vector<PciDevice> devices;
};

// Shared and never modified: slurmstepd asks for the same machine for every
// task and region, and a copy of the tree is hundreds of allocations.
std::shared_ptr<const LoadedTopology> load_topology(const TopologySpec& spec);


// PUs of the cores with these logical indices (hwloc order, which is the
// order Slurm numbers a node's cores in). Throws Error when the topology has
// fewer cores than an index asks for: it does not describe this node.
CpuSet pus_of_cores(const TopologySpec& spec, const std::vector<unsigned>& cores);

}  // namespace slurmpin
