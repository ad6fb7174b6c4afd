// SPDX-License-Identifier: GPL-2.0-or-later
// `slurm-pin run`: the binding core as a launcher, like likwid-pin or
// hwloc-bind: outside Slurm, inside an allocation without the plugin, and
// for MPI ranks (mpirun -np 8 slurm-pin run ... -- ./app), each of which
// places itself among its node's ranks by local rank, as the SPANK plugin
// places the tasks of an srun step. It uses the C API only, as the plugin
// does: compute the placement, bind, set the task environment, exec.
// Nothing is formatted here.
//
// The thread runtime starts the ranks of an MPI launcher's daemon through
// `slurm-pin run --launched-rank` (runtime/rank_launch.c): the request then
// comes from SLURM_PIN_RANK_OPTIONS, and a rank that cannot be placed runs
// as its launcher started it, after one line saying why.
#include "site_store.h"
#include "run_command.hh"

#include <getopt.h>
#include <limits.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>

#include "api_check.hh"
#include "cli_options.h"
#include "input/args.hh"
#include "error.hh"
#include "kv_text.h"
#include "mpi_rank.hh"
#include "policy_yield.h"
#include "preload_list.h"
#include "input/printable.hh"
#include "slurm_binding_env.h"
#include "task_file.h"
#include "slurm_pin_frontend.h"
#include "sharing/store.hh"
#include "stderr_line.h"
#include "task_env.h"

