// SPDX-License-Identifier: GPL-2.0-or-later
// slurm-pin profiles list|show|rm|export|import: the profile store.
#include <getopt.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>

#include "site_store.h"
#include "cli_options.h"
#include "input/args.hh"
#include "error.hh"
#include "heatmap.hh"
#include "input/printable.hh"
#include "sharing/profile.hh"
#include "profile_diff.hh"
#include "sharing/store.hh"

using namespace slurmpin;

namespace {

const char kUsage[] =
    "usage: slurm-pin profiles list [--store DIR]\n"
    "       slurm-pin profiles show NAME[@V] [--threads N] [--model simple|rw] [--region R] [--png FILE]\n"
    "                               [--ranks]        (the rank section: bytes each MPI rank sent each other one)\n"
    "                               [--title TEXT]   (the image's title; default the profile's name)\n"
    "       slurm-pin profiles diff A[@V] B[@V] [--threads N] [--model M] [--region R] [--topology T]\n"
    "                               [--strategy S]   (A, B: store names or profile files)\n"
    "       slurm-pin profiles export NAME[@V] [--threads N] [--output FILE]\n"
    "       slurm-pin profiles import FILE [--app NAME]\n"
    "       slurm-pin profiles rm NAME@V --threads N\n"
    "       slurm-pin profiles reindex        (after changing the store by hand)\n"
    "The store is --store, else $SLURM_PIN_STORE, else the store= of the slurm_pin.so line in\n"
    "plugstack.conf (the site's store), else /var/lib/slurm-pin/profiles.\n";

struct Options {
  std::string verb, target, second, store, model = "simple", region, png, output, app, title;
  std::string topology = "this", strategy = "lpgp";
  int threads = 0;
  bool ranks = false;
};

Options parse(int argc, char** argv) {
  static const option longopts[] = {
      {"store", required_argument, nullptr, SP_OPT_STORE}, {"threads", required_argument, nullptr, SP_OPT_THREADS},
      {"model", required_argument, nullptr, SP_OPT_MODEL}, {"region", required_argument, nullptr, SP_OPT_REGION},
      {"png", required_argument, nullptr, 'p'},   {"output", required_argument, nullptr, SP_OPT_OUTPUT},
      {"app", required_argument, nullptr, SP_OPT_APP},   {"help", no_argument, nullptr, 'h'},
      {"title", required_argument, nullptr, 'l'},     {"ranks", no_argument, nullptr, 'r'},
      {"topology", required_argument, nullptr, SP_OPT_TOPOLOGY}, {"strategy", required_argument, nullptr, SP_OPT_STRATEGY},
      {nullptr, 0, nullptr, 0}};
  Options o;
  o.store = site_store();
  opterr = 0;
  int c;
  while ((c = getopt_long(argc, argv, "h", longopts, nullptr)) != -1) {
    switch (c) {
      case SP_OPT_STORE: o.store = optarg; break;
      case SP_OPT_THREADS: o.threads = static_cast<int>(parse_count("--threads", optarg, 1, 65536)); break;
      case SP_OPT_MODEL: o.model = optarg; break;
      case SP_OPT_REGION: o.region = optarg; break;
      case 'p': o.png = optarg; break;
      case SP_OPT_OUTPUT: o.output = optarg; break;
      case SP_OPT_APP: o.app = optarg; break;
      case 'l': o.title = optarg; break;
      case 'r': o.ranks = true; break;
      case SP_OPT_TOPOLOGY: o.topology = optarg; break;
      case SP_OPT_STRATEGY: o.strategy = optarg; break;
      case 'h': std::fputs(kUsage, stdout); std::exit(0);
      default:
        throw UsageError(std::string("unknown or incomplete option '") + argv[optind - 1] + "' (see slurm-pin profiles --help)");
    }
  }
  if (optind < argc) o.verb = argv[optind++];
  if (optind < argc) o.target = argv[optind++];
  if (o.verb == "diff" && optind < argc) o.second = argv[optind++];
  if (optind < argc) throw UsageError(std::string("unexpected argument '") + argv[optind] + "'");
  if (o.verb.empty()) throw UsageError("missing command: list, show, export, import or rm (see --help)");
  return o;
}

// NAME[@V] with --threads, or the only thread count the store has for NAME.
StoredProfile resolve(const Options& o, const std::string& target) {
  if (target.empty()) throw Error(o.verb + " needs a profile NAME[@VERSION]");
  ProfileSpec s = parse_profile_spec(target);
  if (s.is_path) throw Error("'" + target + "' is a path: " + o.verb + " takes a store name");
  int threads = o.threads;
  if (!threads) {
    for (const auto& e : list_store(o.store))
      if (e.app == s.app) {
        if (threads && threads != e.threads)
          throw Error("profile '" + s.app + "' exists for several thread counts: choose one with --threads");
        threads = e.threads;
      }
    if (!threads) throw Error("no profile '" + s.app + "' in the store " + o.store);
  }
  return find_profile(o.store, s.app, threads, s.version);
}

// One unreadable profile is reported on its own line (on stderr) and the
// listing goes on; the exit status then says something was wrong.
int list(const Options& o) {
  std::printf("%-24s %7s %7s  %-20s %-8s %s\n", "APP", "THREADS", "VERSION", "DATE", "DRR", "TOOL");
  std::vector<std::string> problems;
  std::vector<StoredProfile> all = list_store(o.store, &problems);
  int bad = static_cast<int>(problems.size());
  for (const auto& m : problems)
    std::fprintf(stderr, "slurm-pin: error: skipping a bad profile: %s\n", printable(m).c_str());
  for (const auto& e : all) {
    Profile p;
    try {
      p = parse_profile(read_stored_profile(o.store, e).view(), e.path);
    } catch (const Error& err) {
      std::fflush(stdout);
      std::fprintf(stderr, "slurm-pin: error: skipping a bad profile: %s\n", printable(err.what()).c_str());
      ++bad;
      continue;
    }
    char drr[32] = "-";
    if (p.drr >= 0) std::snprintf(drr, sizeof drr, "%.2f%%", p.drr);
    std::printf("%-24s %7d %7d  %-20s %-8s %s\n", e.app.c_str(), e.threads, e.version,
                p.date.empty() ? "-" : printable(p.date).c_str(), drr, printable(p.tool).c_str());
  }
  return bad ? 1 : 0;
}

// One region per line, with its share of the run's accesses, where it is in
// the source, and its other call sites (aliases) when it has some.
void print_regions(const Profile& p) {
  if (p.regions.empty()) return;
  std::printf("regions%s:\n", p.region_shares.empty() ? "" : " (share of accesses, source)");
  for (size_t r = 0; r < p.regions.size(); ++r) {
    char pct[16] = "";
    if (!p.region_shares.empty()) std::snprintf(pct, sizeof pct, "%6.1f%%", 100 * p.region_shares[r]);
    std::string src = p.region_sources.empty() || p.region_sources[r] == "-" ? "" : printable(p.region_sources[r]);
    const std::vector<std::string>& also = p.regions[r].aliases;
    if (!also.empty())
      src += " (" + std::to_string(also.size() + 1) + " call sites, also " + printable(also[0]) + (also.size() > 1 ? ", ..." : "") +
             ")";
    std::printf("  %-40s %s  %s\n", printable(p.regions[r].name).c_str(), pct, src.c_str());
  }
}

// Where each thread came from, when the profiler recorded it.
void print_threads(const Profile& p) {
  if (p.thread_starts.empty() && p.thread_creators.empty()) return;
  std::printf("threads (creation order: created by, start routine):\n");
  for (int t = 0; t < p.threads; ++t) {
    int c = p.thread_creators.empty() ? -1 : p.thread_creators[t];
    std::printf("  %-5d %-5s %s\n", t, c < 0 ? "-" : std::to_string(c).c_str(),
                p.thread_starts.empty() ? "-" : printable(p.thread_starts[t]).c_str());
  }
}

// What a cell of the model's matrix counts (docs/profiler.md, the analysis).
std::string heatmap_unit(const std::string& model) {
  if (model == "rw") return "accesses to lines one thread writes and the other reads or writes (eq. 6.1)";
  return "accesses to cache lines both threads touch (eq. 5.1)";
}

// A matrix as a table a person reads: a line saying what a cell counts,
// the columns' numbers, each row's number and name (a thread's start
// routine, printable), then, when given, each row's own total (a thread's
// accesses) in a last column.
void print_matrix(const Rows& rows, const std::string& axis, const std::string& cells,
                  const std::vector<std::string>& names, const std::vector<double>& totals, const std::string& total) {
  size_t n = rows.size();
  int width = 6;
  for (const auto& row : rows)
    for (double v : row) width = std::max(width, static_cast<int>(std::snprintf(nullptr, 0, "%.0f", v)));
  int label = static_cast<int>(axis.size());
  std::vector<std::string> labels(n);
  for (size_t i = 0; i < n; ++i) {
    labels[i] = std::to_string(i);
    if (i < names.size() && !names[i].empty() && names[i] != "-") labels[i] += " " + printable(names[i]).substr(0, 24);
    label = std::max(label, static_cast<int>(labels[i].size()));
  }
  bool with_totals = totals.size() == n;
  std::printf("cells: %s\n%-*s", cells.c_str(), label, axis.c_str());
  for (size_t j = 0; j < n; ++j) std::printf(" %*zu", width, j);
  if (with_totals) std::printf("  %s", total.c_str());
  std::printf("\n");
  for (size_t i = 0; i < n; ++i) {
    std::printf("%-*s", label, labels[i].c_str());
    for (size_t j = 0; j < rows[i].size(); ++j) std::printf(" %*.0f", width, rows[i][j]);
    if (with_totals) std::printf("  %.0f", totals[i]);
    std::printf("\n");
  }
}

// An edge list expanded to print or draw is read by a person: beyond this it
// is a wall of numbers (and threads^2 of memory).
constexpr int kMaxShownThreads = 2048;

// The rank section: bytes each rank sent each other one (rows: senders), as
// stored, or an edge list expanded; a heatmap on the same absolute scale.
int show_ranks(const Options& o, const StoredProfile& e, const Profile& p) {
  if (!p.ranks) throw Error(e.path + ": no rank section (profile the program with `slurm-pin profile --mpi`)");
  if (p.ranks > kMaxShownThreads)
    throw Error(e.path + ": " + std::to_string(p.ranks) + " ranks are too many to show as a matrix (at most " +
                std::to_string(kMaxShownThreads) + "; `slurm-pin profiles export` gives the file)");
  Rows rows;
  if (p.rank_matrices.count("bytes")) {
    rows = p.rank_matrices.at("bytes");
  } else {
    rows.assign(p.ranks, std::vector<double>(p.ranks, 0));
    for (const Edge& x : p.rank_edges.at("bytes")) rows[x.i][x.j] += x.w;
  }
  std::printf("%s@%d: %d ranks of %d thread%s, bytes each rank (row) sent each other one (column)", e.app.c_str(),
              e.version, p.ranks, p.threads, p.threads == 1 ? "" : "s");
  if (p.rank_collective_share >= 0) std::printf(", %.2g%% by collectives", 100 * p.rank_collective_share);
  std::printf("\n");
  print_matrix(rows, "rank", "bytes each rank (row) sent each other one (column)", {}, {}, "");
  if (!o.png.empty()) {
    std::string title = (o.title.empty() ? e.app + "@" + std::to_string(e.version) : o.title) + "  " +
                        std::to_string(p.ranks) + " ranks";
    write_heatmap_png(rows, {}, title, "bytes each rank (row) sent each other one (column)", o.png, "rank");
    std::printf("heatmap written to %s\n", o.png.c_str());
  }
  return 0;
}

int show(const Options& o) {
  StoredProfile e = resolve(o, o.target);
  Profile p = parse_profile(e.text.view(), e.path);
  if (o.ranks || !p.has_thread_matrix()) return show_ranks(o, e, p);
  SharingMatrix w = p.affinity(o.model, o.region, e.path);  // names a missing model or region
  // Dense matrices are shown as stored (the rw model is asymmetric); edge
  // lists as the symmetric sharing they give.
  const Rows* rows = nullptr;
  std::string region = o.region.empty() ? "" : p.find_region(o.region, e.path).name;
  for (const auto& r : p.regions)
    if (r.name == region && r.matrices.count(o.model)) rows = &r.matrices.at(o.model);
  if (region.empty() && p.matrices.count(o.model)) rows = &p.matrices.at(o.model);
  Rows shown;
  if (!rows) {
    if (w.size() > kMaxShownThreads)
      throw Error(e.path + ": " + std::to_string(w.size()) + " threads are too many to show as a matrix (at most " +
                  std::to_string(kMaxShownThreads) + "; `slurm-pin profiles export` gives the file)");
    shown.assign(w.size(), std::vector<double>(w.size(), 0));
    for (int i = 0; i < w.size(); ++i)
      for (int j = 0; j < w.size(); ++j) shown[i][j] = w(i, j);
    rows = &shown;
  }
  std::printf("%s@%d: %d threads, %s model%s%s\n", e.app.c_str(), e.version, p.threads, o.model.c_str(),
              region.empty() ? "" : ", region ", printable(region).c_str());
  print_regions(p);
  print_threads(p);
  print_matrix(*rows, "thread", heatmap_unit(o.model) + (region.empty() ? ", whole run" : ", this region"),
               p.thread_starts, p.thread_accesses, "accesses (the thread's own, whole run)");
  if (!o.png.empty()) {
    std::string title = (o.title.empty() ? e.app + "@" + std::to_string(e.version) : o.title) + "  " +
                        std::to_string(p.threads) + " threads  " + o.model + " model" +
                        (region.empty() ? "" : "  region " + region);
    write_heatmap_png(*rows, p.thread_accesses, title, heatmap_unit(o.model), o.png, "thread", p.thread_starts);
    std::printf("heatmap written to %s\n", o.png.c_str());
  }
  return 0;
}

int export_profile(const Options& o) {
  StoredProfile e = resolve(o, o.target);
  std::string text = format_profile(parse_profile(e.text.view(), e.path));
  if (o.output.empty()) std::fputs(text.c_str(), stdout);
  else if (!(std::ofstream(o.output) << text)) throw Error(o.output + ": cannot write");
  return 0;
}

// A store name, or a profile file (read as the caller).
Profile load_any(const Options& o, const std::string& target, std::string& name) {
  if (target.empty()) throw Error("diff compares two profiles: give A and B (store names or files)");
  if (parse_profile_spec(target).is_path) {
    name = target;
    return read_profile(target);
  }
  StoredProfile e = resolve(o, target);
  name = e.app + "@" + std::to_string(e.version);
  return parse_profile(e.text.view(), e.path);
}

int diff(const Options& o) {
  std::string a_name, b_name;
  Profile a = load_any(o, o.target, a_name), b = load_any(o, o.second, b_name);
  DiffInput in;
  in.model = o.model, in.region = o.region, in.topology = o.topology, in.strategy = o.strategy;
  std::fputs(diff_profiles(a, printable(a_name), b, printable(b_name), in).c_str(), stdout);
  return 0;
}

int import_profile(const Options& o) {
  if (o.target.empty()) throw Error("import needs a profile FILE");
  Profile p = read_profile(o.target);  // a malformed file never enters the store
  std::string app = o.app.empty() ? p.application : o.app;
  if (app.empty()) throw Error(o.target + ": the profile names no application: give --app NAME");
  p.application = app;
  StoredProfile s = store_profile(o.store, app, p.threads, format_profile(p));
  std::printf("imported as %s@%d (%d threads): %s\n", app.c_str(), s.version, p.threads, s.path.c_str());
  return 0;
}

int remove_profile(const Options& o) {
  ProfileSpec s = parse_profile_spec(o.target.empty() ? "-" : o.target);
  if (!s.version || !o.threads)
    throw Error("rm removes one version: give NAME@VERSION and --threads N");
  StoredProfile e = find_profile(o.store, s.app, o.threads, s.version);
  if (unlink(e.path.c_str()) != 0) throw Error(e.path + ": " + std::strerror(errno));
  rebuild_store_index(o.store);
  std::printf("removed %s\n", e.path.c_str());
  return 0;
}

int reindex(const Options& o) {
  rebuild_store_index(o.store);
  std::printf("reindexed %s\n", o.store.c_str());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    Options o = parse(argc, argv);
    if (o.verb == "list") return list(o);
    if (o.verb == "show") return show(o);
    if (o.verb == "export") return export_profile(o);
    if (o.verb == "import") return import_profile(o);
    if (o.verb == "rm") return remove_profile(o);
    if (o.verb == "diff") return diff(o);
    if (o.verb == "reindex") return reindex(o);
    throw UsageError("unknown command '" + o.verb + "': use list, show, diff, export, import, rm or reindex");
  } catch (const std::exception& e) {
    std::fprintf(stderr, "slurm-pin: error: %s\n", printable(e.what()).c_str());
    return dynamic_cast<const UsageError*>(&e) ? 2 : 1;
  }
}
