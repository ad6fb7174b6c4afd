// SPDX-License-Identifier: GPL-2.0-or-later
#include "trace.hh"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>

#include "error.hh"
#include "input/text_lines.hh"

namespace slurmpin {

uint64_t whole_number(const std::string& f, const std::string& at, const char* what) {
  errno = 0;
  char* end = nullptr;
  unsigned long long v = f.empty() || f.size() > 20 || f.find_first_not_of("0123456789") != std::string::npos
                             ? 0
                             : std::strtoull(f.c_str(), &end, 10);
  if (!end || *end || errno == ERANGE) throw Error(at + what + " '" + f.substr(0, 24) + "' is not a whole number");
  return v;
}

std::ifstream open_run_file(const std::string& path) {
  std::ifstream in(path);
  if (!in)
    throw Error(path + ": " + std::strerror(errno) +
                ": the profiling run ended without writing its results (the program, or its node, was killed "
                "before it ended); run it again");
  return in;
}

namespace {

// The rest of `raw` from its field number `k` on (names may hold blanks).
std::string rest_of(const std::string& raw, const std::vector<std::string>& f, size_t k) {
  size_t at = 0;
  for (size_t i = 0; i < k; ++i) at = raw.find(f[i], at) + f[i].size();
  return raw.substr(raw.find(f[k], at));
}

// A header record into h; false when `f` is not one.
bool header_record(const std::vector<std::string>& f, const std::string& raw, const std::string& at, RunHeader& h) {
  if (f[0] == "region") {
    if (f.size() < 3 || whole_number(f[1], at, "region id") != h.regions.size())
      throw Error(at + "regions are declared in order: 'region ID NAME'");
    h.regions.push_back(rest_of(raw, f, 2));
  } else if (f[0] == "source") {
    // source ID FILE:LINE, after its region.
    if (f.size() != 3 || whole_number(f[1], at, "region id") + 1 != h.regions.size())
      throw Error(at + "a region's source follows it: 'source ID FILE:LINE'");
    h.sources.resize(h.regions.size());
    h.sources.back() = f[2];
  } else if (f[0] == "code") {
    // code ID OBJECT 0xADDRESS, after its region.
    if (f.size() != 4 || whole_number(f[1], at, "region id") + 1 != h.regions.size() || f[3].size() > 18 ||
        f[3].compare(0, 2, "0x") != 0 || f[3].find_first_not_of("0123456789abcdef", 2) != std::string::npos)
      throw Error(at + "a region's code follows it: 'code ID OBJECT 0xADDRESS'");
    h.codes.resize(h.regions.size());
    h.codes.back() = {f[2], f[3]};
  } else if (f[0] == "threads") {
    if (f.size() != 2) throw Error(at + "expected 'threads N'");
    if (h.threads) throw Error(at + "'threads' given twice");
    uint64_t n = whole_number(f[1], at, "threads");
    if (n < 1 || n > 65536) throw Error(at + "threads must be from 1 to 65536");
    h.threads = static_cast<int>(n);
  } else if (f[0] == "thread") {
    // thread INDEX CREATOR START: CREATOR '-' for the main thread.
    if (f.size() < 4 || whole_number(f[1], at, "thread") != h.origins.size() ||
        h.origins.size() >= static_cast<size_t>(h.threads))
      throw Error(at + "threads are described in order after 'threads N': 'thread I CREATOR START'");
    ThreadOrigin o;
    if (f[2] != "-") o.creator = static_cast<int>(std::min<uint64_t>(whole_number(f[2], at, "creator"), 65536));
    if (o.creator >= h.threads) throw Error(at + "creator " + f[2] + " is not a thread of this run");
    o.start = rest_of(raw, f, 3);
    h.origins.push_back(o);
  } else if (f[0] == "line_size") {
    if (f.size() != 2) throw Error(at + "expected 'line_size N'");
    uint64_t n = whole_number(f[1], at, "line_size");
    if (n < 8 || n > 4096 || (n & (n - 1))) throw Error(at + "line_size must be a power of two from 8 to 4096");
    h.line_size = static_cast<int>(n);
  } else if (f[0] == "tool") {
    h.tool = f.size() > 1 ? rest_of(raw, f, 1) : "";
  } else {
    return false;
  }
  return true;
}

}  // namespace

void parse_records(std::istream& in, const std::string& path, const std::string& magic, RunHeader& h,
                   const RecordFn& body) {
  std::string raw;
  int number_of_line = 0;
  bool header = false, ended = false;
  while (std::getline(in, raw)) {
    ++number_of_line;
    std::string at = where(path, number_of_line);
    std::vector<std::string> f = split_fields_blank(raw);
    if (f.empty()) continue;
    if (ended) throw Error(at + "records after 'end'");
    if (!header) {
      if (f.size() != 2 || f[0] != magic || f[1] != "1")
        throw Error(at + "not a " + magic + " file version 1 (the first line must be '" + magic + " 1')");
      header = true;
    } else if (f.size() == 1 && f[0] == "end") {
      ended = true;
    } else if (!header_record(f, raw, at, h)) {
      body(f, at);
    }
  }
  if (!header) throw Error(path + ": empty file (did the program run under the profiler?)");
  // Backends write 'end' last: without it the run was cut short (killed,
  // out of space, or its node failed) and the counts are partial.
  if (!ended)
    throw Error(path + ": the file stops before its 'end' line: the profiling run was cut short (killed, out of "
                       "disk space, or its node failed); run it again");
  if (!h.origins.empty() && h.origins.size() != static_cast<size_t>(h.threads))
    throw Error(path + ": " + std::to_string(h.origins.size()) + " 'thread' lines for " + std::to_string(h.threads) +
                " threads");
  if (h.regions.empty()) h.regions.push_back("serial");
}

// Traces can hold millions of records: read line by line, not all at once.
Trace read_trace(const std::string& path) {
  std::ifstream in = open_run_file(path);
  return parse_trace(in, path);
}

Trace parse_trace(std::istream& in, const std::string& path) {
  Trace t;
  parse_records(in, path, "slurm-pin-trace", t.header, [&](const std::vector<std::string>& f, const std::string& at) {
    if (f[0] != "a") throw Error(at + "unknown record '" + f[0] + "'");
    if (f.size() != 6) throw Error(at + "an access record is 'a THREAD REGION LINE READS WRITES'");
    Access a{static_cast<uint32_t>(std::min<uint64_t>(whole_number(f[1], at, "thread"), UINT32_MAX)),
             static_cast<uint32_t>(std::min<uint64_t>(whole_number(f[2], at, "region"), UINT32_MAX)),
             whole_number(f[3], at, "line"), whole_number(f[4], at, "reads"), whole_number(f[5], at, "writes")};
    if (a.thread >= static_cast<uint32_t>(t.header.threads))
      throw Error(at + "thread " + f[1] + " but the trace declares " + std::to_string(t.header.threads) + " threads");
    if (a.region >= t.header.regions.size()) throw Error(at + "region " + f[2] + " was not declared");
    t.accesses.push_back(a);
  });
  return t;
}

}  // namespace slurmpin
