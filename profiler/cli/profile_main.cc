// SPDX-License-Identifier: GPL-2.0-or-later
// slurm-pin profile: runs a program under a profiler backend as a Slurm job
// step with the right CPU count, analyses the trace and writes the profile
// into the store (a new version) or a file.
#include <fcntl.h>
#include <getopt.h>
#include <sys/syscall.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <ext/stdio_filebuf.h>

#include <algorithm>
#include <chrono>
#include <climits>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include "self_dir.h"
#include "site_store.h"
#include "cli_options.h"
#include "input/args.hh"
#include "backends.hh"
#include "capture.hh"
#include "error.hh"
#include "file_sha256.hh"
#include "mpi_traffic.hh"
#include "user_data.h"
#include "program_path.h"
#include "preflight.hh"
#include "input/printable.hh"
#include "sharing/profile.hh"
#include "sharing.hh"
#include "source_lines.hh"
#include "sharing/store.hh"
#include "sums.hh"
#include "trace.hh"
#include "work_dir.hh"
#include "slurm_pin_frontend.h"

using namespace slurmpin;

namespace {

const char kUsage[] =
    "usage: slurm-pin profile --app NAME --threads N [--backend valgrind|compiler|pin]\n"
    "                         [--store DIR | --output FILE] [--cpus N] [--no-srun] [--srun-arg ARG]...\n"
    "                         [--keep-trace] [--workdir DIR] [--serial] [--baseline] -- PROGRAM [ARGS...]\n"
    "       slurm-pin profile --app NAME --from-trace FILE [--threads N] [--store DIR | --output FILE]\n"
    "       slurm-pin profile --mpi[=openmpi|mpich] --app NAME --ranks N [--threads N] [--backend valgrind|compiler]\n"
    "                         [--store DIR | --output FILE] [--srun-arg ARG]... [--baseline] -- PROGRAM [ARGS...]\n"
    "       slurm-pin profile --mpi[=openmpi|mpich] --app NAME --no-srun [--threads N] ... -- LAUNCHER ... PROGRAM ...\n"
    "       slurm-pin profile --rows DIR --app NAME --threads N [--store DIR | --output FILE]\n"
    "Runs PROGRAM with N threads under the backend (as `srun -n1 -cCPUS`, inside\n"
    "the current allocation if there is one) and writes its sharing profile.\n"
    "N is what the program is asked to run with (OMP_NUM_THREADS); the profile\n"
    "keeps every thread it creates, in creation order.\n"
    "--cpus sets the job's CPU count: by default N with the compiler backend and 1\n"
    "with valgrind, which runs one thread at a time.\n"
    "--serial keeps the serial part in the whole-run matrix (by default it is left\n"
    "out when the program has parallel regions).\n"
    "--workdir holds the backend's results while they are analysed (default: the\n"
    "job's $TMPDIR when the program runs on this node, else a hidden directory\n"
    "here, which the step must be able to reach); it is removed at the end, on\n"
    "errors and on SIGINT/SIGTERM/SIGHUP. --keep-trace also writes every thread's\n"
    "raw line counts there and keeps them; --from-trace analyses such a trace again.\n"
    "--baseline first runs PROGRAM natively (with --cpus, else N CPUs), so that the\n"
    "summary gives the profiler's slowdown.\n"
    "--mpi records what each MPI rank sends to each other one (bytes and messages,\n"
    "collectives by the model in docs/profiler.md) into the profile's rank section,\n"
    "running PROGRAM as `srun -nRANKS -cTHREADS` (THREADS default 1), or with\n"
    "--no-srun the launcher given (mpiexec, mpirun, srun). The MPI is the one\n"
    "PROGRAM is linked with, unless named. With --backend, each rank also runs under\n"
    "that backend and the profile holds its threads' sharing too, summed over the ranks.\n"
    "--rows reads the rows a recording job's ranks wrote (the site policy's\n"
    "explore.record, docs/autopilot.md) into a profile, by default in your own store\n"
    "(~/" USER_STORE_SUBDIR "), and removes them.\n";

struct Options {
  std::string app, backend = "valgrind", store, output, workdir, from_trace, mpi_library, rows;
  int threads = 0, cpus = 0, ranks = 0;
  bool srun = true, keep_trace = false, serial = false, baseline = false, mpi = false, backend_given = false;
  std::vector<std::string> srun_args, program;
};

// --mpi: the ranks' traffic alone, as a step of --ranks tasks (or the
// launcher given); each rank runs --threads threads, 1 by default.
void check_mpi_options(Options& o) {
  if (!o.rows.empty()) {
    // Rows a recording job's ranks wrote: nothing runs.
    if (!o.program.empty() || o.ranks || o.backend_given || !o.srun_args.empty() || o.baseline)
      throw UsageError("--rows reads what ranks already wrote: give no program, --ranks, --backend or --srun-arg");
    if (!o.threads) throw UsageError("--rows needs --threads N (each rank's threads when they ran)");
    return;
  }
  if (o.mpi_library != "" && o.mpi_library != "openmpi" && o.mpi_library != "mpich")
    throw UsageError("--mpi takes openmpi or mpich (or nothing: the MPI the program is linked with), not '" +
                     o.mpi_library.substr(0, 64) + "'");
  if (o.backend == "pin" || o.keep_trace || !o.from_trace.empty())
    throw UsageError("--mpi takes the valgrind or compiler backend for the ranks' threads (--backend pin, "
                     "--keep-trace and --from-trace go without --mpi)");
  if (o.srun && !o.ranks) throw UsageError("--mpi needs --ranks N (the job's MPI ranks), or --no-srun with a launcher");
  if (!o.srun && o.ranks)
    throw UsageError("--ranks goes with srun: with --no-srun the launcher on the command line sets the rank count");
  if (!o.threads) o.threads = 1;
}

// The caller's own store (common/user_data.h), made when missing: where
// recorded rows become a profile that steers only the caller's jobs.
std::string own_store() {
  char dir[PATH_MAX];
  if (user_data_make(geteuid(), USER_STORE_SUBDIR, dir, sizeof dir) == 0) return dir;
  if (!dir[0]) throw Error("cannot find your home directory, where your own profile store is: give --store or --output");
  throw Error(std::string("cannot make your own profile store ") + dir + ": " + std::strerror(errno));
}

Options parse(int argc, char** argv) {
  static const option longopts[] = {
      {"app", required_argument, nullptr, SP_OPT_APP},    {"threads", required_argument, nullptr, SP_OPT_THREADS},
      {"backend", required_argument, nullptr, 'b'}, {"store", required_argument, nullptr, SP_OPT_STORE},
      {"output", required_argument, nullptr, SP_OPT_OUTPUT}, {"no-srun", no_argument, nullptr, 'n'},
      {"srun-arg", required_argument, nullptr, 'S'}, {"keep-trace", no_argument, nullptr, 'k'},
      {"cpus", required_argument, nullptr, 'c'},   {"help", no_argument, nullptr, 'h'},
      {"workdir", required_argument, nullptr, 'w'}, {"from-trace", required_argument, nullptr, 'f'},
      {"serial", no_argument, nullptr, 'l'},       {"baseline", no_argument, nullptr, 'B'},
      {"mpi", optional_argument, nullptr, 'M'},    {"ranks", required_argument, nullptr, 'r'},
      {"rows", required_argument, nullptr, 'R'},   {nullptr, 0, nullptr, 0}};
  Options o;
  opterr = 0;
  int c;
  while ((c = getopt_long(argc, argv, "+h", longopts, nullptr)) != -1) {
    switch (c) {
      case SP_OPT_APP: o.app = optarg; break;
      case SP_OPT_THREADS: o.threads = static_cast<int>(parse_count("--threads", optarg, 1, 65536)); break;
      case 'c': o.cpus = static_cast<int>(parse_count("--cpus", optarg, 1, 65536)); break;
      case 'b': o.backend = optarg, o.backend_given = true; break;
      case 'M': o.mpi = true, o.mpi_library = optarg ? optarg : ""; break;
      case 'r': o.ranks = static_cast<int>(parse_count("--ranks", optarg, 1, 65536)); break;
      case 'R': o.rows = optarg, o.mpi = true; break;
      case SP_OPT_STORE: o.store = optarg; break;
      case SP_OPT_OUTPUT: o.output = optarg; break;
      case 'n': o.srun = false; break;
      case 'S': o.srun_args.push_back(optarg); break;
      case 'k': o.keep_trace = true; break;
      case 'w': o.workdir = optarg; break;
      case 'f': o.from_trace = optarg; break;
      case 'l': o.serial = true; break;
      case 'B': o.baseline = true; break;
      case 'h': std::fputs(kUsage, stdout); std::exit(0);
      default:
        throw UsageError(std::string("unknown or incomplete option '") + argv[optind - 1] + "' (see slurm-pin profile --help)");
    }
  }
  for (int i = optind; i < argc; ++i) o.program.push_back(argv[i]);
  if (o.app.empty()) throw UsageError("--app NAME is required (the name jobs will use with --pin-profile)");
  parse_profile_spec(o.app);  // validates the name
  if (o.app.find('@') != std::string::npos) throw Error("--app takes a name without @VERSION: versions are assigned");
  if (o.mpi) check_mpi_options(o);
  if (!o.threads && o.from_trace.empty())
    throw UsageError("--threads N is required (profile at the thread count the application runs with)");
  if (o.program.empty() && o.from_trace.empty() && o.rows.empty()) throw UsageError("no program to profile: put it after --");
  if (!o.output.empty() && !o.store.empty()) throw UsageError("give either --store or --output, not both");
  if (o.output.empty() && o.store.empty()) o.store = o.rows.empty() ? site_store() : own_store();
  return o;
}

// The program's directory; "." when it cannot be read (the searches below
// then fail with their own message).
std::string program_dir() {
  char buf[PATH_MAX];
  return self_dir(buf, sizeof buf) == 0 ? buf : ".";
}

// Where slurm-pin's backend pieces live: beside the binary in a build tree
// (build/bin -> build/lib), else where they were installed, relative to the
// binary (BINDIR -> LIBDIR/slurm-pin), so any install prefix works.
std::string lib_dir() {
  const char* env = std::getenv("SLURM_PIN_LIBDIR");
  if (env && *env) return env;
  struct stat st;
  std::string build_lib = program_dir() + "/../lib";
  if (stat((build_lib + "/valgrind/slurmpin-amd64-linux").c_str(), &st) == 0) return build_lib;
  return program_dir() + "/" + SLURM_PIN_BIN_TO_LIBDIR;
}

std::string which(const std::string& prog) {
  std::string found = find_executable(prog);
  if (!found.empty()) return found;
  if (prog.find('/') == std::string::npos) throw Error("program '" + prog + "' not found in PATH");
  throw Error("program " + prog + ": " + (access(prog.c_str(), X_OK) != 0 ? std::strerror(errno) : "not a regular file") +
              " (give the path of an executable)");
}

// The profile into --output, or into the store as a new version: where it went.
std::string write_profile(const Options& o, const Profile& p) {
  std::string text = format_profile(p);
  if (!o.output.empty()) {
    std::ofstream out(o.output);
    if (!(out << text)) throw Error(o.output + ": cannot write the profile");
    return o.output;
  }
  StoredProfile s = store_profile(o.store, o.app, p.threads, text);
  return s.path + " (" + o.app + "@" + std::to_string(s.version) + ")";
}

// This machine as counts per kind (the engine's fingerprint), which the
// profile records so a placement on another machine can say so.
std::string machine_fingerprint() {
  sp_placement_t* p = sp_init();
  std::string out(256, '\0');
  int n = p ? sp_topology_fingerprint(p, &out[0], out.size()) : -1;
  if (n >= static_cast<int>(out.size())) {  // rare: a machine of many kinds
    out.resize(static_cast<size_t>(n) + 1);
    n = sp_topology_fingerprint(p, &out[0], out.size());
  }
  out.resize(n >= 0 ? static_cast<size_t>(n) : 0);
  std::string why = p && n < 0 ? sp_error(p) : "out of memory";
  sp_finalize(p);
  if (n < 0) throw Error("cannot read this machine's topology: " + why);
  return out;
}

std::string utc_now() {
  char buf[32];
  std::time_t t = std::time(nullptr);
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return buf;
}

// The work directory (work_dir.hh) and the running step, for the signal
// handler: a profile interrupted by SIGINT, SIGTERM or SIGHUP stops its
// step and leaves nothing behind. Descriptors and a plain array: the
// handler may remove the files itself (unlinkat is async-signal-safe),
// relative to the directory it made, wherever its path now leads.
WorkDir g_dir;
int g_work_fd = -1, g_parent_fd = -1;
char g_work_name[NAME_MAX + 1];
volatile sig_atomic_t g_keep = 0, g_child = 0, g_signal = 0;

volatile sig_atomic_t g_rank_rows = 0;

// Every rank.N file (traffic) and sharing.PID file (thread sums) the ranks
// wrote into the work directory, with system calls alone (a signal handler
// may call it).
void remove_rank_rows() {
  int dir = openat(g_work_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir < 0) return;
  alignas(8) char buf[4096];
  long n;
  while ((n = syscall(SYS_getdents64, dir, buf, sizeof buf)) > 0)
    for (long at = 0; at < n;) {
      struct entry {
        uint64_t ino;
        int64_t off;
        unsigned short reclen;
        unsigned char type;
        char name[1];
      };
      const entry* e = reinterpret_cast<const entry*>(buf + at);
      if (std::strncmp(e->name, "rank.", 5) == 0 || std::strncmp(e->name, "sharing.", 8) == 0)
        unlinkat(dir, e->name, 0);
      at += e->reclen;
    }
  close(dir);
}

void remove_work() {
  if (g_work_fd < 0) return;
  if (g_rank_rows) remove_rank_rows();
  unlinkat(g_work_fd, "sharing", 0);
  if (g_keep) return;  // the trace stays, and its directory
  unlinkat(g_work_fd, "trace", 0);
  remove_work_dir(g_parent_fd, g_work_name, g_work_fd);
}

extern "C" void on_signal(int sig) {
  g_signal = sig;
  if (g_child > 0) {
    kill(g_child, sig);  // srun forwards it to the step; run() cleans up after it
    return;
  }
  remove_work();  // analysing or writing: stop now
  signal(sig, SIG_DFL);
  raise(sig);
}

void catch_signals() {
  struct sigaction sa {};
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) sigaction(sig, &sa, nullptr);
}

