// SPDX-License-Identifier: GPL-2.0-or-later
// `slurm-pin place`: compute and explain a placement offline.
#include "place_command.hh"

#include <getopt.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <set>
#include <string>

#include "api_check.hh"
#include "cli_options.h"
#include "input/args.hh"
#include "error.hh"
#include "place_output.hh"
#include "quiet_stderr.hh"
#include "site_store.h"
#include "slurm_binding_env.h"
#include "slurm_pin_frontend.h"

namespace slurmpin {

namespace {

const char kUsage[] =
    "usage: slurm-pin place [--topology this|FILE.xml|SYNTHETIC] [--restrict CPULIST]\n"
    "                       --strategy S [--matrix FILE | --profile NAME[@VERSION]|FILE [--store DIR]\n"
    "                       [--model simple|rw]\n"
    "                       [--region NAME]] [--tasks N] [--task-layout compact|scatter]\n"
    "                       [--task-matrix FILE [--nodes N|NAME,NAME...]]\n"
    "                       [--task-ranks LIST --job-tasks N]\n"
    "                       [--threads T] [--granularity pu|core|l2|l3|numa] [--smt K]\n"
    "                       [--gpu closest|none]\n"
    "                       [--oversubscribe] [--seed K] [--phases [--phase-merge F]]\n"
    "                       [--format text|json|omp|likwid|placement|hostfile]\n"
    "strategies (--strategy help):\n";

struct Options {
  std::string topology = "this", restrict_to, task_layout = "compact", store = site_store();
  std::string strategy = "compact", format = "text", matrix, profile, model = "simple", region, task_matrix, nodes;
  std::string granularity = "core", gpu = "none";
  int tasks = 0, threads = 0, smt = 0;  // 0: the engine decides (a placement file's tasks, or one)
  std::vector<int> task_ranks;  // --task-ranks: the job's ranks that run here
  int job_tasks = 0;
  bool oversubscribe = false, phases = false;
  double phase_merge = 0;
  uint64_t seed = 1;  // the engine's own default
  bool seed_given = false;
};

// --task-ranks: "4-7", "0,2,4,6" (at most 4096 ranks, as --tasks).
std::vector<int> rank_list(const std::string& text) {
  std::vector<int> out;
  size_t at = 0;
  while (at <= text.size()) {
    size_t end = std::min(text.find(',', at), text.size());
    std::string item = text.substr(at, end - at);
    size_t dash = item.find('-');
    std::string lo = item.substr(0, dash), hi = dash == std::string::npos ? lo : item.substr(dash + 1);
    long a = parse_count("--task-ranks", lo.c_str(), 0, (1 << 24) - 1), b = parse_count("--task-ranks", hi.c_str(), 0, (1 << 24) - 1);
    if (b < a || b - a + 1 + static_cast<long>(out.size()) > 4096)
      throw UsageError("--task-ranks: '" + item + "' is not a rising range, or the list holds more than 4096 ranks");
    for (long r = a; r <= b; ++r) out.push_back(static_cast<int>(r));
    at = end + 1;
  }
  return out;
}

Options parse(int argc, char** argv) {
  static const option longopts[] = {
      {"topology", required_argument, nullptr, SP_OPT_TOPOLOGY}, {"restrict", required_argument, nullptr, 'r'},
      {"strategy", required_argument, nullptr, SP_OPT_STRATEGY}, {"matrix", required_argument, nullptr, 'm'},
      {"profile", required_argument, nullptr, SP_OPT_PROFILE},  {"model", required_argument, nullptr, SP_OPT_MODEL},
      {"store", required_argument, nullptr, SP_OPT_STORE},
      {"region", required_argument, nullptr, SP_OPT_REGION},   {"tasks", required_argument, nullptr, 'n'},
      {"task-layout", required_argument, nullptr, 'L'},    {"task-matrix", required_argument, nullptr, 'T'},
      {"nodes", required_argument, nullptr, 'N'},          {"task-ranks", required_argument, nullptr, 'R'},
      {"job-tasks", required_argument, nullptr, 'J'},
      {"threads", required_argument, nullptr, SP_OPT_THREADS},  {"granularity", required_argument, nullptr, SP_OPT_GRANULARITY},
      {"oversubscribe", no_argument, nullptr, SP_OPT_OVERSUBSCRIBE},  {"seed", required_argument, nullptr, SP_OPT_SEED},
      {"format", required_argument, nullptr, 'f'},   {"help", no_argument, nullptr, 'h'},
      {"phases", no_argument, nullptr, SP_OPT_PHASES},         {"phase-merge", required_argument, nullptr, 'G'},
      {"smt", required_argument, nullptr, SP_OPT_SMT},      {"gpu", required_argument, nullptr, SP_OPT_GPU},
      {nullptr, 0, nullptr, 0}};
  Options o;
  opterr = 0;
  optind = 1;
  int c;
  while ((c = getopt_long(argc, argv, "h", longopts, nullptr)) != -1) {
    switch (c) {
      case SP_OPT_TOPOLOGY: o.topology = optarg; break;
      case 'r': o.restrict_to = optarg; break;
      case SP_OPT_STRATEGY: o.strategy = optarg; break;
      case 'm': o.matrix = optarg; break;
      case SP_OPT_PROFILE: o.profile = optarg; break;
      case SP_OPT_STORE: o.store = optarg; break;
      case SP_OPT_MODEL: o.model = optarg; break;
      case SP_OPT_REGION: o.region = optarg; break;
      case 'n': o.tasks = static_cast<int>(parse_count("--tasks", optarg, 1, 4096)); break;
      case 'L': o.task_layout = optarg; break;
      case 'T': o.task_matrix = optarg; break;
      case 'N': o.nodes = optarg; break;
      case 'R': o.task_ranks = rank_list(optarg); break;
      case 'J': o.job_tasks = static_cast<int>(parse_count("--job-tasks", optarg, 1, 1 << 24)); break;
      case SP_OPT_THREADS: o.threads = static_cast<int>(parse_count("--threads", optarg, 1, 65536)); break;
      case SP_OPT_GRANULARITY: o.granularity = optarg; break;
      case SP_OPT_OVERSUBSCRIBE: o.oversubscribe = true; break;
      case SP_OPT_SMT: o.smt = parse_smt(optarg); break;
      case SP_OPT_GPU: o.gpu = optarg; break;
      case SP_OPT_SEED: o.seed = parse_seed(optarg), o.seed_given = true; break;
      case 'f': o.format = optarg; break;
      case SP_OPT_PHASES: o.phases = true; break;
      case 'G': {
        char* end = nullptr;
        double v = std::strtod(optarg, &end);
        if (!*optarg || *end || !(v >= 0 && v <= 1))
          throw Error(std::string("--phase-merge wants a share of threads from 0 to 1, not '") + optarg + "'");
        o.phase_merge = v;
        break;
      }
      case 'h': o.strategy = "help"; break;
      default:
        throw UsageError(std::string("unknown or incomplete option '") + argv[optind - 1] +
                    "' (see slurm-pin place --help)");
    }
  }
  if (optind < argc)
    throw UsageError(std::string("unexpected argument '") + argv[optind] + "' (see slurm-pin place --help)");
  if (o.task_ranks.empty() != !o.job_tasks)
    throw UsageError("--task-ranks and --job-tasks go together: which of the job's ranks run here, of how many");
  return o;
}

// The inputs, in the order the engine wants them (phases before the
// profile, whose regions it then reads).
void set_inputs(sp_placement_t* p, const Options& o) {
  check(p, sp_set_topology(p, o.topology.c_str()));
  if (!o.restrict_to.empty() && sp_set_restrict(p, o.restrict_to.c_str()) < 0)
    throw Error(std::string("--restrict: ") + sp_error(p));
  check(p, sp_set_strategy(p, o.strategy.c_str()));
  check(p, sp_set_granularity(p, o.granularity.c_str()));
  check(p, sp_set_smt(p, o.smt));
  check(p, sp_set_gpu_locality(p, o.gpu.c_str()));
  for (const char* const* name = sp_job_gpu_variable_names(); *name; ++name)  // the job's GPUs, as for srun
    check(p, sp_set_job_gpu_variable(p, *name, std::getenv(*name)));
  check(p, sp_set_job_gpus(p, slurm_gpu_list_getenv()));
  check(p, sp_set_tasks(p, o.tasks));
  if (o.job_tasks) check(p, sp_set_task_ranks(p, o.task_ranks.data(), static_cast<int>(o.task_ranks.size()), o.job_tasks));
  check(p, sp_set_task_layout(p, o.task_layout.c_str()));
  check(p, sp_set_threads(p, o.threads));
  check(p, sp_set_oversubscribe(p, o.oversubscribe));
  check(p, sp_set_seed(p, o.seed));
  check(p, sp_set_phases(p, o.phases, o.phase_merge));
  if (!o.matrix.empty()) check(p, sp_load_matrix(p, o.matrix.c_str()));
  if (!o.task_matrix.empty()) check(p, sp_load_task_matrix(p, o.task_matrix.c_str()));
  // A file, or a store profile as srun picks it for the thread count the
  // task will run: read when the placement is computed.
  if (!o.profile.empty())
    check(p, sp_set_profile(p, o.profile.c_str(), o.store.c_str(), o.model.c_str(), o.region.c_str()));
}

// --nodes: a count, or the nodes' names (comma-separated, as
// `scontrol show hostnames | paste -sd,` prints a job's).
std::vector<std::string> node_names(const std::string& nodes) {
  std::vector<std::string> names;
  // A node named twice would get two nodes' ranks: every rank would land on
  // the nodes named, some of them doubly loaded. Sorted names: O(n log n).
  std::set<std::string> seen;
  auto seen_once = [&](const std::string& name) {
    if (!seen.insert(name).second)
      throw Error("--nodes: '" + name + "' is named twice: name each node once (scontrol show hostnames | paste -sd,)");
  };
  if (!nodes.empty() && nodes.find_first_not_of("0123456789") == std::string::npos) {
    long n = parse_count("--nodes", nodes.c_str(), 1, 65536);
    for (long i = 0; i < n; ++i) names.push_back("node" + std::to_string(i));
    return names;
  }
  size_t at = 0;
  while (at <= nodes.size()) {
    size_t end = nodes.find(',', at);
    std::string name = nodes.substr(at, end == std::string::npos ? std::string::npos : end - at);
    if (name.empty() || name.size() > 255 || name.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._") != std::string::npos)
      throw Error("--nodes: '" + name + "' is not a node name (give a count, or names separated by commas)");
    names.push_back(name);
    if (names.size() > 65536) throw Error("--nodes: more than 65536 nodes");
    seen_once(name);
    if (end == std::string::npos) break;
    at = end + 1;
  }
  return names;
}

// --nodes: which node each rank runs on, by the ranks' traffic.
int place_ranks(const Options& o) {
  if (o.task_matrix.empty()) throw UsageError("--nodes needs --task-matrix: the ranks' traffic decides their nodes");
  std::vector<std::string> names = node_names(o.nodes);
  bool counted = o.nodes.find_first_not_of("0123456789") == std::string::npos;
  if (o.format == "hostfile" && counted)
    throw Error("--format hostfile needs the nodes' names: --nodes \"$(scontrol show hostnames | paste -sd,)\"");
  if (o.format != "hostfile" && o.format != "text" && o.format != "json")
    throw Error("--nodes writes --format hostfile, text or json, not " + o.format);
  char err[1024];
  sp_rank_traffic t{};
  int ranks = sp_split_ranks(o.task_matrix.c_str(), static_cast<int>(names.size()), o.seed, nullptr, 0, &t, err, sizeof err);
  if (ranks < 0) throw Error(err);
  std::vector<int> node_of(static_cast<size_t>(ranks));
  if (sp_split_ranks(o.task_matrix.c_str(), static_cast<int>(names.size()), o.seed, node_of.data(), node_of.size(), &t,
                     err, sizeof err) != ranks)
    throw Error(err);
  std::fputs(format_rank_nodes(o.format, names, node_of, t).c_str(), stdout);
  return 0;
}

}  // namespace

int place_command(int argc, char** argv) {
  Options o = parse(argc, argv);
  if (!o.nodes.empty() && o.strategy != "help") return place_ranks(o);
  if (o.strategy == "help") {
    std::fputs(kUsage, stdout);
    std::fputs(sp_strategies_help(), stdout);
    return 0;
  }
  // random without --seed differs run to run (the seed is printed to repeat
  // it); every other strategy is deterministic.
  if (o.strategy == "random" && !o.seed_given)
    o.seed = static_cast<uint64_t>(std::chrono::system_clock::now().time_since_epoch().count());
  if (!o.matrix.empty() && !o.profile.empty())
    throw UsageError("give either --matrix or --profile, not both");
  if (o.model != "simple" && o.model != "rw")
    throw Error("unknown model '" + o.model + "': use simple or rw");
  if (o.profile.empty() && !o.region.empty()) throw Error("--region needs --profile");
  if (o.phases && o.profile.empty() && o.strategy.compare(0, 5, "file:") != 0)
    throw Error("--phases needs --profile: the regions come from the profile");
  std::unique_ptr<sp_placement_t, decltype(&sp_finalize)> p(sp_init(), sp_finalize);
  if (!p) throw Error("out of memory");
  int computed;
  {
    QuietStderr quiet;  // a malformed topology file: the engine's line, not hwloc's too
    set_inputs(p.get(), o);
    computed = sp_compute(p.get());
  }
  check(p.get(), computed);
  std::fputs(format_result(o.format, {p.get(), o.strategy, o.seed}).c_str(), stdout);
  return 0;
}

}  // namespace slurmpin
