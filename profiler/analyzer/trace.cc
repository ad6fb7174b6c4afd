// SPDX-License-Identifier: GPL-2.0-or-later
#include "trace.hh"

#include <cerrno>
#include <cinttypes>
#include <cstdlib>
#include <cstdio>
#include <cstring>
#include <fstream>

#include "error.hh"
#include "text_lines.hh"

namespace slurmpin {

namespace {

uint64_t number(const std::string& f, const std::string& at, const char* what) {
  errno = 0;
  char* end = nullptr;
  unsigned long long v = f.empty() || f.size() > 20 || f.find_first_not_of("0123456789") != std::string::npos
                             ? 0
                             : std::strtoull(f.c_str(), &end, 10);
  if (!end || *end || errno == ERANGE) throw Error(at + what + " '" + f.substr(0, 24) + "' is not a whole number");
  return v;
}

}  // namespace

// Traces can hold millions of records: read line by line, not all at once.
Trace read_trace(const std::string& path) {
  std::ifstream in(path);
  if (!in)
    throw Error(path + ": " + std::strerror(errno) +
                ": the profiling run ended without writing its trace (the program, or its node, was killed "
                "before it ended); run it again");
  return parse_trace(in, path);
}

Trace parse_trace(std::istream& in, const std::string& path) {
  Trace t;
  std::string raw;
  int number_of_line = 0;
  bool header = false, ended = false;
  while (std::getline(in, raw)) {
    ++number_of_line;
    std::string at = where(path, number_of_line);
    std::vector<std::string> f = split_fields_blank(raw);
    if (f.empty()) continue;
    if (ended) throw Error(at + "records after 'end'");
    if (header && f.size() == 1 && f[0] == "end") {
      ended = true;
    } else if (!header) {
      if (f.size() != 2 || f[0] != "slurm-pin-trace" || f[1] != "1")
        throw Error(at + "not a slurm-pin trace version 1 (the first line must be 'slurm-pin-trace 1')");
      header = true;
    } else if (f[0] == "a") {
      if (f.size() != 6) throw Error(at + "an access record is 'a THREAD REGION LINE READS WRITES'");
      Access a{static_cast<uint32_t>(number(f[1], at, "thread")), static_cast<uint32_t>(number(f[2], at, "region")),
               number(f[3], at, "line"), number(f[4], at, "reads"), number(f[5], at, "writes")};
      if (a.thread >= static_cast<uint32_t>(t.threads))
        throw Error(at + "thread " + f[1] + " but the trace declares " + std::to_string(t.threads) + " threads");
      if (a.region >= t.regions.size()) throw Error(at + "region " + f[2] + " was not declared");
      t.accesses.push_back(a);
    } else if (f[0] == "region") {
      if (f.size() < 3 || number(f[1], at, "region id") != t.regions.size())
        throw Error(at + "regions are declared in order: 'region ID NAME'");
      size_t name = raw.find(f[2], raw.find(f[1], raw.find(f[0]) + f[0].size()) + f[1].size());
      t.regions.push_back(raw.substr(name));
    } else if (f[0] == "threads") {
      if (f.size() != 2) throw Error(at + "expected 'threads N'");
      uint64_t n = number(f[1], at, "threads");
      if (n < 1 || n > 65536) throw Error(at + "threads must be from 1 to 65536");
      t.threads = static_cast<int>(n);
    } else if (f[0] == "line_size") {
      if (f.size() != 2) throw Error(at + "expected 'line_size N'");
      uint64_t n = number(f[1], at, "line_size");
      if (n < 8 || n > 4096 || (n & (n - 1))) throw Error(at + "line_size must be a power of two from 8 to 4096");
      t.line_size = static_cast<int>(n);
    } else if (f[0] == "tool") {
      t.tool = f.size() > 1 ? raw.substr(raw.find(f[1], raw.find(f[0]) + 4)) : "";
    } else {
      throw Error(at + "unknown record '" + f[0] + "'");
    }
  }
  if (!header) throw Error(path + ": empty trace (did the program run under the profiler?)");
  // Backends write 'end' last: without it the run was cut short (killed,
  // out of space, or its node failed) and the counts are partial.
  if (!ended)
    throw Error(path + ": the trace stops before its 'end' line: the profiling run was cut short (killed, out of "
                       "disk space, or its node failed); run it again");
  if (t.regions.empty()) t.regions.push_back("serial");
  return t;
}

}  // namespace slurmpin