// After the step ended because of a signal: clean up, then die of it.
void die_of_signal() {
  remove_work();
  int sig = g_signal;
  signal(sig, SIG_DFL);
  raise(sig);
  _exit(128 + sig);
}

int run(const std::vector<std::string>& argv, const std::vector<std::string>& env) {
  pid_t pid = fork();
  if (pid < 0) throw Error(std::string("fork: ") + std::strerror(errno));
  if (pid == 0) {
    for (int sig : {SIGINT, SIGTERM, SIGHUP}) signal(sig, SIG_DFL);
    for (const auto& e : env) putenv(strdup(e.c_str()));
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    execvp(args[0], args.data());
    std::fprintf(stderr, "slurm-pin: error: cannot run %s: %s\n", args[0], std::strerror(errno));
    _exit(127);
  }
  g_child = pid;
  if (g_signal) kill(pid, g_signal);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  g_child = 0;
  if (g_signal) die_of_signal();
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

// The job's temporary directory when the program runs on this node (no
// srun, or a step of the job this command runs in), else the current
// directory, which a step on another node can reach only if it is shared.
std::string work_parent(const Options& o) {
  if (!o.workdir.empty()) return o.workdir;
  const char* tmp = std::getenv("TMPDIR");
  const char* nodes = std::getenv("SLURM_JOB_NUM_NODES");
  bool in_one_node_job =
      std::getenv("SLURM_JOB_ID") && std::getenv("SLURMD_NODENAME") && (!nodes || std::atoi(nodes) == 1);
  if (!o.srun || in_one_node_job) return tmp && *tmp ? tmp : "/tmp";
  return ".";
}

// CPUs per node of the partition the job would go to (sinfo), largest
// first; empty when sinfo cannot tell.
std::vector<int> node_cpus(const std::string& partition) {
  std::vector<std::string> argv = {"sinfo", "-h", "-o", "%c"};
  if (!partition.empty()) argv.insert(argv.end(), {"-p", partition});
  std::vector<int> out;
  std::string text = capture(argv);
  for (size_t i = 0; i < text.size();) {
    size_t j = text.find('\n', i);
    if (j == std::string::npos) j = text.size();
    std::string field = text.substr(i, j - i);
    if (!field.empty() && field.size() < 8 && field.find_first_not_of("0123456789+") == std::string::npos)
      out.push_back(std::atoi(field.c_str()));
    i = j + 1;
  }
  return out;
}

// The partition named among --srun-arg values (-p X, --partition=X), else "".
std::string partition_of(const std::vector<std::string>& args) {
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if ((a == "-p" || a == "--partition") && i + 1 < args.size()) return args[i + 1];
    if (a.rfind("--partition=", 0) == 0) return a.substr(12);
    if (a.rfind("-p", 0) == 0 && a.size() > 2) return a.substr(2);
  }
  return "";
}