namespace slurmpin {

namespace {

const char kUsage[] =
    "usage: slurm-pin run [--strategy S] [--profile NAME[@VERSION]|FILE] [--store DIR]\n"
    "                     [--threads N] [--mem none|local|interleave]\n"
    "                     [--granularity pu|core|l2|l3|numa] [--smt K] [--gpu closest|none]\n"
    "                     [--thread-binding auto|env|preload|ompt]\n"
    "                     [--phases] [--no-oversubscribe] [--seed K] [--verbose] [--dryrun]\n"
    "                     -- PROGRAM [ARGS...]\n"
    "Binds this process within the CPUs it may use now (its cgroup, allocation or\n"
    "taskset), sets the environment its threads follow, and runs PROGRAM, as\n"
    "srun --pin-strategy does. Default strategy: compact. --threads sets\n"
    "OMP_NUM_THREADS; without it, OMP_NUM_THREADS or one thread per core. More\n"
    "threads than cores share them, neighbours together, as srun does by default;\n"
    "--no-oversubscribe makes that an error.\n"
    "Started by an MPI launcher (mpirun -np 8 slurm-pin run ... -- ./app), each rank\n"
    "takes its share of its node's CPUs by local rank (the launcher's variables),\n"
    "of the CPUs of its cgroup when the launcher bound it narrower.\n"
    "exit status: PROGRAM's; 1 when slurm-pin fails before running it, 2 for a\n"
    "wrong command line, 126 or 127 when PROGRAM cannot be run.\n";

struct Options {
  std::string strategy = "compact", profile, store = site_store(), threads, mem = "none";
  std::string granularity = "core", binding;
  // oversubscribe: more threads than cores share them, as srun's default
  // (the site's oversubscribe=share); --no-oversubscribe makes it an error.
  bool phases = false, oversubscribe = true, verbose = false, dryrun = false, help = false;
  std::string seed;
  int smt = 0;
  std::string gpu = "none";
  char** program = nullptr;
  // A rank a launcher's daemon started (--launched-rank): the request came
  // from SLURM_PIN_RANK_OPTIONS, and what to exec from the daemon's call.
  bool launched = false;
  std::string exec_file;     // --exec FILE (as execve) or --exec-search FILE (as execvp)
  bool exec_search = false;
  std::string cache, decision, origin, launcher, node;  // the plugin's settings for the ranks
  // The policy rule whose profile this is, "enforce" or "default", and the
  // strategy a default rule's yields to (launcher_step.h rank_request).
  std::string rule, rule_mode, fallback;
  std::string note;  // said after the rank's verbose line
  bool legacy_omp_env = false;
  unsigned long long max_file = 0;
  double max_time = 0;
};

// The ranks' request, as the plugin wrote it for a launcher's daemon
// (common/task_env.h): the --pin-* settings in force and the site's.
int rank_option(const char* key, size_t key_len, const char* v, size_t n, void* ctx) {
  Options& o = *static_cast<Options*>(ctx);
  char value[PATH_MAX * 2];
  if (kv_decode(value, sizeof value, v, n) != 0) return -1;
  std::string k(key, key_len);
  if (k == "strategy") o.strategy = value;
  else if (k == "profile") o.profile = value;
  else if (k == "store") o.store = value;
  else if (k == "mem") o.mem = value;
  else if (k == "granularity") o.granularity = value;
  else if (k == "threads") o.binding = value;
  else if (k == "smt") o.smt = parse_smt(value);
  else if (k == "gpu") o.gpu = value;
  else if (k == "cache") o.cache = value;
  else if (k == "decision") o.decision = value;
  else if (k == "origin") o.origin = value;
  else if (k == "launcher") o.launcher = value;
  else if (k == "launchers") {  // for the runtime in the daemon (rank_launch.c), not the rank
  }
  else if (k == "node") o.node = value;
  else if (k == "rule") o.rule = value;
  else if (k == "rule_mode") o.rule_mode = value;
  else if (k == "fallback") o.fallback = value;
  else if (k == "max_file") o.max_file = std::strtoull(value, nullptr, 10);
  else if (k == "max_time") o.max_time = std::strtod(value, nullptr);
  else if (k == "legacy") o.legacy_omp_env = true;
  else if (k == "flags") {
    for (const char* f = value; *f;) {
      size_t len = std::strcspn(f, ",");
      std::string flag(f, len);
      if (flag == "verbose") o.verbose = true;
      else if (flag == "phases") o.phases = true;
      else if (flag == "oversubscribe") o.oversubscribe = true;
      else if (flag == "dryrun") o.dryrun = true;
      else return -1;
      f += len + (f[len] == ',');
    }
  } else return -1;
  return 0;
}

void read_rank_options(Options& o) {
  o.oversubscribe = false;  // the site's choice comes in the flags
  const char* text = std::getenv(SP_ENV_RANK_OPTIONS);
  if (!text || kv_each(text, rank_option, &o) != 0)
    throw Error(std::string(SP_ENV_RANK_OPTIONS) + " is missing or malformed (it is set for a launcher's daemon "
                "by the SPANK plugin)");
}

Options parse(int argc, char** argv) {
  static const option longopts[] = {
      {"strategy", required_argument, nullptr, SP_OPT_STRATEGY}, {"profile", required_argument, nullptr, SP_OPT_PROFILE},
      {"store", required_argument, nullptr, SP_OPT_STORE},    {"threads", required_argument, nullptr, SP_OPT_THREADS},
      {"mem", required_argument, nullptr, 'm'},      {"granularity", required_argument, nullptr, SP_OPT_GRANULARITY},
      {"thread-binding", required_argument, nullptr, 'b'},
      {"phases", no_argument, nullptr, SP_OPT_PHASES},         {"oversubscribe", no_argument, nullptr, SP_OPT_OVERSUBSCRIBE},
      {"no-oversubscribe", no_argument, nullptr, 'O'},
      {"seed", required_argument, nullptr, SP_OPT_SEED},     {"verbose", no_argument, nullptr, 'v'},
      {"dryrun", no_argument, nullptr, 'n'},         {"help", no_argument, nullptr, 'h'},
      {"smt", required_argument, nullptr, SP_OPT_SMT},      {"gpu", required_argument, nullptr, SP_OPT_GPU},
      // Internal: how the thread runtime starts a launcher's rank.
      {"launched-rank", no_argument, nullptr, 'L'},  {"exec", required_argument, nullptr, 'E'},
      {"exec-search", required_argument, nullptr, 'F'},
      {nullptr, 0, nullptr, 0}};
  Options o;
  opterr = 0;
  optind = 1;
  int c;
  // '+': options end at the program, whose own options are its own.
  while ((c = getopt_long(argc, argv, "+hv", longopts, nullptr)) != -1) {
    switch (c) {
      case SP_OPT_STRATEGY: o.strategy = optarg; break;
      case SP_OPT_PROFILE: o.profile = optarg; break;
      case SP_OPT_STORE: o.store = optarg; break;
      case SP_OPT_THREADS: o.threads = std::to_string(parse_count("--threads", optarg, 1, 65536)); break;
      case 'm': o.mem = optarg; break;
      case SP_OPT_GRANULARITY: o.granularity = optarg; break;
      case 'b': o.binding = optarg; break;
      case SP_OPT_PHASES: o.phases = true; break;
      case SP_OPT_OVERSUBSCRIBE: o.oversubscribe = true; break;  // the default; kept for scripts that say it
      case 'O': o.oversubscribe = false; break;
      case SP_OPT_SEED: o.seed = optarg; break;
      case SP_OPT_SMT: o.smt = parse_smt(optarg); break;
      case SP_OPT_GPU: o.gpu = optarg; break;
      case 'v': o.verbose = true; break;
      case 'n': o.dryrun = true; break;
      case 'L': o.launched = true; break;
      case 'E': o.exec_file = optarg; break;
      case 'F': o.exec_file = optarg, o.exec_search = true; break;
      case 'h': o.help = true; return o;
      default:
        throw UsageError(std::string("unknown or incomplete option '") + argv[optind - 1] +
                         "' (see slurm-pin run --help)");
    }
  }
  if (optind >= argc) throw UsageError("no program to run: slurm-pin run [OPTIONS] -- PROGRAM [ARGS...]");
  o.program = argv + optind;
  if (o.exec_file.empty()) o.exec_file = o.program[0], o.exec_search = true;
  return o;
}

// Every error of the C API is one line: the problem, then the fix.
std::string self_path() {
  char self[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
  if (n <= 0) throw Error(std::string("cannot find the slurm-pin command itself: ") + std::strerror(errno));
  self[n] = '\0';
  return self;
}

std::string binding_mode(const Options& o) { return !o.binding.empty() ? o.binding : o.phases ? "ompt" : "auto"; }

// auto where the thread library cannot reach the program (`missing`: the
// library itself, else `program` as the loader sees it): OMP_PLACES alone
// binds, and the note says why, as the plugin's (sp_auto_binding_note). ""
// when auto binds as it is.
std::string env_only(sp_placement_t* p, const char* program, const char* path_env, const char* missing) {
  char note[2048];
  if (sp_auto_binding_note(program, path_env, missing, note, sizeof note) == 0) return "";
  check(p, sp_set_thread_mode(p, "env"));
  return note;
}

// The binding's settings; a note when auto falls back to OMP_PLACES alone.
std::string set_binding(sp_placement_t* p, const Options& o, const std::string& mode) {
  check(p, sp_set_thread_mode(p, mode.c_str()));
  check(p, sp_set_mem_policy(p, o.mem.c_str()));
  check(p, sp_set_legacy_omp_env(p, o.legacy_omp_env));
  check(p, sp_set_origin(p, o.origin.c_str()));
  if (mode == "env") return "";
  char lib[PATH_MAX], err[1024];
  if (sp_find_thread_library(self_path().c_str(), lib, sizeof lib, err, sizeof err) != 0) {
    if (mode != "auto") throw Error(err);
    return env_only(p, nullptr, nullptr, (std::string("slurm-pin's thread library is not installed: ") + err).c_str());
  }
  check(p, sp_set_thread_library(p, lib));
  return "";
}

// The job-wide ranks of the node's ranks, for a profile's rank traffic: a
// rank knows only its own, so the node's are taken as consecutive, as the
// launchers map them by default (Open MPI by slot, hydra filling each host
// in turn; docs/spank.md). Unknown sizes leave the engine's default.
void set_task_ranks(sp_placement_t* p, const MpiRank& rank) {
  int me = rank.rank.empty() ? -1 : std::atoi(rank.rank.c_str()), first = me - rank.local_rank;
  if (me < 0 || first < 0 || rank.world_size <= 0 || first + rank.local_size > rank.world_size) return;
  std::vector<int> ranks;
  for (int l = 0; l < rank.local_size; ++l) ranks.push_back(first + l);
  check(p, sp_set_task_ranks(p, ranks.data(), rank.local_size, rank.world_size));
}

// Where the task's CPUs come from: among an MPI launcher's ranks, its
// share of the node's (tasks: the local size); else the CPUs this process
// may use now.
void set_cpus(sp_placement_t* p, const MpiRank& rank) {
  if (rank.local_rank < 0) {
    check(p, sp_set_restrict_to_process(p, 1));
    return;
  }
  check(p, sp_set_tasks(p, rank.local_size));
  set_task_ranks(p, rank);
  std::string node = node_cpus_for_ranks();
  if (node.empty()) check(p, sp_set_restrict_to_process(p, 1));
  else check(p, sp_set_restrict(p, node.c_str()));
}

std::string compute(sp_placement_t* p, const Options& o, const MpiRank& rank) {
  const std::string mode = binding_mode(o);
  if (o.phases && mode != "ompt")
    throw UsageError("--phases moves threads at every parallel region, which needs --thread-binding=ompt, not " + mode);
  if (sp_strategy_needs_profile(o.strategy.c_str()) == 1 && o.profile.empty())
    throw UsageError("--strategy " + o.strategy + " needs a sharing profile: add --profile NAME or --profile FILE");
  if (!o.threads.empty()) setenv("OMP_NUM_THREADS", o.threads.c_str(), 1);
  check(p, sp_set_topology(p, "this"));
  if (!o.cache.empty()) check(p, sp_set_topology_cache(p, o.cache.c_str()));
  set_cpus(p, rank);
  check(p, sp_set_strategy(p, o.strategy.c_str()));
  check(p, sp_set_granularity(p, o.granularity.c_str()));
  check(p, sp_set_smt(p, o.smt));
  check(p, sp_set_gpu_locality(p, o.gpu.c_str()));
  for (const char* const* name = sp_job_gpu_variable_names(); *name; ++name)  // the GPUs this job may use
    check(p, sp_set_job_gpu_variable(p, *name, std::getenv(*name)));
  check(p, sp_set_job_gpus(p, slurm_gpu_list_getenv()));  // which of the node's they are
  const char* omp_num_threads = std::getenv("OMP_NUM_THREADS");
  check(p, sp_set_threads(p, parse_omp_num_threads(omp_num_threads ? omp_num_threads : "")));
  check(p, sp_set_oversubscribe(p, o.oversubscribe));
  check(p, sp_set_phases(p, o.phases, 0));
  check(p, sp_set_budget(p, static_cast<size_t>(o.max_file), o.max_time));
  if (!o.seed.empty()) check(p, sp_set_seed(p, parse_seed(o.seed)));
  if (!o.profile.empty()) check(p, sp_set_profile(p, o.profile.c_str(), o.store.c_str(), "simple", nullptr));
  std::string note = set_binding(p, o, mode);
  check(p, sp_compute(p));
  return note;
}

// What the thread runtime reads and the environment cannot hold, in an
// anonymous file the program inherits (no file is left behind): named
// /proc/self/fd/N, which is the same file in the program after exec.
void export_task_data(sp_placement_t* p, int task) {
  std::string data = text_of(p, [&](char* b, size_t l) { return sp_get_task_data(p, task, b, l); });
  if (data.empty()) return;  // the task needs none
  char path[64];
  if (task_file_create(data.c_str(), data.size(), path, sizeof path) != 0)
    throw Error(std::string("cannot keep the task's places for its thread library: ") + std::strerror(errno));
  if (setenv(SP_ENV_TASK_FILE, path, 1) != 0) throw Error("cannot set " SP_ENV_TASK_FILE);
}

// slurm-pin's thread runtime out of LD_PRELOAD: a launcher's daemon had it
// loaded to start its ranks; a rank that needs it gets it again from the
// engine's environment.
void drop_runtime_preload() {
  const char* current = std::getenv("LD_PRELOAD");
  if (!current) return;
  std::string kept(std::strlen(current) + 1, '\0');
  if (preload_without_runtime(current, &kept[0], kept.size()) != 1) return;
  kept.resize(std::strlen(kept.c_str()));
  if (kept.empty()) unsetenv("LD_PRELOAD");
  else setenv("LD_PRELOAD", kept.c_str(), 1);
}

// Binding variables inherited from whoever started this process (a batch
// script, a launcher's daemon): they describe no binding of this one.
void drop_inherited_binding() {
  static const char* const names[] = SP_ENV_BINDING_NAMES;
  for (const char* const* n = names; *n; ++n) unsetenv(*n);
  drop_runtime_preload();
}

// Inside a Slurm step, SLURM_CPU_BIND* say what srun bound: they are
// replaced by what this binding is, as task/affinity writes mask_cpu (one
// mask per task of the node; nested launchers read them).
void export_slurm_cpu_bind(sp_placement_t* p) {
  if (!std::getenv("SLURM_CPU_BIND")) return;
  auto task_cpus = [](const void* p, int task, char* buf, size_t len) {
    return hwloc_bitmap_list_snprintf(buf, len, sp_get_task_cpuset(static_cast<const sp_placement_t*>(p), task));
  };
  std::unique_ptr<char, decltype(&free)> list(slurm_cpu_bind_list(sp_get_ntasks(p), task_cpus, p), free);
  auto set = [](void*, const char* name, const char* value) { return setenv(name, value, 1); };
  if (!list || slurm_cpu_bind_export(list.get(), set, nullptr) != 0)
    throw Error("cannot describe the binding in SLURM_CPU_BIND");
}

// The task's environment, variable by variable, as the engine wants it;
// then the site policy's decision (read from a trusted place by the plugin
// that started this) and Slurm's description of the binding.
void export_env(sp_placement_t* p, int task, const Options& o) {
  drop_inherited_binding();
  export_task_data(p, task);
  for (int i = 0; i < sp_get_env_count(p); ++i) {
    std::string name = text_of(p, [&](char* b, size_t l) { return sp_get_env_name(p, i, b, l); });
    const char* current = std::getenv(name.c_str());
    std::string value;
    int n = text_into([&](char* b, size_t l) { return sp_get_env_value(p, task, i, current, b, l); }, value);
    if (n == SP_ENV_UNSET) {
      if (unsetenv(name.c_str()) != 0) throw Error("cannot unset " + name);
      continue;
    }
    check(p, n);
    if (setenv(name.c_str(), value.c_str(), 1) != 0) throw Error("cannot set " + name);
  }
  if (!o.decision.empty() && setenv(SP_ENV_POLICY, o.decision.c_str(), 1)) throw Error("cannot set " SP_ENV_POLICY);
  export_slurm_cpu_bind(p);
}

// "n1 rank 3 (local 1 of 2, mpirun)" or the host's name: where this is.
std::string where(const MpiRank& rank, const Options& o) {
  char host[256] = "";
  // The daemon's node as the plugin named it: a launcher may copy another
  // node's SLURMD_NODENAME into its ranks (hydra passes mpiexec's).
  const char* node = !o.node.empty() ? o.node.c_str() : std::getenv("SLURMD_NODENAME");
  if (!node) gethostname(host, sizeof host - 1), node = host;
  std::string s = node;
  if (rank.local_rank >= 0)
    s += " rank " + (rank.rank.empty() ? "?" : rank.rank) + " (local " + std::to_string(rank.local_rank) + " of " +
         std::to_string(rank.local_size) + (o.launcher.empty() ? "" : ", started by " + o.launcher) + ")";
  return s;
}

// The task's line, then (for the node's first task, as the plugin does)
// the engine's notes and this command's own.
void describe(sp_placement_t* p, int task, const std::string& at, const Options& o) {
  std::string what = text_of(p, [&](char* b, size_t l) { return sp_describe_task(p, task, b, l); });
  const char* run = o.dryrun ? "dry run: " : "";
  stderr_line("slurm-pin: %s%s: %s\n", run, at.c_str(), what.c_str());
  if (task != 0) return;
  auto say_note = [&](const char* note) { stderr_line("slurm-pin: %s%s: note: %s\n", run, at.c_str(), note); };
  for (int i = 0; i < sp_get_nnotes(p); ++i) say_note(note(p, i).c_str());
  if (!o.note.empty()) say_note(o.note.c_str());
}

[[noreturn]] void exec(const Options& o) {
  std::fflush(nullptr);
  if (o.exec_search) execvp(o.exec_file.c_str(), o.program);
  else execv(o.exec_file.c_str(), o.program);
  int e = errno;
  stderr_line("slurm-pin: error: cannot run %s: %s\n", o.exec_file.c_str(), std::strerror(e));
  std::exit(e == ENOENT ? 127 : 126);
}

// Computes, binds and sets the environment of this process as `rank`.
void place(const Options& o, const MpiRank& rank) {
  sp_placement_t* p = sp_init();
  if (!p) throw Error("out of memory");
  try {
    Options shown = o;  // with this rank's own note
    std::string note = compute(p, o, rank);
    int task = rank.local_rank < 0 ? 0 : rank.local_rank;
    if (o.dryrun) {
      describe(p, task, where(rank, o), o);
    } else {
      char err[1024];
      const char* path_env = std::getenv("PATH");
      const char* search = o.exec_search && path_env ? path_env : "";
      if (binding_mode(o) == "auto" && note.empty()) note = env_only(p, o.exec_file.c_str(), search, nullptr);
      else if (binding_mode(o) != "env" && binding_mode(o) != "auto" &&
               sp_check_preloadable(o.exec_file.c_str(), search, err, sizeof err) != 0)
        throw Error(err);
      if (!note.empty()) shown.note = shown.note.empty() ? note : shown.note + "; " + note;
      check(p, sp_bind_task(p, task));
      export_env(p, task, o);
      if (o.verbose) {
        describe(p, task, where(rank, o), shown);
        setenv(SP_ENV_VERBOSE, "1", 1);  // the runtime's own note, when the program moves its threads
      }
    }
  } catch (...) {
    sp_finalize(p);
    throw;
  }
  sp_finalize(p);
}

// A rank the policy's rule cannot place: it does not run.
struct RuleError : Error {
  using Error::Error;
};

// A launcher's rank placed as the policy says, as the plugin places an
// srun step (compute_with_policy): a default rule's profile that does not
// fit the rank yields to the rule's strategy without it (or compact), with
// a note; an enforced rule's ends the rank with one line naming the rule.
void place_launched(Options& o, const MpiRank& rank) {
  try {
    place(o, rank);
    return;
  } catch (const std::exception& e) {
    if (o.rule.empty() || o.profile.empty()) throw;
    std::string why = printable(e.what());
    char text[2048];
    if (o.rule_mode == "enforce") {
      policy_enforced_error(text, sizeof text, o.rule.c_str(), "rank", why.c_str());
      throw RuleError(text);
    }
    if (o.fallback.empty()) throw;
    policy_yield_note(text, sizeof text, o.rule.c_str(), o.profile.c_str(), why.c_str(), o.fallback.c_str());
    o.note = text;
    o.strategy = o.fallback;
    o.profile.clear();
  }
  place(o, rank);
}

}  // namespace

int run_command(int argc, char** argv) {
  Options o = parse(argc, argv);
  if (o.help) {
    std::fputs(kUsage, stdout);
    return 0;
  }
  MpiRank rank = find_mpi_rank();
  if (o.launched) {
    // A launcher's rank: never fails the rank. What cannot be placed runs
    // as the launcher started it, after one line saying why.
    try {
      read_rank_options(o);
      if (rank.local_rank < 0) throw Error("its launcher gives no local rank (Open MPI, PRRTE and hydra do)");
      place_launched(o, rank);
    } catch (const RuleError& e) {
      stderr_line("slurm-pin: error: %s: %s\n", where(rank, o).c_str(), e.what());
      return 1;
    } catch (const std::exception& e) {
      drop_inherited_binding();
      stderr_line("slurm-pin: %s: cannot be placed (%s); it runs as its launcher started it\n",
                   where(rank, o).c_str(), printable(e.what()).c_str());
    }
    exec(o);
  }
  if (o.strategy == "help") {
    std::fputs(sp_strategies_help(), stdout);
    return 0;
  }
  if (o.strategy == "none") {
    drop_inherited_binding();
    if (o.verbose) stderr_line("slurm-pin: strategy none: nothing is bound\n");
    exec(o);
  }
  place(o, rank);
  exec(o);
}

}  // namespace slurmpin
