// SPDX-License-Identifier: GPL-2.0-or-later
// The node's placement cache entries (placement_cache.hh): root writes them,
// but a damaged one must be refused, never bind outside the tree. The input
// is an entry's body for 2 tasks of 2 threads on "pack:2 core:2 pu:2" with
// CPUs 2-3 not allowed (PUs as slots); when taken, every CPU is an allowed
// one and the entry, written again, reads back the same.
#include "fuzz_support.hh"
#include "placement_cache.hh"

using namespace slurmpin;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const LoadedTopology machine = [] {
    TopologySpec spec;
    spec.source = "pack:2 core:2 pu:2";
    spec.allowed = CpuSet::of(std::vector<unsigned>{0, 1, 4, 5, 6, 7});
    spec.granularity = Granularity::kPu;
    return *load_topology(spec);
  }();
  const std::string key = "fuzz\n", head = "slurm-pin-placement-cache 1\n" + key + "placement\n";
  Result r;
  if (!parse_cached_placement(head + input_text(data, size), key, machine.tree, 2, 2, r)) return 0;
  const CpuSet all = CpuSet::of(machine.tree.nodes[machine.tree.root].pus);
  std::vector<const std::vector<TaskPlace>*> lists{&r.tasks};
  for (const RegionPlace& rp : r.regions) lists.push_back(&rp.tasks);
  for (const auto* tasks : lists)
    for (const TaskPlace& t : *tasks)
      for (const ThreadPlace& th : t.threads)
        if (!all.includes(th.cpus) || !all.includes(t.share)) __builtin_trap();
  r.cache_key = key;
  std::string again = format_cached_placement(r);
  Result q;
  q.cache_key = key;
  if (again.empty()) return 0;
  if (!parse_cached_placement(again, key, machine.tree, 2, 2, q) || format_cached_placement(q) != again)
    __builtin_trap();
  return 0;
}