std::string valgrind_version() {
  std::string v = capture({"valgrind", "--version"}, 64);
  size_t dash = v.find('-');
  return dash == std::string::npos ? "" : v.substr(dash + 1, v.find_first_of(" \n", dash) - dash - 1);
}

int cpus_requested(const Options& o) { return o.cpus ? o.cpus : o.backend == "valgrind" ? 1 : o.threads; }
int baseline_cpus(const Options& o) { return o.cpus ? o.cpus : o.threads; }

// A step of `cpus` CPUs per task fits a node of the current allocation, or
// of the partition the job would go to (nothing to check with --no-srun).
void check_step_fits(const Options& o, int cpus) {
  if (!o.srun) return;
  const char* on_node = std::getenv("SLURM_CPUS_ON_NODE");
  int in_job = std::getenv("SLURM_JOB_ID") && on_node ? std::atoi(on_node) : 0;
  std::string partition = partition_of(o.srun_args);
  check_cpus(cpus, in_job, in_job ? std::vector<int>() : node_cpus(partition), partition);
}

// Everything knowable before the run that would lose it afterwards.
void preflight(const Options& o, const std::string& program) {
  backend_command(o.backend, lib_dir(), "-", "-", o.threads, o.program);  // known and installed
  check_destination(o.store, o.output);
  check_binary(o.backend, program, o.backend == "valgrind" ? valgrind_version() : "");
  check_step_fits(o, o.baseline ? std::max(cpus_requested(o), baseline_cpus(o)) : cpus_requested(o));
}

