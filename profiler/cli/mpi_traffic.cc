// SPDX-License-Identifier: GPL-2.0-or-later
#include "mpi_traffic.hh"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <set>

#include "error.hh"
#include "input/text_lines.hh"
#include "input/user_file.hh"
#include "program_path.h"
#include "preflight.hh"

namespace slurmpin {

namespace {

// `word` as the executable a launcher would run; "" for an option.
std::string executable(const std::string& word) {
  return word.empty() || word[0] == '-' ? "" : find_executable(word);
}

// The MPI library a program is linked with at most this many words in:
// `mpiexec -n 4 -x VAR --bind-to none ./app` and the like.
constexpr size_t kWordsToSearch = 64;

// "N N N ..." after `key`, exactly `n` non-negative integers.
std::vector<double> values(const std::vector<std::string>& f, size_t n, const std::string& at) {
  if (f.size() != n + 1) throw Error(at + "'" + f[0] + "' has " + std::to_string(f.size() - 1) + " values for " +
                                     std::to_string(n) + " ranks");
  std::vector<double> out(n);
  for (size_t i = 0; i < n; ++i) {
    const std::string& v = f[i + 1];
    if (v.empty() || v.size() > 20 || v.find_first_not_of("0123456789") != std::string::npos)
      throw Error(at + "'" + f[0] + "' holds '" + v.substr(0, 32) + "', not a count");
    out[i] = std::strtod(v.c_str(), nullptr);
  }
  return out;
}

struct RankRow {
  int rank = -1, size = 0;
  std::string host;
  std::vector<double> bytes, messages, collective;
};

RankRow parse_row(const std::string& text, const std::string& path, int size) {
  std::vector<TextLine> lines = split_text_lines(text, path);
  RankRow r;
  size_t i = 0;
  auto next = [&](const char* key) {
    while (i < lines.size() && lines[i].text.empty()) ++i;
    if (i == lines.size()) throw Error(path + ": ends before its '" + key + "' line (the rank stopped writing it)");
    std::vector<std::string> f = split_fields_blank(lines[i].text);
    if (f[0] != key) throw Error(where(path, lines[i].number) + "expected '" + key + "'");
    return std::make_pair(f, where(path, lines[i++].number));
  };
  auto header = next("slurm-pin-mpi-row");
  if (header.first.size() != 2 || header.first[1] != "1") throw Error(header.second + "not a version 1 rank row");
  auto rank = next("rank");
  if (rank.first.size() != 4 || rank.first[2] != "size") throw Error(rank.second + "expected 'rank R size N'");
  r.rank = std::atoi(rank.first[1].c_str());
  r.size = std::atoi(rank.first[3].c_str());
  if (r.size < 1 || r.size > (1 << 16) || (size && r.size != size))
    throw Error(rank.second + "a world of " + rank.first[3] + " ranks" +
                (size ? ", but rank 0's has " + std::to_string(size) : ""));
  auto host = next("host");
  r.host = host.first.size() > 1 ? host.first[1] : "-";
  size_t n = static_cast<size_t>(r.size);
  r.bytes = values(next("bytes").first, n, path + ": bytes: ");
  r.messages = values(next("messages").first, n, path + ": messages: ");
  r.collective = values(next("collective_bytes").first, n, path + ": collective_bytes: ");
  return r;
}

}  // namespace

std::string mpi_of_command(const std::vector<std::string>& command, const std::string& forced, std::string* program,
                           size_t* word) {
  for (size_t i = 0; i < command.size() && i < kWordsToSearch; ++i) {
    std::string exe = executable(command[i]);
    if (exe.empty()) continue;
    std::string mpi = mpi_library_of(exe);
    if (mpi.empty() && i > 0) continue;
    if (program) *program = exe;  // the MPI program, else the command itself
    if (word) *word = i;
    if (!mpi.empty() || !forced.empty()) {
      if (!forced.empty() && !mpi.empty() && mpi != forced)
        throw Error(exe + " is linked with " + (mpi == "openmpi" ? "Open MPI" : "MPICH") + ", not " + forced +
                    ": drop --mpi=" + forced + " or give the matching program");
      if (!mpi.empty()) return mpi;
    }
  }
  if (!forced.empty()) return forced;
  throw Error("cannot tell which MPI the program uses (no word of the command is an executable linked with "
              "Open MPI's libmpi or MPICH's libmpich): give --mpi=openmpi or --mpi=mpich");
}

std::vector<std::string> drop_mpi_runtime_threads(Profile& p) {
  // Libraries that start threads of their own inside MPI ranks: the MPIs,
  // their process managers and event loops, and the transports they load.
  static const char* const kRuntime[] = {"libmpi",   "libopen-pal", "libopen-rte", "libpmix", "libprrte",
                                         "libpmi",   "libevent",    "libucs",      "libucp",  "libuct",
                                         "libfabric", "libpsm",     "libhcoll",    "libibverbs", "librdmacm"};
  std::vector<std::string> dropped;
  if (p.thread_starts.size() != static_cast<size_t>(p.threads)) return dropped;
  std::vector<bool> drop(p.thread_starts.size());
  for (size_t t = 1; t < drop.size(); ++t)  // never the main thread
    for (const char* lib : kRuntime)
      if (p.thread_starts[t].rfind(lib, 0) == 0) drop[t] = true;
  for (size_t t = 0; t < drop.size(); ++t)
    if (drop[t]) dropped.push_back(p.thread_starts[t]);
  if (!dropped.empty()) drop_threads(p, drop);
  return dropped;
}

std::string mpi_library_path(const std::string& libdir, const std::string& mpi) {
  if (mpi != "openmpi" && mpi != "mpich") throw Error("unknown MPI '" + mpi + "': use openmpi or mpich");
  std::string lib = libdir + "/libslurm_pin_mpi_" + mpi + ".so";
  if (access(lib.c_str(), R_OK) != 0)
    throw Error("the MPI traffic library for " + mpi + " is not installed (" + lib +
                " is missing: slurm-pin was built without " + (mpi == "openmpi" ? "libopenmpi-dev" : "libmpich-dev") +
                ")");
  return lib;
}

std::vector<std::string> mpi_record_env(const std::string& library, const std::string& dir) {
  const char* preload = std::getenv("LD_PRELOAD");
  std::string value = library + (preload && *preload ? std::string(" ") + preload : "");
  return {"LD_PRELOAD=" + value, "SLURM_PIN_MPI_DIR=" + dir};
}

void read_rank_rows(const WorkDir& dir, Profile& p, std::vector<std::string>* hosts) {
  size_t files = work_names(dir, "rank.").size();
  if (files == 0)
    throw Error("no rank wrote its traffic into " + dir.path + " (the program ended without MPI_Finalize, or the "
                "launcher did not pass LD_PRELOAD to the ranks: with Open MPI's mpirun across nodes add -x LD_PRELOAD "
                "-x SLURM_PIN_MPI_DIR)");
  // A row is its header and three lines of at most 21 bytes per rank.
  auto limit = [](int size) { return static_cast<size_t>(size) * 3 * 21 + 4096; };
  RankRow first = parse_row(read_work_file(dir, "rank.0", limit(1 << 16)), dir.path + "/rank.0", 0);
  int n = first.size;
  if (files != static_cast<size_t>(n))
    throw Error(dir.path + ": " + std::to_string(files) + " ranks wrote their traffic but the world has " +
                std::to_string(n) + " (some ranks ended without MPI_Finalize, or another run wrote here)");
  p.ranks = n;
  bool dense = n <= 256;
  Rows bytes, messages;
  EdgeList byte_edges, message_edges;
  double all = 0, collective = 0;
  for (int i = 0; i < n; ++i) {
    std::string name = "rank." + std::to_string(i), path = dir.path + "/" + name;
    RankRow r = i == 0 ? first : parse_row(read_work_file(dir, name, limit(n)), path, n);
    if (r.rank != i) throw Error(path + ": says it is rank " + std::to_string(r.rank));
    if (hosts) hosts->push_back(r.host);
    r.bytes[i] = r.messages[i] = r.collective[i] = 0;  // what a rank sends itself stays in it
    for (int j = 0; j < n; ++j) {
      all += r.bytes[j], collective += r.collective[j];
      if (!dense && r.bytes[j] > 0) byte_edges.push_back({i, j, r.bytes[j]});
      if (!dense && r.messages[j] > 0) message_edges.push_back({i, j, r.messages[j]});
    }
    if (dense) bytes.push_back(std::move(r.bytes)), messages.push_back(std::move(r.messages));
  }
  if (dense) {
    p.rank_matrices["bytes"] = std::move(bytes);
    p.rank_matrices["messages"] = std::move(messages);
  } else {
    p.rank_edges["bytes"] = std::move(byte_edges);
    p.rank_edges["messages"] = std::move(message_edges);
  }
  p.rank_collective_share = all > 0 ? collective / all : 0;
}

}  // namespace slurmpin
