// SPDX-License-Identifier: GPL-2.0-or-later
// Independent pieces of one placement (a step's regions) computed on the
// CPUs the caller may run on. slurmstepd places a step before any of its
// tasks starts, on CPUs the step owns and that sit idle until then; a
// profile of 100 regions is 100 placements of the whole node. Memory stays
// bounded by the input: each thread works on a piece of its own (a
// region's matrix, already held), and a placement's working set is of the
// order of its matrix.
#pragma once
#include <sched.h>

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <exception>
#include <system_error>
#include <thread>
#include <vector>

namespace slurmpin {

// At most this many threads place one request: beyond it, reading the
// profile and writing the result are the larger part.
constexpr int kMaxPlacingThreads = 32;

// Threads for `pieces` pieces of work: no more than the CPUs the calling
// thread may run on (its affinity: in slurmstepd under task/cgroup, the
// step's), nor than `owned` (the CPUs the request places on: the step's
// on its node, so a step never computes on more CPUs than it was given,
// whatever slurmstepd's affinity), one per piece, kMaxPlacingThreads; 1
// when the affinity cannot be read (more CPUs than a cpu_set_t holds).
inline int placing_threads(size_t pieces, size_t owned) {
  cpu_set_t set;
  int cpus = sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) : 1;
  size_t most = std::min<size_t>({static_cast<size_t>(std::max(cpus, 1)), owned, kMaxPlacingThreads, pieces});
  return static_cast<int>(std::max<size_t>(1, most));
}

// Runs f(0) .. f(n - 1) on up to `threads` threads (the caller's among
// them), each index once, and returns when all are done. f must not share
// what it writes between indices. An exception from f(i) is rethrown after
// every piece has ended, the lowest index's first, so the error does not
// depend on the threads' timing. If the system will not start a thread, the
// ones started (and the caller) do the work.
template <class F>
void for_each_index(size_t n, int threads, F f) {
  std::vector<std::exception_ptr> errors(n);
  std::atomic<size_t> next{0};
  auto work = [&] {
    for (size_t i; (i = next.fetch_add(1)) < n;) {
      try {
        f(i);
      } catch (...) {
        errors[i] = std::current_exception();
      }
    }
  };
  std::vector<std::thread> pool;
  for (int t = 1; t < threads; ++t) {
    try {
      pool.emplace_back(work);
    } catch (const std::system_error&) {
      break;
    }
  }
  work();
  for (std::thread& t : pool) t.join();
  for (const std::exception_ptr& e : errors)
    if (e) std::rethrow_exception(e);
}

}  // namespace slurmpin
