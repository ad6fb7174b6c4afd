// SPDX-License-Identifier: GPL-2.0-or-later
// Sharing profiles (docs/formats.md): what the profiler measured for one
// application at one thread count. Line-oriented so every error can name
// its line, and matrices are written as published matrices are.
#pragma once
#include <cstddef>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "input/text_lines.hh"
#include "input/user_file.hh"
#include "sharing/sharing_matrix.hh"

namespace slurmpin {

using Rows = std::vector<std::vector<double>>;

using EdgeList = std::vector<Edge>;

// A profile's text and its lines, kept while a matrix of it is left unread.
struct ProfileText {
  FileBytes bytes;
  std::vector<TextLine> lines;  // views into bytes
};

// A dense matrix whose rows were counted but not read
// (ProfileNeeds::defer_region_rows): its first row's line in `text`.
struct DeferredRows {
  std::shared_ptr<const ProfileText> text;
  size_t first = 0;
};

struct ProfileRegion {
  std::string name;
  std::map<std::string, Rows> matrices;   // model ("simple", "rw") -> rows
  std::map<std::string, EdgeList> edges;  // or -> sparse pairs (i, j, w)
  // Other names of the same region: call sites of one source construct the
  // profiler merged (each is how the pinning library names it at run time).
  std::vector<std::string> aliases;
  // Or model -> rows read when the matrix is asked for (ProfileNeeds::defer_region_rows).
  std::map<std::string, DeferredRows> deferred;
};

struct Profile {
  static constexpr int kVersion = 1;
  std::string application, binary_sha256, tool, date, topology, drr_class;
  int threads = 0;
  int line_size = 64;
  double working_set_lines = -1;  // -1: not recorded
  std::vector<double> thread_working_set_lines;
  // Each thread's reads and writes in the whole run; empty: not recorded.
  // What a pair shares is read against it (an absolute heatmap scale).
  std::vector<double> thread_accesses;
  // Where each thread came from (creation order): its creator's index, -1
  // for none (the main thread), and its start routine; empty when unknown.
  std::vector<int> thread_creators;
  std::vector<std::string> thread_starts;
  // Per region (in order), its share of all accesses (0-1); empty: unknown.
  std::vector<double> region_shares;
  // Per region (in order), where it is in the source ("file.c:31", "-"
  // unknown); empty: unknown for all.
  std::vector<std::string> region_sources;
  double drr = -1;
  std::map<std::string, Rows> matrices;  // whole run
  std::map<std::string, EdgeList> edges;  // whole run, sparse
  std::vector<ProfileRegion> regions;
  // The rank section (slurm-pin profile --mpi): what each MPI rank sent to
  // each other one, in MPI_COMM_WORLD ranks; 0 ranks: none. Models "bytes"
  // and "messages"; collectives counted by the model in docs/profiler.md,
  // `rank_collective_share` of the bytes (-1: not recorded).
  int ranks = 0;
  double rank_collective_share = -1;
  std::map<std::string, Rows> rank_matrices;
  std::map<std::string, EdgeList> rank_edges;

  // The region named `pattern`: its exact name, else the one region a glob
  // (fnmatch) or a prefix matches. Throws Error listing the candidates.
  const ProfileRegion& find_region(const std::string& pattern, const std::string& path) const;
  // The matrix for `model` ("simple" or "rw") of the whole run, or of
  // `region` (as find_region) when not empty. Throws Error naming what is missing.
  SharingMatrix affinity(const std::string& model, const std::string& region,
                    const std::string& path) const;
  // The same for one of `regions`, taken as it is (no search by name: a
  // caller placing every region would search them all for each).
  SharingMatrix affinity(const std::string& model, const ProfileRegion& region, const std::string& path) const;
  // Throws what affinity(model, region, path) would for a missing matrix,
  // without building it.
  void check_matrix(const std::string& model, const ProfileRegion& region, const std::string& path) const;
  // Whether the whole run has a thread matrix (a profile of ranks alone has none).
  bool has_thread_matrix() const;
  // The ranks' traffic in bytes (w(i,j) = sent(i,j) + sent(j,i)). Throws
  // Error when the profile has no rank section, or it was passed over
  // (ProfileNeeds::max_ranks).
  SharingMatrix rank_traffic(const std::string& path) const;
};

// Region names (regions and their aliases) in one profile: what the
// profilers record at most. Per-region pinning places each region, so this
// bounds that work whatever the file holds.
constexpr size_t kMaxRegionNames = 4096;

// Dense matrices of 2048 threads fit in the limit; edge lists, millions of pairs.
constexpr size_t kMaxProfileBytes = 64u << 20;

// What a caller needs of a profile, so that a large one costs only that:
// region matrices are skipped unless wanted, and a thread count the caller
// cannot run is refused at the 'threads' line, before any matrix is read.
struct ProfileNeeds {
  bool regions = true;           // parse every region's matrices
  std::string model;             // parse only this model's matrices; empty: every model's
  int max_threads = 1 << 16;     // refuse profiles of more threads
  size_t max_bytes = kMaxProfileBytes;
  std::string too_many_threads;  // the fix to name when max_threads is exceeded
  // The rank section's matrices are read only for at most this many ranks
  // (a job's task count: a profile of more ranks cannot fit it, and its
  // rows would cost the reader their square), and only `rank_model`'s
  // (empty: every model's); passed over otherwise, `ranks` still set.
  int max_ranks = 1 << 16;
  std::string rank_model;
  // Regions' dense rows left as text, read by affinity() where each
  // region's matrix is wanted (the engine: on the thread placing it, rows
  // freed once its matrix is built) instead of all at load: 100 regions of
  // 128 threads are 13 MB of rows. Their count is checked at load as ever,
  // their values (a number, a row's length) when read, with the same
  // messages. Only where the text outlives the parse: parse_profile of
  // FileBytes, and read_profile.
  bool defer_region_rows = false;
};

// The profile without the threads marked in `drop` (one flag per thread):
// their rows and columns leave every matrix, the others renumbered in
// order; a creator dropped becomes '-'. At least one thread must stay.
void drop_threads(Profile& p, const std::vector<bool>& drop);

Profile read_profile(const std::string& path, const ProfileNeeds& needs = ProfileNeeds());
// The same for text already read; `path` names it in errors.
Profile parse_profile(std::string_view text, const std::string& path, const ProfileNeeds& needs = ProfileNeeds());
// The same, the profile keeping `text` for the rows it defers
// (needs.defer_region_rows).
Profile parse_profile(const FileBytes& text, const std::string& path, const ProfileNeeds& needs = ProfileNeeds());
std::string format_profile(const Profile& p);

}  // namespace slurmpin