// `command` with `env`, as a step of `cpus` CPUs unless --no-srun.
// `tasks` tasks (MPI ranks) and `extra` srun options before the user's.
std::vector<std::string> step(const Options& o, int cpus, std::vector<std::string>& env,
                              const std::vector<std::string>& command, int tasks = 1,
                              const std::vector<std::string>& extra = {}) {
  std::vector<std::string> argv;
  if (o.srun) {
    argv = {"srun", "-n" + std::to_string(tasks), "-c" + std::to_string(cpus), "--job-name=profile:" + o.app};
    argv.insert(argv.end(), extra.begin(), extra.end());
    argv.insert(argv.end(), o.srun_args.begin(), o.srun_args.end());
    // srun passes our environment to the step: the backend's variables too.
    argv.push_back("env");
    argv.insert(argv.end(), env.begin(), env.end());
    env.clear();
  }
  argv.insert(argv.end(), command.begin(), command.end());
  return argv;
}

double seconds_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

// The program alone, as it will be profiled: its wall time, for the slowdown.
double run_native(const Options& o) {
  std::vector<std::string> env = {"OMP_NUM_THREADS=" + std::to_string(o.threads)};
  std::vector<std::string> argv = step(o, baseline_cpus(o), env, o.program);
  auto t = std::chrono::steady_clock::now();
  int rc = run(argv, env);
  if (rc != 0) throw Error("the program exited with status " + std::to_string(rc) + " when run natively (--baseline)");
  return seconds_since(t);
}

