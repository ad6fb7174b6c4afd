// SPDX-License-Identifier: GPL-2.0-or-later
// What a backend hands over at the end of a run (docs/profiler.md): the
// sharing sums of every scope (whole run, parallel part, each region),
// computed inside the backend from its line tables by
// profiler/common/sharing_sums.h, never a trace to re-read. A raw trace
// (--keep-trace, the Pin tool) goes through the same C code here.
#pragma once
#include <cstdint>
#include <istream>
#include <string>
#include <vector>

#include "trace.hh"

namespace slurmpin {

struct PairSum {
  int i, j;     // i < j
  double a, b;  // simple and rw sharing; or, for `shared`, lines and accesses
};

struct Sums {
  RunHeader header;
  double lines = 0;  // distinct lines, all threads
  std::vector<double> thread_lines, thread_accesses, region_accesses;
  std::vector<PairSum> run, par, shared;
  std::vector<std::vector<PairSum>> region;  // by region id
};

// Strict, like traces: every malformed line is an Error naming file and
// line, and a file without its final 'end' is refused (a run cut short).
Sums read_sums(const std::string& path);
Sums parse_sums(std::istream& in, const std::string& path);

// The same sums from a raw trace, by the backends' own code.
Sums sum_trace(const Trace& t);

// The sums of several processes as one (the ranks of an MPI program, each
// run under the backend): thread i of every process adds up with thread i
// of the others, as SPMD ranks run the same threads (a process with fewer
// threads adds nothing to the others), lines and accesses add up (each
// process has its own memory), regions are matched by name. The header is
// the first's, with every region and the most threads' origins.
Sums merge_sums(std::vector<Sums> parts);

}  // namespace slurmpin
