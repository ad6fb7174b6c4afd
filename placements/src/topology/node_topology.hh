// SPDX-License-Identifier: GPL-2.0-or-later
// This node's topology, discovered once and saved as hwloc XML, so that
// every step reads it (a tenth of a millisecond) instead of discovering the
// machine again (milliseconds, more on large nodes). Slurm does the same
// with hwloc_topo_whole.xml in slurmd's spool directory. slurmd saves it as
// root when it starts; slurmstepd loads it as the user, and only when it is
// root's, writable by nobody else, in directories only root can change
// (common/trusted_dir.h), and describes the CPUs online now: otherwise the
// machine is discovered as before.
#pragma once
#include <hwloc.h>

#include <memory>
#include <string>

namespace slurmpin {

struct TopologyFree {
  void operator()(hwloc_topology* t) const { hwloc_topology_destroy(t); }
};
// An hwloc topology this code owns.
using TopologyPtr = std::unique_ptr<hwloc_topology, TopologyFree>;

// Discovers this machine (every PU, allowed or not, with PCI and OS
// devices) and writes it to `path` as XML, mode 0644, replacing the file
// atomically; creates missing directories of `path` (0755, root's) and
// refuses a path through a directory others could change.
// Throws Error naming the problem.
void save_node_topology(const std::string& path);

// The saved topology, loaded (with I/O objects when `io`); the caller owns
// it. nullptr, with `why` set, when it is missing, cannot be trusted or does
// not fit this node: the caller then discovers. Never used when HWLOC_*
// variables choose what this process would discover.
hwloc_topology_t load_node_topology(const std::string& path, bool io, std::string& why);

// True when HWLOC_XMLFILE, HWLOC_SYNTHETIC or the like choose what hwloc
// discovers: what is cached would not be what this process sees.
bool hwloc_source_overridden();

}  // namespace slurmpin