// `dir` as the work directory, whose files remove_work() then removes (on
// errors and signals too).
const WorkDir& adopt_work(WorkDir dir) {
  g_dir = std::move(dir);
  std::snprintf(g_work_name, sizeof g_work_name, "%s", g_dir.name.c_str());
  g_parent_fd = g_dir.parent;
  g_work_fd = g_dir.fd;
  return g_dir;
}

// A new work directory (adopt_work).
const WorkDir& start_work(const Options& o) { return adopt_work(make_work_dir(work_parent(o))); }

// What a backend wrote as `name` in the work directory, read through its
// descriptor by `parse` (parse_sums, parse_trace).
template <class T>
T parse_work_file(const WorkDir& w, const std::string& name, T (*parse)(std::istream&, const std::string&)) {
  std::string shown = w.path + "/" + name;
  Fd f = open_work_file(w, name);
  if (f.fd < 0)
    throw Error(shown + ": no such file: the profiling run ended without writing its results (the program, or its "
                "node, was killed before it ended); run it again");
  __gnu_cxx::stdio_filebuf<char> buf(f.fd, std::ios::in);  // closes it
  f.fd = -1;
  std::istream in(&buf);
  return parse(in, shown);
}

// The sums of the program itself when a wrapper (a script, env, time) ran
// it: of every process that ran under the backend (each wrote
// sharing.PID), the one that started the most threads, then made the most
// accesses; a note says so when several started threads.
Sums program_sums(const WorkDir& w) {
  std::vector<std::string> files = work_names(w, "sharing.");
  if (files.empty()) return parse_work_file(w, "sharing", parse_sums);  // names the missing file
  Sums best;
  double best_accesses = -1;
  int threaded = 0;
  for (const std::string& f : files) {
    Sums s = parse_work_file(w, f, parse_sums);
    double accesses = 0;
    for (double a : s.thread_accesses) accesses += a;
    threaded += s.thread_accesses.size() > 1;
    if (best_accesses < 0 || s.thread_accesses.size() > best.thread_accesses.size() ||
        (s.thread_accesses.size() == best.thread_accesses.size() && accesses > best_accesses))
      best = std::move(s), best_accesses = accesses;
  }
  if (threaded > 1)
    std::fprintf(stderr, "slurm-pin: note: %d processes started threads; the profile is of the one that started the "
                 "most (%zu)\n", threaded, best.thread_accesses.size());
  return best;
}

