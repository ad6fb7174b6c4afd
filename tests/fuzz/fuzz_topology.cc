// SPDX-License-Identifier: GPL-2.0-or-later
// Synthetic topology strings (--topology, topology=): slurm-pin refuses a
// description above its PU limit before hwloc builds it, and hands hwloc the
// text as it counted it, so its count must never be lower than what hwloc
// then builds. Small descriptions are built for real (larger ones cost
// seconds each).
#include <hwloc.h>

#include "fuzz_support.hh"
#include "topology/topology.hh"

using namespace slurmpin;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > 256) return 0;
  std::string text = input_text(data, size);
  if (text.find('\0') != std::string::npos) return 0;
  std::string canonical;  // what slurm-pin hands hwloc
  unsigned long long estimate = synthetic_pus(text, &canonical);
  if (estimate == 0 || estimate > 4096) return 0;  // refused before hwloc sees it
  hwloc_topology_t topo;
  if (hwloc_topology_init(&topo) < 0) return 0;
  if (hwloc_topology_set_synthetic(topo, canonical.c_str()) == 0 && hwloc_topology_load(topo) == 0) {
    int pus = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PU);
    if (static_cast<unsigned long long>(pus) > estimate) __builtin_trap();  // the bound held
  }
  hwloc_topology_destroy(topo);
  return 0;
}
