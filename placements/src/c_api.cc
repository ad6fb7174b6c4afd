// SPDX-License-Identifier: GPL-2.0-or-later
// The C face of the engine: an opaque handle holding a Request and its Result.
#include <algorithm>
#include <cerrno>
#include <cstring>
#include <exception>
#include <iterator>
#include <memory>
#include <string>
#include <vector>

#include "input/args.hh"
#include "topology/cpulist.hh"
#include "topology/cpu_set.hh"
#include "topology/devices.hh"
#include "topology/domain_names.hh"
#include "engine.hh"
#include "error.hh"
#include "placement_cache.hh"
#include "sharing/matrix_file.hh"
#include "topology/node_topology.hh"
#include "strategies/placement_file.hh"
#include "strategies/score.hh"
#include "binding/preloadable.hh"
#include "strategies/rank_nodes.hh"
#include "input/printable.hh"
#include "input/user_file.hh"
#include "binding/process_binding.hh"
#include "sharing/profile.hh"
#include "sharing/store.hh"
#include "binding/task_binding.hh"
#include "binding/thread_library.hh"
#include "slurm_pin_frontend.h"

using namespace slurmpin;

struct sp_placement {
  Request request;
  Result result;
  bool computed = false;
  // What the const getters keep between calls (a caller asks for a
  // length, then for the text): the last error, one task's environment and
  // task data, the environment's names.
  mutable std::string error;
  bool restrict_to_process = false;
  BindOptions bind;
  mutable int env_task = -1;
  mutable std::vector<EnvVar> env;
  mutable std::vector<std::string> env_names;  // the same for every task
  mutable bool names_valid = false;
  mutable int data_task = -1;
  mutable std::string task_data;
  std::string cache_name, cache_data;  // sp_get_cache_entry's, made when first asked
  std::unique_ptr<DomainNames> domains;  // of result.tree, made when first asked
};

namespace {

template <typename F>
int guarded(const sp_placement_t* p, F&& f) {
  if (!p) return -1;
  try {
    f();
    p->error.clear();
    return 0;
  } catch (const std::bad_alloc&) {
    p->error = "out of memory";  // what a caller under a memory limit recognises (sp_error)
    errno = ENOMEM;
    return -1;
  } catch (const std::exception& e) {
    p->error = printable(e.what());  // front ends print it to users' terminals and logs
    return -1;
  }
}

int copy_out(const std::string& s, char* buf, size_t len) {
  if (buf && len) {
    size_t n = std::min(len - 1, s.size());
    std::memcpy(buf, s.data(), n);
    buf[n] = '\0';
  }
  return static_cast<int>(s.size());
}

// A task of the computed placement, or nullptr: what the per-task getters take.
// The task a getter asks for, or NULL with the reason in sp_error.
const TaskPlace* task_at(const sp_placement_t* p, int task) {
  if (!p) return nullptr;
  if (!p->computed) {
    p->error = "no placement yet: call sp_compute first";
    return nullptr;
  }
  if (task < 0 || task >= static_cast<int>(p->result.tasks.size())) {
    p->error = "no task " + std::to_string(task) + ": the placement has " + std::to_string(p->result.tasks.size()) +
               " (0 to " + std::to_string(p->result.tasks.size() - 1) + ")";
    return nullptr;
  }
  return &p->result.tasks[task];
}

const ThreadPlace* thread_at(const sp_placement_t* p, int task, int thread) {
  const TaskPlace* t = task_at(p, task);
  if (!t) return nullptr;
  const auto& th = t->threads;
  if (thread < 0 || thread >= static_cast<int>(th.size())) return nullptr;
  return &th[thread];
}

template <typename F>
int checked(char* err, size_t len, F&& f) {
  try {
    f();
    return 0;
  } catch (const std::bad_alloc&) {
    copy_out("out of memory", err, len);
    errno = ENOMEM;
    return -1;
  } catch (const std::exception& e) {
    copy_out(printable(e.what()), err, len);
    return -1;
  }
}

void require(bool ok, const std::string& message) {
  if (!ok) throw Error(message);
}

// A list of GPUs on one node (a job's variable, the indices it was given):
// bounded by any machine's GPU count.
void require_gpu_list(const char* value, const std::string& what) {
  require(!value || std::strlen(value) <= 4096, what + " is longer than 4096 characters");
}

// A task of the computed placement: what the per-task calls take.
void require_task(const sp_placement_t* p, int task) {
  require(task_at(p, task) != nullptr,
          "no task " + std::to_string(task) + " in this placement");
}

// The allowed CPUs, within those the calling process may use.
CpuSet within_process(const CpuSet& allowed) {
  CpuSet mine = process_cpus();
  if (allowed.empty()) return mine;
  CpuSet both = allowed & mine;
  if (both.empty())
    throw Error("none of the CPUs " + allowed.list() + " is among those this process may use (" + mine.list() + ")");
  return both;
}

// A computed placement as the placement file that applies it again.
std::string placement_file_of(const Result& r, const std::string& strategy) {
  PlacementFile f;
  f.topology = r.fingerprint;
  f.strategy = strategy;
  auto cpus_of = [](const std::vector<TaskPlace>& tasks) {
    TaskCpus out;
    for (const auto& t : tasks) {
      out.emplace_back();
      for (const auto& th : t.threads) out.back().push_back(ranges_of(th.cpus.get()));
    }
    return out;
  };
  f.tasks = cpus_of(r.tasks);
  for (const auto& region : r.regions) f.regions.emplace_back(region.name, cpus_of(region.tasks));
  return format_placement_file(f);
}

// The environment of `task`, computed once per task in turn.
const std::vector<EnvVar>* env_of(const sp_placement_t* p, int task) {
  if (!task_at(p, task)) return nullptr;
  if (p->env_task != task) {
    p->env = task_environment(p->result, static_cast<size_t>(task), p->bind);
    p->env_task = task;
  }
  return &p->env;
}

// A binding option changed: environments are computed again.
template <typename F>
int bind_option(sp_placement_t* p, F&& f) {
  return guarded(p, [&] {
    f();
    p->env_task = -1;
    p->data_task = -1;
    p->names_valid = false;
  });
}

}  // namespace