// Runs the program under the backend; returns its sums.
Sums run_backend(const Options& o, double& took) {
  const WorkDir& w = start_work(o);
  // valgrind follows the program through wrappers: a file per process.
  bool per_process = o.backend == "valgrind";
  g_rank_rows = per_process;  // removed with the work directory
  std::string work = w.path, sums = work + (per_process ? "/sharing.%p" : "/sharing");
  bool want_trace = o.keep_trace || o.backend == "pin";
  std::string trace = want_trace ? work + "/trace" : "";
  g_keep = o.keep_trace;
  BackendRun b = backend_command(o.backend, lib_dir(), sums, trace, o.threads, o.program);
  // Into the programs a wrapper execs or starts too (not for MPI ranks,
  // whose every process is a rank): each writes sharing.PID.
  if (per_process) b.argv.insert(b.argv.begin() + 2, "--trace-children=yes");
  std::vector<std::string> argv = step(o, cpus_requested(o), b.env, b.argv);
  auto t = std::chrono::steady_clock::now();
  int rc = run(argv, b.env);
  took = seconds_since(t);
  if (rc != 0) {
    // srun ends with a failure status when the step's node is lost (Slurm
    // 25.05 and later; 0 before): no results then means the run ended
    // early, whichever ended it.
    bool wrote = per_process ? !work_names(w, "sharing.").empty() : work_file_exists(w, b.writes_sums ? "sharing" : "trace");
    remove_work();
    std::string status = std::to_string(rc);
    throw Error(wrote ? "the profiled program exited with status " + status +
                            (o.keep_trace ? ": whatever it wrote is in " + work : "")
                      : "the profiling run ended without writing its results (status " + status + ": the program "
                        "failed, or it or its node was killed, before it ended; see the lines above); run it again");
  }
  Sums s = per_process ? program_sums(w)
           : b.writes_sums ? parse_work_file(w, "sharing", parse_sums)
                           : sum_trace(parse_work_file(w, "trace", parse_trace));
  if (o.keep_trace) std::fprintf(stderr, "trace kept in %s\n", trace.c_str());
  return s;
}

// `command` with `env` as a step of --ranks tasks of --threads CPUs each
// (srun's MPI plugin for the program's MPI, unless --srun-arg names one),
// or as given with --no-srun.
std::vector<std::string> mpi_step(const Options& o, const std::string& mpi, std::vector<std::string>& env,
                                  const std::vector<std::string>& command, int cpus) {
  bool plugin_given = std::any_of(o.srun_args.begin(), o.srun_args.end(),
                                  [](const std::string& a) { return a.rfind("--mpi", 0) == 0; });
  std::vector<std::string> plugin;
  if (!plugin_given) plugin.push_back(mpi == "openmpi" ? "--mpi=pmix" : "--mpi=pmi2");
  return step(o, cpus, env, command, o.ranks, plugin);
}

std::string megabytes(double bytes) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g MB", bytes / 1e6);
  return buf;
}

// What the summary says of the traffic: its sum, the collectives' share,
// the heaviest pair.
std::string traffic_summary(const Profile& p, const std::vector<std::string>& hosts) {
  SharingMatrix m = p.rank_traffic("the profile");
  double messages = 0;  // dense rows up to 256 ranks, edges beyond
  for (const auto& row : p.rank_matrices.count("messages") ? p.rank_matrices.at("messages") : Rows())
    for (double v : row) messages += v;
  for (const Edge& e : p.rank_edges.count("messages") ? p.rank_edges.at("messages") : EdgeList()) messages += e.w;
  int a = 0, b = 0;
  double heaviest = -1;
  for (int i = 0; i < m.size(); ++i)
    for (int j = i + 1; j < m.size(); ++j)
      if (m(i, j) > heaviest) heaviest = m(i, j), a = i, b = j;
  std::set<std::string> nodes(hosts.begin(), hosts.end());
  char line[256];
  std::snprintf(line, sizeof line, "  %s between ranks in %.0f messages, %.3g%% by collectives; heaviest pair %d-%d (%s); "
                "ranks on %zu host%s",
                megabytes(m.total()).c_str(), messages, 100 * p.rank_collective_share, a, b,
                megabytes(std::max(heaviest, 0.0)).c_str(), nodes.size(), nodes.size() == 1 ? "" : "s");
  return line;
}

