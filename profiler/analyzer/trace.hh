// SPDX-License-Identifier: GPL-2.0-or-later
// The raw records every backend writes (docs/profiler.md): per thread (in
// creation order), per region, per cache line, how many reads and writes.
#pragma once
#include <cstdint>
#include <istream>
#include <string>
#include <vector>

namespace slurmpin {

struct Access {
  uint32_t thread, region;
  uint64_t line;
  uint64_t reads, writes;
};

struct Trace {
  std::string tool;
  int line_size = 64;
  int threads = 0;
  std::vector<std::string> regions;  // id -> name; 0 is "serial"
  std::vector<Access> accesses;
};

// Strict: every malformed line is an Error naming file and line.
Trace read_trace(const std::string& path);
// The same from a stream; `path` names it in errors.
Trace parse_trace(std::istream& in, const std::string& path);

}  // namespace slurmpin