extern "C" {

sp_placement_t* sp_init(void) {
  try {
    return new sp_placement();
  } catch (...) {
    return nullptr;
  }
}

void sp_finalize(sp_placement_t* p) { delete p; }

const char* sp_error(const sp_placement_t* p) { return p ? p->error.c_str() : "no placement handle"; }

int sp_set_topology(sp_placement_t* p, const char* source) {
  return guarded(p, [&] {
    p->request.topology.source = source ? source : "this";
    p->request.topology.given = nullptr;
  });
}

int sp_set_hwloc_topology(sp_placement_t* p, hwloc_topology_t topology) {
  return guarded(p, [&] {
    p->request.topology.given = topology;
    if (!topology) p->request.topology.source = "this";
  });
}

int sp_set_topology_cache(sp_placement_t* p, const char* path) {
  return guarded(p, [&] { p->request.topology.cache = path ? path : ""; });
}

int sp_set_restrict(sp_placement_t* p, const char* cpulist) {
  return guarded(p, [&] {
    p->request.topology.allowed = cpulist ? CpuSet::of(parse_cpu_ranges(cpulist, "allowed CPUs")) : CpuSet();
  });
}

int sp_set_granularity(sp_placement_t* p, const char* g) {
  return guarded(p, [&] { set_granularity(p->request, g ? g : ""); });
}

int sp_set_strategy(sp_placement_t* p, const char* name) {
  return guarded(p, [&] {
    p->request.strategy = parse_strategy(name ? name : "", &p->request.placement_path);
    p->bind.strategy = name;
    p->env_task = -1;
    p->data_task = -1;
  });
}

int sp_set_tasks(sp_placement_t* p, int ntasks) {
  return guarded(p, [&] {
    require(ntasks >= 0, "task count must be positive");
    p->request.tasks = ntasks;
  });
}

int sp_set_task_layout(sp_placement_t* p, const char* layout) {
  return guarded(p, [&] {
    std::string s = layout ? layout : "";
    require(s == "compact" || s == "scatter", "unknown task layout '" + s + "': use compact or scatter");
    p->request.task_layout = s == "compact" ? TaskLayout::kCompact : TaskLayout::kScatter;
  });
}

int sp_set_threads(sp_placement_t* p, int nthreads) {
  return guarded(p, [&] {
    require(nthreads >= 0 && nthreads <= 65536, "thread count must be from 1 to 65536");
    p->request.threads = nthreads;
  });
}

int sp_set_oversubscribe(sp_placement_t* p, int allow) {
  return guarded(p, [&] { p->request.oversubscribe = allow != 0; });
}

int sp_set_smt(sp_placement_t* p, int k) {
  return guarded(p, [&] {
    require(k >= 0 && k <= kMaxSmt, "smt must be from 1 to " + std::to_string(kMaxSmt) + " hardware threads per core");
    p->request.topology.smt = k;
  });
}

int sp_set_gpu_locality(sp_placement_t* p, const char* mode) {
  return guarded(p, [&] { set_gpu(p->request, mode ? mode : ""); });
}

int sp_set_job_gpu_variable(sp_placement_t* p, const char* name, const char* value) {
  return guarded(p, [&] {
    std::string n = name ? name : "";
    bool known = false;
    for (const char* const* k = kGpuEnvNames; *k; ++k) known = known || n == *k;
    require(known, "not a GPU variable: " + n.substr(0, 64));
    require_gpu_list(value, n);
    if (value) p->request.gpu_env[n] = value;
    else p->request.gpu_env.erase(n);
  });
}

const char* const* sp_job_gpu_variable_names(void) { return kGpuEnvNames; }

int sp_set_job_gpus(sp_placement_t* p, const char* indices) {
  return guarded(p, [&] {
    require_gpu_list(indices, "the list of the job's GPUs");
    p->request.gpu_indices = indices ? indices : "";
  });
}

int sp_set_seed(sp_placement_t* p, uint64_t seed) {
  return guarded(p, [&] { p->request.seed = seed; });
}

// A caller's dense n x n rows, checked: `what` names the matrix in errors.
static SharingMatrix checked_dense(const double* rows, int n, const std::string& what) {
  require(rows && n > 0, "empty " + what);
  for (size_t k = 0; k < static_cast<size_t>(n) * n; ++k)
    require(rows[k] >= 0 && rows[k] <= kMaxWeight, what + " entries must be non-negative finite numbers");
  return SharingMatrix::from_dense(rows, n);
}

int sp_set_edges(sp_placement_t* p, int n, size_t nedges, const int* from, const int* to,
                 const double* weight) {
  return guarded(p, [&] {
    require(n > 0 && n <= kMaxEdgeThreads,
            "an edge list takes 1 to " + std::to_string(kMaxEdgeThreads) + " threads");
    require(nedges == 0 || (from && to && weight), "edge list arrays missing");
    std::vector<Edge> edges;
    edges.reserve(nedges);
    for (size_t k = 0; k < nedges; ++k) {
      require(from[k] >= 0 && from[k] < n && to[k] >= 0 && to[k] < n,
              "edge " + std::to_string(k) + " names a thread outside 0.." + std::to_string(n - 1));
      require(weight[k] >= 0 && weight[k] <= kMaxWeight,
              "edge weights must be non-negative finite numbers");
      edges.push_back({from[k], to[k], weight[k]});
    }
    p->request.matrix = SharingMatrix::from_edges(n, std::move(edges));
    p->request.has_matrix = true;
    p->request.matrix_source = "the edge list";
  });
}

int sp_load_matrix(sp_placement_t* p, const char* path) {
  return guarded(p, [&] {
    p->request.matrix = read_matrix_file(path ? path : "");
    p->request.has_matrix = true;
    p->request.matrix_source = std::string("matrix ") + path;
  });
}

// The ranks' traffic in a matrix file, or in a profile's rank section
// (slurm-pin profile --mpi): the file is read once, its first line decides.
static SharingMatrix read_task_traffic(const std::string& path) {
  std::string text = read_user_file(path, kMaxProfileBytes);
  size_t start = text.find_first_not_of(" \t\r\n");
  if (start != std::string::npos && text.compare(start, 17, "slurm-pin-profile") == 0)
    return parse_profile(text, path).rank_traffic(path);
  return parse_matrix_text(text, path);
}

int sp_load_task_matrix(sp_placement_t* p, const char* path) {
  return guarded(p, [&] {
    p->request.task_matrix = read_task_traffic(path ? path : "");
    p->request.has_task_matrix = true;
    p->request.task_matrix_source = std::string("task matrix ") + (path ? path : "");
  });
}

int sp_set_task_matrix(sp_placement_t* p, const double* rows, int n) {
  return guarded(p, [&] {
    p->request.task_matrix = checked_dense(rows, n, "task matrix");
    p->request.has_task_matrix = true;
    p->request.task_matrix_source = "the task matrix";
  });
}

int sp_set_task_ranks(sp_placement_t* p, const int* ranks, int n, int job_tasks) {
  return guarded(p, [&] {
    if (n < 0 || n > (1 << 16) || job_tasks < n || job_tasks > (1 << 24) || (n && !ranks))
      throw Error("task ranks: " + std::to_string(n) + " ranks of a job of " + std::to_string(job_tasks) +
                  " tasks (give each local task's rank, below the job's task count)");
    for (int i = 0; i < n; ++i)
      if (ranks[i] < 0 || ranks[i] >= job_tasks)
        throw Error("task ranks: rank " + std::to_string(ranks[i]) + " outside the job's " +
                    std::to_string(job_tasks) + " tasks");
    p->request.task_ranks.assign(ranks, ranks + n);
    p->request.job_tasks = job_tasks;
  });
}

int sp_split_ranks(const char* matrix_path, int nodes, uint64_t seed, int* node_of, size_t len,
                   struct sp_rank_traffic* traffic, char* err, size_t errlen) {
  int ranks = -1;
  if (checked(err, errlen, [&] {
        RankNodes split = ranks_to_nodes(read_task_traffic(matrix_path ? matrix_path : ""), nodes, seed);
        ranks = static_cast<int>(split.node_of.size());
        if (node_of && static_cast<size_t>(ranks) <= len) std::copy(split.node_of.begin(), split.node_of.end(), node_of);
        if (traffic) *traffic = {split.total, split.crossing, split.block, split.cyclic};
      }) != 0)
    return -1;
  return ranks;
}

int sp_set_profile(sp_placement_t* p, const char* spec, const char* store, const char* model,
                   const char* region) {
  return guarded(p, [&] {
    Request& r = p->request;
    r.profile_spec = spec ? spec : "";
    parse_profile_spec(r.profile_spec);
    r.profile_store = store ? store : "";
    r.profile_model = model && *model ? model : "simple";
    require(r.profile_model == "simple" || r.profile_model == "rw",
            "unknown model '" + r.profile_model + "': use simple or rw");
    r.profile_region = region ? region : "";
  });
}

int sp_set_phases(sp_placement_t* p, int on, double merge) {
  return guarded(p, [&] {
    require(merge >= 0 && merge <= 1, "the phase merge threshold is a share of threads from 0 to 1");
    p->request.phases = on != 0;
    p->request.phase_merge = merge;
  });
}

int sp_set_restrict_to_process(sp_placement_t* p, int on) {
  return guarded(p, [&] { p->restrict_to_process = on != 0; });
}

int sp_set_budget(sp_placement_t* p, size_t max_file_bytes, double max_seconds) {
  return guarded(p, [&] {
    require(max_seconds >= 0 && max_seconds <= 86400, "the time budget is from 0 to 86400 seconds");
    p->request.max_file_bytes = max_file_bytes;
    p->request.max_seconds = max_seconds;
  });
}

int sp_set_placement_cache(sp_placement_t* p, const char* dir) {
  return guarded(p, [&] {
    std::string d = dir ? dir : "";
    require(d.empty() || d[0] == '/', "the placement cache is an absolute path (a directory only root can change)");
    require(d.size() < 4096, "the placement cache's path is longer than 4095 characters");
    p->request.cache_dir = d;
  });
}

int sp_get_cached(const sp_placement_t* p) { return p && p->computed ? (p->result.from_cache ? 1 : 0) : -1; }

int sp_get_cache_entry(sp_placement_t* p, const char** name, const char** data, size_t* size) {
  if (!p || !p->computed || !name || !data || !size) return -1;
  if (p->result.cache_key.empty()) return 0;
  if (p->cache_name.empty()) {
    p->cache_data = format_cached_placement(p->result);
    if (p->cache_data.empty()) return 0;
    p->cache_name = placement_cache_name(p->result.cache_key);
  }
  *name = p->cache_name.c_str();
  *data = p->cache_data.data();
  *size = p->cache_data.size();
  return 1;
}

int sp_compute(sp_placement_t* p) {
  return guarded(p, [&] {
    p->computed = false;
    p->cache_name.clear();
    p->cache_data.clear();
    p->env_task = -1;
    p->data_task = -1;
    p->names_valid = false;
    Request r = p->request;
    if (p->restrict_to_process) r.topology.allowed = within_process(r.topology.allowed);
    if (p->bind.threads != ThreadMode::kEnv)
      require(!p->bind.thread_library.empty(),
              std::string("thread binding ") + thread_mode_name(p->bind.threads) +
                  " needs slurm-pin's thread library (libslurm_pin_threads.so): none was given");
    p->domains.reset();
    p->result = compute_placement(r);
    p->computed = true;
  });
}

int sp_set_thread_mode(sp_placement_t* p, const char* mode) {
  return bind_option(p, [&] { p->bind.threads = parse_thread_mode(mode ? mode : ""); });
}

int sp_set_thread_library(sp_placement_t* p, const char* path) {
  return bind_option(p, [&] { p->bind.thread_library = path ? path : find_thread_library(this_library()); });
}

int sp_find_thread_library(const char* from, char* buf, size_t len, char* err, size_t errlen) {
  return checked(err, errlen, [&] {
    std::string path = find_thread_library(from ? from : "");
    require(copy_out(path, buf, len) < static_cast<int>(len), "the thread library's path is too long");
  });
}

int sp_check_thread_library(const char* path, char* err, size_t len) {
  return checked(err, len, [&] { check_thread_library(path ? path : ""); });
}

int sp_check_preloadable(const char* program, const char* path_env, char* err, size_t len) {
  return checked(err, len, [&] { check_preloadable(program ? program : "", path_env ? path_env : ""); });
}

int sp_auto_binding_note(const char* program, const char* path_env, const char* missing, char* buf, size_t len) {
  try {
    std::string why = missing && *missing ? missing : preload_problem(program ? program : "", path_env ? path_env : "");
    if (why.empty()) return 0;
    copy_out(env_only_note(why), buf, len);
    return 1;
  } catch (const std::exception& e) {
    copy_out(env_only_note(printable(e.what())), buf, len);
    return 1;
  }
}

int sp_set_mem_policy(sp_placement_t* p, const char* policy) {
  return bind_option(p, [&] { p->bind.mem = parse_mem_policy(policy ? policy : ""); });
}

int sp_set_legacy_omp_env(sp_placement_t* p, int on) {
  return bind_option(p, [&] { p->bind.legacy_omp_env = on != 0; });
}

int sp_set_origin(sp_placement_t* p, const char* why) {
  return bind_option(p, [&] { p->bind.origin = why ? why : ""; });
}

// The placement's own sets: the engine holds CPU sets as hwloc bitmaps.
hwloc_const_bitmap_t sp_get_task_cpuset(const sp_placement_t* p, int task) {
  const TaskPlace* t = task_at(p, task);
  return t ? t->share.get() : nullptr;
}

hwloc_const_bitmap_t sp_get_thread_cpuset(const sp_placement_t* p, int task, int thread) {
  const ThreadPlace* t = thread_at(p, task, thread);
  return t ? t->cpus.get() : nullptr;
}

int sp_get_env_count(const sp_placement_t* p) {
  int n = -1;
  guarded(p, [&] {
    require(p->computed, "no placement yet: call sp_compute first");
    if (!p->names_valid) {
      p->env_names.clear();
      for (const EnvVar& v : task_environment(p->result, 0, p->bind)) p->env_names.push_back(v.name);
      p->names_valid = true;
    }
    n = static_cast<int>(p->env_names.size());
  });
  return n;
}

int sp_get_env_name(const sp_placement_t* p, int i, char* buf, size_t len) {
  int n = sp_get_env_count(p);
  if (n < 0) return -1;
  if (i < 0 || i >= n) return guarded(p, [&] { require(false, "no variable " + std::to_string(i) + " in the environment"); });
  return copy_out(p->env_names[static_cast<size_t>(i)], buf, len);
}

int sp_get_env_value(const sp_placement_t* p, int task, int i, const char* current, char* buf, size_t len) {
  int out = -1;
  guarded(p, [&] {
    require_task(p, task);
    const auto* env = env_of(p, task);
    require(i >= 0 && i < static_cast<int>(env->size()), "no variable " + std::to_string(i) + " in the environment");
    std::string value;
    out = env_final_value((*env)[static_cast<size_t>(i)], current, &value) ? copy_out(value, buf, len) : SP_ENV_UNSET;
  });
  return out;
}

int sp_get_env_action(const sp_placement_t* p, int task, int i) {
  int out = -1;
  guarded(p, [&] {
    require_task(p, task);
    const auto* env = env_of(p, task);
    require(i >= 0 && i < static_cast<int>(env->size()), "no variable " + std::to_string(i) + " in the environment");
    switch ((*env)[static_cast<size_t>(i)].action) {
      case EnvVar::Action::kSet: out = SP_ENV_SET; break;
      case EnvVar::Action::kKeep: out = SP_ENV_KEEP; break;
      case EnvVar::Action::kAppendWord: out = SP_ENV_APPEND_WORD; break;
      case EnvVar::Action::kUnset: out = SP_ENV_UNSET; break;
    }
  });
  return out;
}

int sp_get_task_mem_policy(const sp_placement_t* p, int task, char* buf, size_t len) {
  int out = -1;
  guarded(p, [&] {
    require_task(p, task);
    out = copy_out(memory_policy_text(p->bind.mem, p->result.tasks[static_cast<size_t>(task)].share), buf, len);
  });
  return out;
}

int sp_get_task_data(const sp_placement_t* p, int task, char* buf, size_t len) {
  int out = -1;
  guarded(p, [&] {
    require_task(p, task);
    if (p->data_task != task) {  // kept: a caller asks its length, then the text
      p->task_data = task_data(p->result, static_cast<size_t>(task), p->bind);
      p->data_task = task;
    }
    out = copy_out(p->task_data, buf, len);
  });
  return out;
}

int sp_bind_task(sp_placement_t* p, int task) {
  return guarded(p, [&] {
    require_task(p, task);
    const CpuSet& cpus = p->result.tasks[static_cast<size_t>(task)].share;
    bind_process(cpus);
    set_memory_policy(p->bind.mem, cpus);
  });
}

int sp_describe_task(const sp_placement_t* p, int task, char* buf, size_t len) {
  int out = -1;
  guarded(p, [&] {
    require_task(p, task);
    out = copy_out(describe_task(p->result, static_cast<size_t>(task), p->bind), buf, len);
  });
  return out;
}

int sp_get_ntasks(const sp_placement_t* p) {
  return p && p->computed ? static_cast<int>(p->result.tasks.size()) : -1;
}

int sp_get_nthreads(const sp_placement_t* p) {
  return p && p->computed && !p->result.tasks.empty()
             ? static_cast<int>(p->result.tasks[0].threads.size())
             : -1;
}

int sp_get_thread_pu(const sp_placement_t* p, int task, int thread) {
  const ThreadPlace* t = thread_at(p, task, thread);
  return t ? t->pu : -1;
}

int sp_get_thread_domain(sp_placement_t* p, int task, int thread, char* buf, size_t len) {
  const ThreadPlace* th = thread_at(p, task, thread);
  if (!th) return -1;
  int rc = -1;
  guarded(p, [&] {
    if (!p->domains) p->domains.reset(new DomainNames(p->result.tree()));
    rc = copy_out(th->slot < 0 ? std::string() : p->domains->path(th->slot), buf, len);
  });
  return rc;
}

int sp_get_allowed_cpus(const sp_placement_t* p, char* buf, size_t len) {
  if (!p || !p->computed) return -1;
  const Tree& t = p->result.tree();
  return copy_out(format_cpulist(t.nodes[t.root].pus), buf, len);
}

// Names as one comma-separated list, copied out as every text getter does.
static int copy_out_list(const std::vector<std::string>& names, char* buf, size_t len) {
  std::string all;
  for (const std::string& n : names) all += (all.empty() ? "" : ",") + n;
  return copy_out(all, buf, len);
}

int sp_get_task_gpu_names(const sp_placement_t* p, int task, char* buf, size_t len) {
  const TaskPlace* t = task_at(p, task);
  return t ? copy_out_list(t->gpu_names, buf, len) : -1;
}

int sp_get_task_gpus(const sp_placement_t* p, int task, char* buf, size_t len) {
  const TaskPlace* t = task_at(p, task);
  return t ? copy_out_list(t->gpus, buf, len) : -1;
}

int sp_get_task_nic(const sp_placement_t* p, int task, char* buf, size_t len) {
  const TaskPlace* t = task_at(p, task);
  return t ? copy_out(t->nic, buf, len) : -1;
}

int sp_get_task_omp_places(const sp_placement_t* p, int task, char* buf, size_t len) {
  const TaskPlace* t = task_at(p, task);
  return t ? copy_out(omp_places(*t), buf, len) : -1;
}

const char* sp_get_fingerprint(const sp_placement_t* p) {
  return p && p->computed ? p->result.fingerprint.c_str() : nullptr;
}

int sp_get_nregions(const sp_placement_t* p) {
  return p && p->computed ? static_cast<int>(p->result.regions.size()) : -1;
}

const char* sp_get_region_name(const sp_placement_t* p, int region) {
  if (region < 0 || region >= sp_get_nregions(p)) return nullptr;
  return p->result.regions[region].name.c_str();
}

int sp_get_region_merged(const sp_placement_t* p, int region) {
  if (region < 0 || region >= sp_get_nregions(p)) return -1;
  return p->result.regions[region].merged ? 1 : 0;
}

int sp_get_region_thread_cpus(const sp_placement_t* p, int region, int task, int thread, char* buf, size_t len) {
  if (region < 0 || region >= sp_get_nregions(p)) return -1;
  const auto& tasks = p->result.regions[region].tasks;
  if (task < 0 || task >= static_cast<int>(tasks.size()) || thread < 0 ||
      thread >= static_cast<int>(tasks[task].threads.size()))
    return -1;
  return copy_out(tasks[task].threads[thread].cpus.list(), buf, len);
}

int sp_get_nlevels(const sp_placement_t* p) {
  return p && p->computed ? static_cast<int>(p->result.levels().size()) : -1;
}

const char* sp_get_level_name(const sp_placement_t* p, int level) {
  if (sp_get_nlevels(p) <= level || level < 0) return nullptr;
  return p->result.levels()[level].kind.c_str();
}

double sp_get_level_score(const sp_placement_t* p, int level) {
  if (sp_get_nlevels(p) <= level || level < 0 || !p->result.scored) return -1;
  return p->result.levels()[level].fraction();
}

int sp_get_level_domains(const sp_placement_t* p, int level) {
  if (sp_get_nlevels(p) <= level || level < 0) return -1;
  return p->result.levels()[level].domains;
}

int sp_get_level_sharing(const sp_placement_t* p, int level, double* kept, double* total) {
  if (sp_get_nlevels(p) <= level || level < 0 || !p->result.scored) return -1;
  const LevelScore& l = p->result.levels()[level];
  if (kept) *kept = l.kept;
  if (total) *total = l.total;
  return 0;
}

int sp_get_level_task_traffic(const sp_placement_t* p, int level, double* kept, double* total) {
  if (sp_get_nlevels(p) <= level || level < 0 || !p->result.tasks_scored) return -1;
  const LevelScore& l = p->result.task_levels()[static_cast<size_t>(level)];
  if (kept) *kept = l.kept;
  if (total) *total = l.total;
  return 0;
}

int sp_get_kept_sharing(const sp_placement_t* p, const sp_placement_t* q, double* kept) {
  if (!p || !q || !p->computed || !q->computed || !q->result.scored) return -1;
  const Result &a = p->result, &b = q->result;
  if (a.fingerprint != b.fingerprint || a.tree().summary() != b.tree().summary() ||
      a.slot_of_thread.size() != b.slot_of_thread.size() ||
      (!a.slot_of_thread.empty() && a.slot_of_thread[0].size() != b.slot_of_thread[0].size()))
    return -1;
  if (kept) *kept = quality(score_levels(a.tree(), a.slot_of_thread, &b.score_matrix));
  return 0;
}

int sp_get_placement_file(const sp_placement_t* p, const char* strategy, char* buf, size_t len) {
  if (!p || !p->computed) return -1;
  try {
    return copy_out(placement_file_of(p->result, strategy ? strategy : ""), buf, len);
  } catch (const std::exception&) {
    return -1;
  }
}

int sp_get_nnotes(const sp_placement_t* p) {
  return p && p->computed ? static_cast<int>(p->result.notes.size()) : -1;
}

int sp_get_note(const sp_placement_t* p, int i, char* buf, size_t len) {
  if (sp_get_nnotes(p) <= i || i < 0) return -1;
  return copy_out(p->result.notes[i], buf, len);
}

int sp_check_profile(const char* spec, const char* store, char* err, size_t len) {
  if (sp_is_profile_name(spec)) return sp_check_store_profile(spec, store, err, len);  // srun's check, without the engine
  return checked(err, len, [&] {
    ProfileSpec s = parse_profile_spec(spec ? spec : "");  // a path, or a malformed name
    read_profile(s.path);
  });
}

int sp_check_placement_file(const char* path, char* err, size_t len) {
  return checked(err, len, [&] { read_placement_file(path ? path : ""); });
}

int sp_cores_to_pus(sp_placement_t* p, const char* cores, char* buf, size_t len) {
  int rc = -1;
  guarded(p, [&] {
    CpuSet pus = pus_of_cores(p->request.topology, parse_cpulist(cores ? cores : "", "allocated cores"));
    rc = copy_out(pus.list(), buf, len);
  });
  return rc;
}

namespace {

// The handle's topology as set, before any placement (whole machine, no restriction).
std::shared_ptr<const LoadedTopology> handle_topology(const sp_placement_t* p) {
  TopologySpec spec;
  spec.source = p->request.topology.source;
  spec.cache = p->request.topology.cache;
  spec.given = p->request.topology.given;
  return load_topology(spec);
}

}  // namespace

int sp_topology_pus(sp_placement_t* p, char* buf, size_t len) {
  int rc = -1;
  guarded(p, [&] { rc = copy_out(handle_topology(p)->all_pus.list(), buf, len); });
  return rc;
}

int sp_topology_fingerprint(sp_placement_t* p, char* buf, size_t len) {
  int rc = -1;
  guarded(p, [&] { rc = copy_out(handle_topology(p)->fingerprint, buf, len); });
  return rc;
}

int sp_save_topology(const char* path, char* err, size_t len) {
  if (hwloc_source_overridden()) return 0;  // nothing to save: the variables choose each time
  return checked(err, len, [&] { save_node_topology(path ? path : ""); });
}

int sp_strategy_count(void) { return static_cast<int>(all_strategies().size()); }

int sp_strategy_name(int i, char* buf, size_t len) {
  return i >= 0 && i < sp_strategy_count() ? copy_out(all_strategies()[static_cast<size_t>(i)].name, buf, len) : -1;
}

const char* sp_strategies_help(void) {
  static const std::string help = strategies_help();
  return help.c_str();
}

}  // extern "C"