// With --backend: the ranks' threads, each rank's sums merged (thread i of
// every rank adds up), analysed as one program's.
Profile thread_part(const Options& o, const WorkDir& work) {
  std::vector<std::string> files = work_names(work, "sharing.");
  if (files.empty()) throw Error("no rank wrote its thread sums into " + work.path + " (see the lines above)");
  std::vector<Sums> parts;
  for (const std::string& f : files) parts.push_back(parse_work_file(work, f, parse_sums));
  Sums sums = merge_sums(std::move(parts));
  resolve_sources(sums.header);
  AnalysisInput in;
  in.threads = 0;  // compared below, once the MPI library's own threads are left out
  in.exclude_serial = !o.serial;
  in.tool = sums.header.tool;  // the rest of what the profile says of its run: profile_mpi's
  Analysis a = analyze_sums(sums, in);
  Profile& p = a.profile;
  std::vector<std::string> dropped = drop_mpi_runtime_threads(p);
  if (!dropped.empty()) {
    std::string starts;
    for (const std::string& d : dropped) starts += (starts.empty() ? "" : ", ") + d;
    a.warnings.push_back("left out " + std::to_string(dropped.size()) + " thread" + (dropped.size() == 1 ? "" : "s") +
                         " the MPI library started in each rank (" + starts + ")");
  }
  if (p.threads != o.threads)
    a.warnings.push_back("each rank was asked for " + std::to_string(o.threads) + " threads and created " +
                         std::to_string(p.threads) + ": the profile keeps all " + std::to_string(p.threads) +
                         " (run the job with that many CPUs per task to pin every one)");
  for (const std::string& w : a.warnings) std::fprintf(stderr, "slurm-pin: warning: %s\n", w.c_str());
  return std::move(p);
}

// --rows: what a recording job's ranks wrote (explore.record, written
// by the ranks into the caller's recordings), read into a profile; the
// rows are removed once it is written.
int profile_rows(const Options& o) {
  check_destination(o.store, o.output);
  const WorkDir& rows = adopt_work(open_work_dir(o.rows));
  Profile p;
  std::vector<std::string> hosts;
  read_rank_rows(rows, p, &hosts);
  p.threads = o.threads;
  p.date = utc_now();
  p.topology = machine_fingerprint();
  p.application = o.app;
  p.binary_sha256 = "-";
  p.tool = std::string("mpi-traffic (slurm-pin ") + SLURM_PIN_VERSION + ", recorded by a job's ranks)";
  std::string where_to = write_profile(o, p);
  g_rank_rows = 1;
  remove_work();
  std::fprintf(stderr, "profile of %s with %d ranks of %d thread%s: %s\n%s\n", o.app.c_str(), p.ranks, p.threads,
               p.threads == 1 ? "" : "s", where_to.c_str(), traffic_summary(p, hosts).c_str());
  return 0;
}

int profile_mpi(const Options& o) {
  if (!o.rows.empty()) return profile_rows(o);
  catch_signals();
  std::string program;
  size_t word = 0;
  std::string mpi = mpi_of_command(o.program, o.mpi_library, &program, &word);
  std::string library = mpi_library_path(lib_dir(), mpi);
  check_destination(o.store, o.output);
  if (o.backend_given) check_binary(o.backend, program, o.backend == "valgrind" ? valgrind_version() : "");
  int cpus = o.cpus ? o.cpus : o.backend_given && o.backend == "valgrind" ? 1 : o.threads;
  check_step_fits(o, cpus);
  auto started = std::chrono::steady_clock::now();
  std::vector<std::string> thread_env = {"OMP_NUM_THREADS=" + std::to_string(o.threads)};
  double native = 0, profiled = 0;
  if (o.baseline) {
    std::vector<std::string> env = thread_env;
    std::vector<std::string> argv = mpi_step(o, mpi, env, o.program, o.cpus ? o.cpus : o.threads);
    auto t = std::chrono::steady_clock::now();
    int rc = run(argv, env);
    if (rc != 0) throw Error("the program exited with status " + std::to_string(rc) + " when run natively (--baseline)");
    native = seconds_since(t);
  }
  const WorkDir& work = start_work(o);
  g_rank_rows = 1;
  std::vector<std::string> env = mpi_record_env(library, work.path), command = o.program;
  env.insert(env.end(), thread_env.begin(), thread_env.end());
  if (o.backend_given) {
    // Each rank under the backend, its sums in a file of its own (%p: its
    // process id): the backend's command goes right before the program.
    BackendRun b = backend_command(o.backend, lib_dir(), work.path + "/sharing.%p", "", o.threads, {});
    env.insert(env.end(), b.env.begin(), b.env.end());
    command.insert(command.begin() + static_cast<long>(word), b.argv.begin(), b.argv.end());
  }
  std::vector<std::string> argv = mpi_step(o, mpi, env, command, cpus);
  auto t = std::chrono::steady_clock::now();
  int rc = run(argv, env);
  profiled = seconds_since(t);
  if (rc != 0) {
    remove_work();
    throw Error("the profiled program exited with status " + std::to_string(rc) + " (see the lines above)");
  }
  Profile p;
  std::vector<std::string> hosts;
  try {
    if (o.backend_given) p = thread_part(o, work);
    read_rank_rows(work, p, &hosts);
  } catch (...) {
    remove_work();
    throw;
  }
  remove_work();
  std::string traffic = std::string("mpi-traffic ") + (mpi == "openmpi" ? "Open MPI" : "MPICH");
  if (!o.backend_given) p.threads = o.threads;
  p.date = utc_now();
  p.topology = machine_fingerprint();
  p.application = o.app;
  p.binary_sha256 = file_sha256(program);
  p.tool = (o.backend_given ? p.tool + ", " : "") + traffic + " (slurm-pin " + SLURM_PIN_VERSION + ", backend " +
           (o.backend_given ? o.backend + " and " : "") + "mpi)";
  std::string where_to = write_profile(o, p);
  std::fprintf(stderr, "profile of %s with %d ranks of %d thread%s: %s\n%s\n", o.app.c_str(), p.ranks, p.threads,
              p.threads == 1 ? "" : "s", where_to.c_str(), traffic_summary(p, hosts).c_str());
  if (o.backend_given)
    std::fprintf(stderr, "  threads summed over the ranks: DRR %.2f%% (%s sharing), %zu parallel region%s\n", p.drr,
                p.drr_class.c_str(), p.regions.size(), p.regions.size() == 1 ? "" : "s");
  double all = seconds_since(started) - native;
  if (native > 0)
    std::fprintf(stderr, "  %.1f s in all, the program %.2f s recording its traffic against %.2f s natively: %.2fx\n", all,
                profiled, native, profiled / native);
  else
    std::fprintf(stderr, "  %.1f s in all, the program %.2f s recording its traffic (--baseline gives the slowdown)\n", all,
                profiled);
  return 0;
}

