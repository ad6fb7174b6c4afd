// SPDX-License-Identifier: GPL-2.0-or-later
#include "process_binding.hh"

#include <hwloc.h>
#include <hwloc/glibc-sched.h>
#include <numa.h>
#include <sched.h>

#include <cerrno>
#include <cstring>
#include <memory>

#include "cpulist.hh"
#include "cpuset.hh"
#include "error.hh"

namespace slurmpin {

namespace {

// The kernel's CPU masks, sized for every id a list may hold.
constexpr int kMaskCpus = static_cast<int>(kMaxCpuId) + 1;

struct CpuSetFree {
  void operator()(cpu_set_t* s) const { CPU_FREE(s); }
};
using CpuSet = std::unique_ptr<cpu_set_t, CpuSetFree>;

CpuSet kernel_mask() {
  CpuSet s(CPU_ALLOC(kMaskCpus));
  if (!s) throw Error("out of memory");
  return s;
}

const size_t kMaskSize = CPU_ALLOC_SIZE(kMaskCpus);

}  // namespace

std::vector<unsigned> process_cpus() {
  CpuSet mask = kernel_mask();
  if (sched_getaffinity(0, kMaskSize, mask.get()) != 0)
    throw Error(std::string("cannot read this process's CPU affinity: ") + std::strerror(errno));
  Bitmap b(hwloc_bitmap_alloc());
  if (!b) throw Error("out of memory");
  // The topology argument is unused by hwloc's glibc helpers.
  hwloc_cpuset_from_glibc_sched_affinity(nullptr, b.get(), mask.get(), kMaskSize);
  return cpus_of(b.get());
}

void bind_process(const std::vector<unsigned>& cpus) {
  if (cpus.empty()) throw Error("no CPUs to bind to");
  if (cpus.back() > kMaxCpuId) throw Error("CPU " + std::to_string(cpus.back()) + " is beyond any machine");
  Bitmap want = bitmap_of(cpus);
  CpuSet mask = kernel_mask();
  hwloc_cpuset_to_glibc_sched_affinity(nullptr, want.get(), mask.get(), kMaskSize);
  std::string list = format_cpulist(cpus);
  if (sched_setaffinity(0, kMaskSize, mask.get()) != 0)
    throw Error("cannot bind to CPUs " + list + ": " + std::strerror(errno) +
                " (they are outside the CPUs this process may use)");
  // The kernel drops CPUs outside the cgroup without an error: read back.
  std::vector<unsigned> got = process_cpus();
  if (got != cpus)
    throw Error("asked for CPUs " + list + " but the kernel allows only " + format_cpulist(got) +
                ": they are outside the CPUs this process may use");
}

void set_memory_policy(MemPolicy mem, const std::vector<unsigned>& cpus) {
  if (mem == MemPolicy::kNone) return;
  std::string name = mem_policy_name(mem);
  if (numa_available() < 0)
    throw Error("memory policy " + name + ": this kernel has no NUMA support (use memory policy none)");
  if (mem == MemPolicy::kLocal) {
    numa_set_localalloc();
    return;
  }
  std::unique_ptr<bitmask, decltype(&numa_bitmask_free)> nodes(numa_allocate_nodemask(), numa_bitmask_free);
  for (unsigned c : cpus) {
    int node = numa_node_of_cpu(static_cast<int>(c));
    if (node >= 0) numa_bitmask_setbit(nodes.get(), static_cast<unsigned>(node));
  }
  if (numa_bitmask_weight(nodes.get()) == 0)
    throw Error("memory policy interleave: no NUMA node holds CPUs " + format_cpulist(cpus));
  numa_set_interleave_mask(nodes.get());
}

}  // namespace slurmpin
