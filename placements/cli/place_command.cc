// SPDX-License-Identifier: GPL-2.0-or-later
// `slurm-pin place`: compute and explain a placement offline.
#include "place_command.hh"

#include <getopt.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "cli_options.h"
#include "input/args.hh"
#include "topology/cpulist.hh"
#include "topology/devices.hh"
#include "engine.hh"
#include "error.hh"
#include "sharing/matrix_file.hh"
#include "place_output.hh"
#include "sharing/profile.hh"
#include "slurm_binding_env.h"
#include "slurm_pin/slurm_pin.h"

namespace slurmpin {

namespace {

const char kUsage[] =
    "usage: slurm-pin place [--topology this|FILE.xml|SYNTHETIC] [--restrict CPULIST]\n"
    "                       --strategy S [--matrix FILE | --profile FILE [--model simple|rw]\n"
    "                       [--region NAME]] [--tasks N] [--task-layout compact|scatter]\n"
    "                       [--threads T] [--granularity pu|core|l2|l3|numa] [--smt K]\n"
    "                       [--gpu closest|none]\n"
    "                       [--oversubscribe] [--seed K] [--phases [--phase-merge F]]\n"
    "                       [--format text|json|omp|likwid|placement]\n"
    "strategies (--strategy help):\n";

struct Options {
  Request request;
  std::string strategy = "compact", format = "text", matrix, profile, model = "simple", region;
  std::string granularity = "core", gpu = "none";
  bool seed_given = false;
};

Options parse(int argc, char** argv) {
  static const option longopts[] = {
      {"topology", required_argument, nullptr, SP_OPT_TOPOLOGY}, {"restrict", required_argument, nullptr, 'r'},
      {"strategy", required_argument, nullptr, SP_OPT_STRATEGY}, {"matrix", required_argument, nullptr, 'm'},
      {"profile", required_argument, nullptr, SP_OPT_PROFILE},  {"model", required_argument, nullptr, SP_OPT_MODEL},
      {"region", required_argument, nullptr, SP_OPT_REGION},   {"tasks", required_argument, nullptr, 'n'},
      {"task-layout", required_argument, nullptr, 'L'},
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
      case SP_OPT_TOPOLOGY: o.request.topology.source = optarg; break;
      case 'r': o.request.topology.allowed = parse_cpulist(optarg, "--restrict"); break;
      case SP_OPT_STRATEGY: o.strategy = optarg; break;
      case 'm': o.matrix = optarg; break;
      case SP_OPT_PROFILE: o.profile = optarg; break;
      case SP_OPT_MODEL: o.model = optarg; break;
      case SP_OPT_REGION: o.region = optarg; break;
      case 'n': o.request.tasks = static_cast<int>(parse_count("--tasks", optarg, 1, 4096)); break;
      case 'L': {
        std::string l = optarg;
        if (l != "compact" && l != "scatter")
          throw Error("unknown task layout '" + l + "': use compact or scatter");
        o.request.task_layout = l == "compact" ? TaskLayout::kCompact : TaskLayout::kScatter;
        break;
      }
      case SP_OPT_THREADS: o.request.threads = static_cast<int>(parse_count("--threads", optarg, 1, 65536)); break;
      case SP_OPT_GRANULARITY: o.granularity = optarg; break;
      case SP_OPT_OVERSUBSCRIBE: o.request.oversubscribe = true; break;
      case SP_OPT_SMT: o.request.topology.smt = parse_smt(optarg); break;
      case SP_OPT_GPU: o.gpu = optarg; break;
      case SP_OPT_SEED: o.request.seed = parse_seed(optarg), o.seed_given = true; break;
      case 'f': o.format = optarg; break;
      case SP_OPT_PHASES: o.request.phases = true; break;
      case 'G': {
        char* end = nullptr;
        double v = std::strtod(optarg, &end);
        if (!*optarg || *end || !(v >= 0 && v <= 1))
          throw Error(std::string("--phase-merge wants a share of threads from 0 to 1, not '") + optarg + "'");
        o.request.phase_merge = v;
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
  return o;
}

}  // namespace

int place_command(int argc, char** argv) {
  Options o = parse(argc, argv);
  if (o.strategy == "help") {
    std::fputs(kUsage, stdout);
    std::fputs(sp_strategies_help(), stdout);
    return 0;
  }
  Request& r = o.request;
  r.strategy = parse_strategy(o.strategy, &r.placement_path);
  // random without --seed differs run to run (the seed is printed to repeat
  // it); every other strategy is deterministic.
  if (r.strategy == Strategy::kRandom && !o.seed_given)
    r.seed = static_cast<uint64_t>(std::chrono::system_clock::now().time_since_epoch().count());
  set_granularity(r, o.granularity);
  set_gpu(r, o.gpu);
  for (const char* const* name = kGpuEnvNames; *name; ++name)  // the job's GPUs, as for srun
    if (const char* v = std::getenv(*name)) r.gpu_env[*name] = v;
  if (const char* v = slurm_gpu_list_getenv()) r.gpu_indices = v;
  if (!o.matrix.empty() && !o.profile.empty())
    throw UsageError("give either --matrix or --profile, not both");
  if (o.model != "simple" && o.model != "rw")
    throw Error("unknown model '" + o.model + "': use simple or rw");
  if (!o.matrix.empty()) {
    r.matrix = read_matrix_file(o.matrix);
    r.has_matrix = true;
    r.matrix_source = "matrix " + o.matrix;
  } else if (!o.profile.empty()) {
    r.profile_model = o.model;
    r.profile_region = o.region;
    use_profile_file(r, o.profile, "");
  } else if (!o.region.empty()) {
    throw Error("--region needs --profile");
  }
  if (r.phases && o.profile.empty() && r.strategy != Strategy::kFile)
    throw Error("--phases needs --profile: the regions come from the profile");
  Result result = compute_placement(r);
  std::fputs(format_result(o.format, {r, result, o.strategy}).c_str(), stdout);
  return 0;
}

}  // namespace slurmpin