int profile(const Options& o) {
  if (o.mpi) return profile_mpi(o);
  catch_signals();
  std::string program = o.program.empty() ? "" : which(o.program[0]);
  if (o.from_trace.empty()) preflight(o, program);
  else check_destination(o.store, o.output);
  auto started = std::chrono::steady_clock::now();
  double native = o.baseline && o.from_trace.empty() ? run_native(o) : 0, profiled = 0;
  Sums sums = o.from_trace.empty() ? run_backend(o, profiled) : sum_trace(read_trace(o.from_trace));
  resolve_sources(sums.header);  // a kept trace holds the same code addresses as the sums
  AnalysisInput in;
  in.threads = o.threads;
  in.exclude_serial = !o.serial;
  in.application = o.app;
  in.binary_sha256 = program.empty() ? "-" : file_sha256(program);
  in.date = utc_now();
  in.topology = machine_fingerprint();
  in.tool = sums.header.tool + " (slurm-pin " + SLURM_PIN_VERSION + ", backend " +
            (o.from_trace.empty() ? o.backend : "trace " + o.from_trace) + ")";
  Analysis a = analyze_sums(sums, in);
  if (o.from_trace.empty() && o.backend == "compiler")
    a.warnings.push_back("the compiler backend counts only code built with -fsanitize=thread: sharing through "
                         "other libraries (libc, zlib, the OpenMP runtime) or data the kernel copies (read, write) "
                         "is not seen; --backend valgrind sees both");
  const Profile& p = a.profile;
  std::string where_to = write_profile(o, p);
  remove_work();
  for (const std::string& w : a.warnings) std::fprintf(stderr, "slurm-pin: warning: %s\n", w.c_str());
  // The summary goes with the other messages: standard output is the program's
  // (`pigz -c` writes its stream there).
  std::fprintf(stderr, "profile of %s with %d threads: %s\n  DRR %.2f%% (%s sharing), %zu parallel region%s, working set %.0f lines"
              "%s\n",
              o.app.c_str(), p.threads, where_to.c_str(), p.drr, p.drr_class.c_str(), p.regions.size(),
              p.regions.size() == 1 ? "" : "s", p.working_set_lines,
              a.serial_excluded ? ", serial part left out of the whole-run matrix (--serial keeps it)" : "");
  if (o.from_trace.empty()) {
    double all = seconds_since(started) - native;
    if (native > 0)
      std::fprintf(stderr, "  %.1f s in all, the program %.1f s under the %s backend against %.2f s natively: %.1fx\n", all,
                  profiled, o.backend.c_str(), native, profiled / native);
    else
      std::fprintf(stderr, "  %.1f s in all, the program %.1f s under the %s backend (--baseline gives the slowdown)\n", all,
                  profiled, o.backend.c_str());
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return profile(parse(argc, argv));
  } catch (const std::exception& e) {
    remove_work();  // an analysis or store error leaves no work directory
    std::fprintf(stderr, "slurm-pin: error: %s\n", printable(e.what()).c_str());
    return dynamic_cast<const UsageError*>(&e) ? 2 : 1;
  }
}
