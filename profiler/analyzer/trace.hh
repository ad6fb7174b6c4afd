// SPDX-License-Identifier: GPL-2.0-or-later
// The files backends write (docs/profiler.md): a header (tool, line size,
// threads, regions, where each thread came from), then records, then 'end'.
// A raw trace's records are per thread (in creation order), per region, per
// cache line, how many reads and writes; sums.hh reads the other kind.
#pragma once
#include <cstdint>
#include <functional>
#include <istream>
#include <string>
#include <vector>

namespace slurmpin {

struct ThreadOrigin {
  int creator = -1;   // creation index of the thread that created it; -1: none (the main thread)
  std::string start;  // its start routine, "-" when unknown
};

struct RunHeader {
  std::string tool;
  int line_size = 64;
  int threads = 0;
  std::vector<std::string> regions;   // id -> name; 0 is "serial"
  std::vector<std::string> sources;   // id -> "file.c:31", "" unknown (as long as regions, or shorter)
  // id -> the object and address of its code, for addr2line (the compiler
  // backend's regions); object "" when not given.
  std::vector<std::pair<std::string, std::string>> codes;
  std::vector<ThreadOrigin> origins;  // empty, or one per thread
};

struct Access {
  uint32_t thread, region;
  uint64_t line;
  uint64_t reads, writes;
};

struct Trace {
  RunHeader header;
  std::vector<Access> accesses;
};

// Strict: every malformed line is an Error naming file and line.
Trace read_trace(const std::string& path);
// The same from a stream; `path` names it in errors.
Trace parse_trace(std::istream& in, const std::string& path);

// What both kinds share: reads `in`, whose first line must be `magic 1`,
// fills the header, hands every other record to `body` (its fields and
// "path:line: " for errors), and refuses a file cut short before 'end'.
using RecordFn = std::function<void(const std::vector<std::string>&, const std::string&)>;
void parse_records(std::istream& in, const std::string& path, const std::string& magic, RunHeader& h,
                   const RecordFn& body);
// A field that must be a whole number (decimal, below 2^64).
uint64_t whole_number(const std::string& field, const std::string& at, const char* what);
// The file at `path`, or an Error saying the run wrote nothing.
std::ifstream open_run_file(const std::string& path);

}  // namespace slurmpin
