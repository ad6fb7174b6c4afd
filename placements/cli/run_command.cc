// SPDX-License-Identifier: GPL-2.0-or-later
// `slurm-pin run`: the binding core as a launcher outside Slurm (a
// workstation, or an allocation without the plugin), like likwid-pin or
// hwloc-bind. It uses the C API only, as the SPANK plugin does: compute the
// placement within this process's CPUs, bind, set the task environment,
// exec. Nothing is formatted here.
#include "run_command.hh"

#include <getopt.h>
#include <limits.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "args.hh"
#include "error.hh"
#include "slurm_pin/placement.h"
#include "store.hh"
#include "task_env.h"

namespace slurmpin {

namespace {

const char kUsage[] =
    "usage: slurm-pin run [--strategy S] [--profile NAME[@VERSION]|FILE] [--store DIR]\n"
    "                     [--threads N] [--mem none|local|interleave]\n"
    "                     [--granularity pu|core|l2|l3|numa] [--smt K] [--gpu closest|none]\n"
    "                     [--thread-binding env|preload|ompt]\n"
    "                     [--phases] [--oversubscribe] [--seed K] [--verbose] [--dryrun]\n"
    "                     -- PROGRAM [ARGS...]\n"
    "Binds this process within the CPUs it may use now (its cgroup, allocation or\n"
    "taskset), sets the environment its threads follow, and runs PROGRAM, as\n"
    "srun --pin-strategy does. Default strategy: compact. --threads sets\n"
    "OMP_NUM_THREADS; without it, OMP_NUM_THREADS or one thread per core.\n"
    "exit status: PROGRAM's; 1 when slurm-pin fails before running it, 2 for a\n"
    "wrong command line, 126 or 127 when PROGRAM cannot be run.\n";

struct Options {
  std::string strategy = "compact", profile, store = default_store_dir(), threads, mem = "none";
  std::string granularity = "core", binding;
  bool phases = false, oversubscribe = false, verbose = false, dryrun = false, help = false;
  std::string seed;
  int smt = 0;
  std::string gpu = "none";
  char** program = nullptr;
};

Options parse(int argc, char** argv) {
  static const option longopts[] = {
      {"strategy", required_argument, nullptr, 's'}, {"profile", required_argument, nullptr, 'p'},
      {"store", required_argument, nullptr, 'S'},    {"threads", required_argument, nullptr, 't'},
      {"mem", required_argument, nullptr, 'm'},      {"granularity", required_argument, nullptr, 'g'},
      {"thread-binding", required_argument, nullptr, 'b'},
      {"phases", no_argument, nullptr, 'P'},         {"oversubscribe", no_argument, nullptr, 'o'},
      {"seed", required_argument, nullptr, 'k'},     {"verbose", no_argument, nullptr, 'v'},
      {"dryrun", no_argument, nullptr, 'n'},         {"help", no_argument, nullptr, 'h'},
      {"smt", required_argument, nullptr, 'K'},      {"gpu", required_argument, nullptr, 'U'},
      {nullptr, 0, nullptr, 0}};
  Options o;
  opterr = 0;
  optind = 1;
  int c;
  // '+': options end at the program, whose own options are its own.
  while ((c = getopt_long(argc, argv, "+hv", longopts, nullptr)) != -1) {
    switch (c) {
      case 's': o.strategy = optarg; break;
      case 'p': o.profile = optarg; break;
      case 'S': o.store = optarg; break;
      case 't': o.threads = std::to_string(parse_count("--threads", optarg, 1, 65536)); break;
      case 'm': o.mem = optarg; break;
      case 'g': o.granularity = optarg; break;
      case 'b': o.binding = optarg; break;
      case 'P': o.phases = true; break;
      case 'o': o.oversubscribe = true; break;
      case 'k': o.seed = optarg; break;
      case 'K': o.smt = parse_smt(optarg); break;
      case 'U': o.gpu = optarg; break;
      case 'v': o.verbose = true; break;
      case 'n': o.dryrun = true; break;
      case 'h': o.help = true; return o;
      default:
        throw UsageError(std::string("unknown or incomplete option '") + argv[optind - 1] +
                         "' (see slurm-pin run --help)");
    }
  }
  if (optind >= argc) throw UsageError("no program to run: slurm-pin run [OPTIONS] -- PROGRAM [ARGS...]");
  o.program = argv + optind;
  return o;
}

// Every error of the C API is one line: the problem, then the fix.
void check(sp_placement_t* p, int rc) {
  if (rc != 0) throw Error(sp_error(p));
}

std::string self_path() {
  char self[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
  if (n <= 0) throw Error(std::string("cannot find the slurm-pin command itself: ") + std::strerror(errno));
  self[n] = '\0';
  return self;
}

void set_binding(sp_placement_t* p, const Options& o, const std::string& mode) {
  check(p, sp_set_thread_mode(p, mode.c_str()));
  check(p, sp_set_mem_policy(p, o.mem.c_str()));
  // Inside a Slurm step, what srun said of its own binding is replaced.
  check(p, sp_set_slurm_cpu_bind(p, std::getenv("SLURM_CPU_BIND") != nullptr));
  if (mode != "env") {
    char lib[PATH_MAX], err[1024];
    if (sp_find_thread_library(self_path().c_str(), lib, sizeof lib, err, sizeof err) != 0) throw Error(err);
    check(p, sp_set_thread_library(p, lib));
  }
}

std::string binding_mode(const Options& o) { return !o.binding.empty() ? o.binding : o.phases ? "ompt" : "env"; }

void compute(sp_placement_t* p, const Options& o) {
  const std::string mode = binding_mode(o);
  if (o.phases && mode != "ompt")
    throw UsageError("--phases moves threads at every parallel region, which needs --thread-binding=ompt, not " + mode);
  if (sp_strategy_needs_profile(o.strategy.c_str()) == 1 && o.profile.empty())
    throw UsageError("--strategy " + o.strategy + " needs a sharing profile: add --profile NAME or --profile FILE");
  if (!o.threads.empty()) setenv("OMP_NUM_THREADS", o.threads.c_str(), 1);
  check(p, sp_set_topology(p, "this"));
  check(p, sp_set_restrict_to_process(p, 1));
  check(p, sp_set_strategy(p, o.strategy.c_str()));
  check(p, sp_set_granularity(p, o.granularity.c_str()));
  check(p, sp_set_smt(p, o.smt));
  check(p, sp_set_gpu(p, o.gpu.c_str()));
  for (const char* const* name = sp_gpu_env_names(); *name; ++name)  // the GPUs this job may use
    check(p, sp_set_gpu_env(p, *name, std::getenv(*name)));
  check(p, sp_set_omp_num_threads(p, std::getenv("OMP_NUM_THREADS")));
  check(p, sp_set_oversubscribe(p, o.oversubscribe));
  check(p, sp_set_phases(p, o.phases, 0));
  if (!o.seed.empty()) check(p, sp_set_seed(p, parse_seed(o.seed)));
  if (!o.profile.empty()) check(p, sp_set_profile(p, o.profile.c_str(), o.store.c_str(), "simple", nullptr));
  set_binding(p, o, mode);
  check(p, sp_compute(p));
}

// What the thread runtime reads and the environment cannot hold, in an
// anonymous file the program inherits (no file is left behind): named
// /proc/self/fd/N, which is the same file in the program after exec.
void export_task_data(sp_placement_t* p) {
  const char* data = sp_get_task_data(p, 0);
  if (!data) {
    if (*sp_error(p)) throw Error(sp_error(p));
    return;
  }
  int fd = memfd_create("slurm-pin-task", 0);
  size_t size = std::strlen(data), done = 0;
  while (fd >= 0 && done < size) {
    ssize_t n = write(fd, data + done, size - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    done += static_cast<size_t>(n);
  }
  if (fd < 0 || done < size) throw Error(std::string("cannot keep the task's places for its thread library: ") +
                                         std::strerror(errno));
  std::string path = "/proc/self/fd/" + std::to_string(fd);
  if (setenv(SP_ENV_TASK_FILE, path.c_str(), 1) != 0) throw Error("cannot set " SP_ENV_TASK_FILE);
}

// Binding variables inherited from whoever started this process: they
// describe no binding of this one.
void drop_inherited_binding() {
  static const char* const names[] = SP_ENV_BINDING_NAMES;
  for (const char* const* n = names; *n; ++n) unsetenv(*n);
}

// The task's environment, variable by variable, as the engine wants it.
void export_env(sp_placement_t* p) {
  drop_inherited_binding();
  export_task_data(p);
  for (int i = 0; i < sp_get_env_count(p); ++i) {
    const char* name = sp_get_env_name(p, i);
    const char* value = sp_get_env_value(p, 0, i, std::getenv(name));
    if (!value && *sp_error(p)) throw Error(sp_error(p));
    if (value ? setenv(name, value, 1) : unsetenv(name)) throw Error(std::string("cannot set ") + name);
  }
}

void describe(sp_placement_t* p, bool dryrun) {
  char host[256] = "";
  gethostname(host, sizeof host - 1);
  const char* what = sp_describe_task(p, 0);
  if (!what) throw Error(sp_error(p));
  std::fprintf(stderr, "slurm-pin: %s%s: %s\n", dryrun ? "dry run: " : "", host, what);
}

[[noreturn]] void exec(char** program) {
  std::fflush(nullptr);
  execvp(program[0], program);
  int e = errno;
  std::fprintf(stderr, "slurm-pin: error: cannot run %s: %s\n", program[0], std::strerror(e));
  std::exit(e == ENOENT ? 127 : 126);
}

}  // namespace

int run_command(int argc, char** argv) {
  Options o = parse(argc, argv);
  if (o.help) {
    std::fputs(kUsage, stdout);
    return 0;
  }
  if (o.strategy == "help") {
    std::fputs(sp_strategies_help(), stdout);
    return 0;
  }
  if (o.strategy == "none") {
    drop_inherited_binding();
    if (o.verbose) std::fprintf(stderr, "slurm-pin: strategy none: nothing is bound\n");
    exec(o.program);
  }
  sp_placement_t* p = sp_init();
  if (!p) throw Error("out of memory");
  compute(p, o);
  if (o.dryrun) {
    describe(p, true);
  } else {
    char err[1024];
    const char* path_env = std::getenv("PATH");
    if (binding_mode(o) != "env" &&
        sp_check_preloadable(o.program[0], path_env ? path_env : "", err, sizeof err) != 0)
      throw Error(err);
    check(p, sp_bind_task(p, 0));
    export_env(p);
    if (o.verbose) describe(p, false);
  }
  sp_finalize(p);
  exec(o.program);
}

}  // namespace slurmpin
