#include "trace.hh"

#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <fstream>

#include "error.hh"
#include "text_lines.hh"

namespace slurmpin {

namespace {

uint64_t number(const std::string& f, const std::string& at, const char* what) {
  if (f.empty() || f.size() > 20 || f.find_first_not_of("0123456789") != std::string::npos)
    throw Error(at + what + " '" + f + "' is not a whole number");
  return std::stoull(f);
}

}  // namespace

// Traces can hold millions of records: read line by line, not all at once.
Trace read_trace(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw Error(path + ": " + std::strerror(errno) + " (was the profiling run completed?)");
  Trace t;
  std::string raw;
  int number_of_line = 0;
  bool header = false;
  while (std::getline(in, raw)) {
    ++number_of_line;
    std::string at = where(path, number_of_line);
    std::vector<std::string> f = split_fields_blank(raw);
    if (f.empty()) continue;
    if (!header) {
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
      t.regions.push_back(raw.substr(raw.find(f[2], raw.find(f[1]) + f[1].size())));
    } else if (f[0] == "threads") {
      if (f.size() != 2) throw Error(at + "expected 'threads N'");
      t.threads = static_cast<int>(number(f[1], at, "threads"));
    } else if (f[0] == "line_size") {
      if (f.size() != 2) throw Error(at + "expected 'line_size N'");
      t.line_size = static_cast<int>(number(f[1], at, "line_size"));
    } else if (f[0] == "tool") {
      t.tool = raw.substr(raw.find(f[0]) + 5);
    } else {
      throw Error(at + "unknown record '" + f[0] + "'");
    }
  }
  if (!header) throw Error(path + ": empty trace (did the program run under the profiler?)");
  if (t.regions.empty()) t.regions.push_back("serial");
  return t;
}

}  // namespace slurmpin
