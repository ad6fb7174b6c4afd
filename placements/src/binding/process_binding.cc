// SPDX-License-Identifier: GPL-2.0-or-later
#include "binding/process_binding.hh"

#include <numa.h>
#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <memory>
#include <string>

#include "topology/cpulist.hh"
#include "error.hh"

extern "C" {
#include "process_binding.h"
}

namespace slurmpin {

namespace {

// The kernel's CPU masks, as small as the machine allows: a mask sized for
// every possible id costs tens of microseconds per task to fill and scan.
constexpr size_t kMaskCpus = static_cast<size_t>(kMaxCpuId) + 1;

struct KernelMaskFree {
  void operator()(cpu_set_t* s) const { CPU_FREE(s); }
};
using KernelMask = std::unique_ptr<cpu_set_t, KernelMaskFree>;

KernelMask kernel_mask(size_t cpus) {
  KernelMask s(CPU_ALLOC(cpus));
  if (!s) throw Error("out of memory");
  CPU_ZERO_S(CPU_ALLOC_SIZE(cpus), s.get());
  return s;
}

// The CPUs the machine was configured with, rounded up: the kernel refuses
// (EINVAL) a mask shorter than its own, so callers double it then.
size_t first_mask_cpus(size_t at_least) {
  long conf = sysconf(_SC_NPROCESSORS_CONF);
  size_t n = std::max<size_t>(at_least, conf > 0 ? static_cast<size_t>(conf) : 0);
  return std::min(kMaskCpus, std::max<size_t>(1024, (n + 1023) / 1024 * 1024));
}

CpuSet cpus_in(const cpu_set_t* mask, size_t cpus) {
  CpuSet out;
  size_t size = CPU_ALLOC_SIZE(cpus);
  for (size_t c = 0, left = static_cast<size_t>(CPU_COUNT_S(size, mask)); left > 0 && c < cpus; ++c)
    if (CPU_ISSET_S(c, size, mask)) out.add(static_cast<unsigned>(c)), --left;
  return out;
}

}  // namespace

CpuSet process_cpus() {
  for (size_t cpus = first_mask_cpus(0);; cpus *= 2) {
    KernelMask mask = kernel_mask(cpus);
    if (sched_getaffinity(0, CPU_ALLOC_SIZE(cpus), mask.get()) == 0) return cpus_in(mask.get(), cpus);
    if (errno != EINVAL || cpus >= kMaskCpus)
      throw Error(std::string("cannot read this process's CPU affinity: ") + std::strerror(errno));
  }
}

void bind_process(const CpuSet& cpus) {
  if (cpus.empty()) throw Error("no CPUs to bind to");
  int last = cpus.last();  // -1: an infinite set
  if (last < 0 || static_cast<unsigned>(last) > kMaxCpuId)
    throw Error("CPU " + (last < 0 ? "list " + cpus.list() : std::to_string(last)) + " is beyond any machine");
  char err[1024];
  if (process_bind_cpus(cpus.list().c_str(), err, sizeof err) != 0) throw Error(err);
}

namespace {

// The NUMA nodes holding `cpus`, for interleave: throws when the kernel
// has no NUMA support or no node holds them.
std::unique_ptr<bitmask, decltype(&numa_bitmask_free)> interleave_nodes(const CpuSet& cpus) {
  if (numa_available() < 0)
    throw Error("memory policy interleave: this kernel has no NUMA support (use memory policy none)");
  std::unique_ptr<bitmask, decltype(&numa_bitmask_free)> nodes(numa_allocate_nodemask(), numa_bitmask_free);
  cpus.for_each([&](unsigned c) {
    int node = numa_node_of_cpu(static_cast<int>(c));
    if (node >= 0) numa_bitmask_setbit(nodes.get(), static_cast<unsigned>(node));
  });
  if (numa_bitmask_weight(nodes.get()) == 0)
    throw Error("memory policy interleave: no NUMA node holds CPUs " + cpus.list());
  return nodes;
}

}  // namespace

void set_memory_policy(MemPolicy mem, const CpuSet& cpus) {
  if (mem == MemPolicy::kNone) return;
  char err[1024];
  if (process_set_mem_policy(memory_policy_text(mem, cpus).c_str(), err, sizeof err) != 0) throw Error(err);
}

std::string memory_policy_text(MemPolicy mem, const CpuSet& cpus) {
  if (mem == MemPolicy::kNone) return "none";
  if (mem == MemPolicy::kLocal) {
    if (numa_available() < 0)
      throw Error("memory policy local: this kernel has no NUMA support (use memory policy none)");
    return "local";
  }
  auto nodes = interleave_nodes(cpus);
  CpuSet list;  // node ids, written as a list like CPUs'
  for (unsigned n = 0; n < nodes->size; ++n)
    if (numa_bitmask_isbitset(nodes.get(), n)) list.add(n);
  return "interleave " + list.list();
}

}  // namespace slurmpin
