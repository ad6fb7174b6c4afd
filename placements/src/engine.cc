// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine.hh"

#include <algorithm>
#include <functional>
#include <map>
#include <memory>
#include <set>

#include "topology/cpulist.hh"
#include "topology/devices.hh"
#include "error.hh"
#include "parallel.hh"
#include "placement_cache.hh"
#include "strategies/task_traffic.hh"
#include "strategies/load_first.hh"
#include "strategies/orders.hh"
#include "strategies/placement_file.hh"
#include "sharing/profile.hh"
#include "strategies/profile_guided.hh"
#include "sharing/store.hh"
#include "slurm_pin_options.h"

namespace slurmpin {

namespace {

std::string plural(size_t n, const std::string& word) {
  return std::to_string(n) + " " + word + (n == 1 ? "" : "s");
}

std::string slot_word(Granularity g) { return g == Granularity::kPu ? "PU" : "core"; }

// Slots (of the task tree) for each thread under a matrix-free strategy.
std::vector<int> order_for(const Tree& t, Strategy s, uint64_t seed) {
  switch (s) {
    case Strategy::kCompact: return compact_order(t, t.root);
    case Strategy::kScatter: return scatter_order(t, t.root);
    case Strategy::kRandom: return random_order(compact_order(t, t.root), seed);
    default: throw Error("internal: not an order strategy");
  }
}

CpuSet widen(const Tree& t, int slot, const std::string& kind) {
  if (kind.empty()) return CpuSet::of(t.nodes[slot].pus);
  int a = t.ancestor_of_kind(slot, kind);
  if (a < 0)
    throw Error("granularity " + kind + ": this topology has no " + kind +
                " above core " + format_cpulist(t.nodes[slot].pus) + " (use pu, core, or another level)");
  return CpuSet::of(t.nodes[a].pus);
}

// The step's bound on wall time, checked between pieces of work: a user's
// input can make it long, never unbounded.
class Deadline {
 public:
  explicit Deadline(double seconds)
      : seconds_(seconds),
        end_(std::chrono::steady_clock::now() +
             std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::duration<double>(seconds))) {}
  void check() const {
    if (seconds_ > 0 && std::chrono::steady_clock::now() > end_)
      throw Error("placing this step took longer than the site allows (" + std::to_string(static_cast<int>(seconds_)) +
                  " s): use a smaller profile, fewer regions (no per-region pinning) or a simpler strategy");
  }

 private:
  double seconds_;
  std::chrono::steady_clock::time_point end_;
};

// What any read of the request's profile needs: region matrices are
// parsed only when placed (most of a profile of many regions), only the
// model placed (the other is as large), and the caller's size limit.
// With every region's matrix wanted, each region's rows are read on the
// CPU placing it (a step's first on its node reads them all).
ProfileNeeds file_needs(const Request& r) {
  ProfileNeeds n;
  n.regions = r.phases || !r.profile_region.empty();
  n.model = r.profile_model;
  n.rank_model = "bytes";
  if (r.max_file_bytes) n.max_bytes = r.max_file_bytes;
  // Each region's rows read where it is placed (add_regions), one region's
  // at a time per placing thread.
  n.defer_region_rows = r.phases;
  return n;
}

// What a profile must hold for this step, so that one it cannot use costs
// nothing more than its first lines.
ProfileNeeds needs_of(const Request& r, int share) {
  ProfileNeeds n = file_needs(r);
  n.max_threads = share * (r.oversubscribe ? kMaxOversubscription : 1);
  n.too_many_threads = "each task has " + std::to_string(share) + " CPUs" +
                       (r.oversubscribe ? "" : ": allow oversubscription, or") + " profile with fewer threads";
  // A rank section is read only when it can fit the job: the job's size
  // (the node's tasks when the job's is not given) bounds what it costs.
  n.max_ranks = r.job_tasks ? r.job_tasks : std::max(r.tasks, 1);
  return n;
}

// The requested profile: a file path is read and its matrix taken now; a
// store profile is picked for the thread count the step will run (given,
// or one per slot of the share) and returned as read, so that a placement
// cached for its text is found before the text is parsed.
StoredProfile fetch_profile(Request& r, int share) {
  ProfileSpec spec = parse_profile_spec(r.profile_spec);
  if (spec.is_path) return use_profile(r, read_profile(spec.path, needs_of(r, share)), spec.path, ""), StoredProfile();
  if (r.profile_store.empty())
    throw Error("profile '" + spec.app + "' names a store profile but no store is configured "
                "(configure a profile store, or give a file path)");
  return find_profile(r.profile_store, spec.app, r.threads ? r.threads : share, spec.version, share);
}

// Threads per task: asked for, or the matrix's; 0 when neither says, each
// task then running one per slot of its own share.
void resolve_threads(const Request& r, int& threads) {
  const StrategyInfo& info = strategy_info(r.strategy);
  if (info.needs_matrix && !r.has_matrix)
    throw Error(std::string("strategy ") + info.name +
                 " needs a sharing matrix: give a sharing profile or a matrix file");
  threads = r.threads;
  if (threads == 0 && r.has_matrix) threads = r.matrix.size();
  if (r.has_matrix && r.matrix.size() != threads)
    throw Error(r.matrix_source + " describes " + plural(r.matrix.size(), "thread") + " but " +
                plural(threads, "thread") + " were asked for: profile with " +
                std::to_string(threads) + " threads or run " + std::to_string(r.matrix.size()));
}

// The CPUs of `cpus`, all in `allowed`, or the first outside named. The
// file's ids were bounded by the machine as it was parsed, so the set costs
// no more than the machine's.
CpuSet checked_cpus(const CpuRanges& cpus, const CpuSet& allowed,
                    const std::function<std::string(unsigned)>& outside) {
  CpuSet want = CpuSet::of(cpus), extra = want - allowed;
  if (!extra.empty()) throw Error(outside(static_cast<unsigned>(extra.first())));
  return want;
}

// The loaded topology's tree, sharing its ownership.
std::shared_ptr<const Tree> shared_tree(const std::shared_ptr<const LoadedTopology>& loaded) {
  return std::shared_ptr<const Tree>(loaded, &loaded->tree);
}

Result from_file(const Request& r, const std::shared_ptr<const LoadedTopology>& loaded) {
  const LoadedTopology& lt = *loaded;
  // Ids are bounded by this machine while the file is parsed.
  PlacementFile f = read_placement_file(r.placement_path, lt.all_pus.empty() ? kMaxCpuId : static_cast<unsigned>(lt.all_pus.last()),
                                        r.max_file_bytes ? r.max_file_bytes : kMaxPlacementFileBytes);
  const std::string& p = r.placement_path;
  if (!f.topology.empty() && f.topology != lt.fingerprint)
    throw Error(p + ": computed for a machine with '" + f.topology + "' but this one has '" +
                lt.fingerprint + "' (recompute it with `slurm-pin place --format placement`)");
  int tasks = static_cast<int>(f.tasks.size()), threads = static_cast<int>(f.tasks[0].size());
  if (r.tasks && r.tasks != tasks)
    throw Error(p + ": has " + plural(tasks, "task") + " but the step runs " +
                plural(r.tasks, "task") + " (write one 'task N:' line per task)");
  if (r.threads && r.threads != threads)
    throw Error(p + ": has " + plural(threads, "thread") + " per task but " +
                plural(r.threads, "thread") + " were asked for (set the thread count to match)");
  CpuSet allowed = CpuSet::of(lt.tree.nodes[lt.tree.root].pus);
  // Bounded by the machine before anything is expanded. A file names every
  // thread's CPUs itself, so threads may share them, up to the limit.
  size_t limit = static_cast<size_t>(allowed.count()) * kMaxOversubscription;
  if (static_cast<size_t>(threads) * tasks > limit)
    throw Error(p + ": " + plural(static_cast<size_t>(threads) * tasks, "thread") + " in all on " +
                plural(allowed.count(), "allowed CPU") + ": at most " + std::to_string(kMaxOversubscription) +
                " threads may share one CPU (use fewer threads)");
  Result out;
  out.allowed = shared_tree(loaded);
  // PU -> the last slot holding it (as PUs are checked to be allowed, the
  // table is bounded by the machine's highest PU).
  std::vector<int> slot_of_pu(static_cast<size_t>(allowed.last()) + 1, -1);
  for (int s : lt.tree.slots())
    for (unsigned pu : lt.tree.nodes[s].pus) slot_of_pu[pu] = s;
  for (int t = 0; t < tasks; ++t) {
    TaskPlace tp;
    for (int i = 0; i < threads; ++i) {
      ThreadPlace th;
      th.cpus = checked_cpus(f.tasks[t][i], allowed, [&](unsigned c) {
        return p + ": task " + std::to_string(t) + " thread " + std::to_string(i) + " uses CPU " + std::to_string(c) +
               ", outside the allowed CPUs " + allowed.list() +
               " (recompute the placement for this allocation)";
      });
      th.pu = th.cpus.first();
      th.slot = slot_of_pu[th.pu];
      tp.threads.push_back(th);
    }
    tp.share = CpuSet::of(task_cpus(f.tasks[t]));
    out.tasks.push_back(tp);
  }
  for (const auto& region : f.regions) {
    RegionPlace rp;
    rp.name = region.first;
    for (int t = 0; t < tasks; ++t) {
      TaskPlace tp;
      tp.share = out.tasks[t].share;
      for (const auto& cpus : region.second[t]) {
        ThreadPlace th;
        th.cpus = checked_cpus(cpus, tp.share, [&](unsigned c) {
          return p + ": region " + rp.name + " task " + std::to_string(t) + " uses CPU " + std::to_string(c) +
                 ", outside the task's CPUs " + tp.share.list() + " (a region moves threads within their task)";
        });
        th.pu = th.cpus.first();
        tp.threads.push_back(th);
      }
      rp.tasks.push_back(tp);
    }
    out.regions.push_back(rp);
  }
  return out;
}

// Whether `keep` holds every slot of `tree` and the tree is numbered as
// restricted_to() numbers a copy (depth-first, no domain without slots):
// the restriction would then rebuild it node for node.
bool keeps_whole(const Tree& tree, const std::vector<int>& keep) {
  if (static_cast<int>(keep.size()) != tree.nodes[tree.root].slots) return false;
  std::vector<int> all = tree.slots(), mine = keep;
  std::sort(all.begin(), all.end());
  std::sort(mine.begin(), mine.end());
  if (mine != all) return false;
  int next = 0;
  std::vector<int> stack{tree.root};
  while (!stack.empty()) {
    int n = stack.back();
    stack.pop_back();
    if (n != next++ || tree.nodes[n].origin >= 0) return false;
    const auto& c = tree.nodes[n].children;
    stack.insert(stack.end(), c.rbegin(), c.rend());
  }
  return next == static_cast<int>(tree.nodes.size());
}

// Each task's share as a tree of its own (oversubscribed when threads
// outnumber its slots): built once, used by the whole-run placement and
// every region's. A share of the whole tree is the tree itself, not a copy
// (a step of one task on the whole node, the usual OpenMP step). `threads`
// 0: one per slot of each share.
std::vector<std::shared_ptr<const Tree>> task_trees(const Tree& tree, const std::vector<std::vector<int>>& shares,
                                                    int threads, const Deadline& deadline) {
  std::vector<std::shared_ptr<const Tree>> out;
  for (const auto& s : shares) {
    deadline.check();
    int share = static_cast<int>(s.size());
    if (threads > share) out.push_back(std::make_shared<const Tree>(tree.restricted_to(s).oversubscribed((threads + share - 1) / share)));
    // Not owned: `tree` outlives the placement these trees serve.
    else if (keeps_whole(tree, s)) out.push_back(std::shared_ptr<const Tree>(std::shared_ptr<const Tree>(), &tree));
    else out.push_back(std::make_shared<const Tree>(tree.restricted_to(s)));
  }
  return out;
}

// Every task's threads inside its share, by the request's strategy and `w`
// (`threads` 0: one per slot of the task's share); `load`: each thread's
// activity for the load-first repair (empty: none; a region's is unknown).
std::vector<TaskPlace> place_tasks(const Tree& tree, const std::vector<std::shared_ptr<const Tree>>& subs, const Request& r,
                                   const SharingMatrix& w, int threads, const Deadline& deadline,
                                   const std::vector<double>& load) {
  std::vector<TaskPlace> out;
  const CpuSet everywhere = CpuSet::of(tree.nodes[tree.root].pus);  // an unbound thread's CPUs
  for (size_t t = 0; t < subs.size(); ++t) {
    deadline.check();
    const Tree& sub = *subs[t];
    int n = threads ? threads : sub.nodes[sub.root].slots;
    uint64_t seed = r.seed + 0x9E3779B97F4A7C15ull * static_cast<uint64_t>(t);
    std::vector<int> slot_of;
    if (r.strategy == Strategy::kNone) slot_of.assign(n, -1);
    else if (strategy_info(r.strategy).needs_matrix) {
      slot_of = place_profile_guided(sub, w, r.strategy, seed);
      balance_load(sub, w, load, slot_of, [&] { deadline.check(); });
    }
    else slot_of = order_for(sub, r.strategy, seed);
    TaskPlace tp;
    tp.share = CpuSet::of(sub.nodes[sub.root].pus);
    for (int i = 0; i < n; ++i) {
      ThreadPlace th;
      if (slot_of[i] >= 0) {
        th.slot = sub.origin_of(slot_of[i]);
        th.pu = static_cast<int>(tree.nodes[th.slot].pus.front());
        th.cpus = widen(tree, th.slot, r.widen_to);
      } else {
        th.cpus = everywhere;
      }
      tp.threads.push_back(th);
    }
    out.push_back(tp);
  }
  return out;
}

// Share of threads whose CPUs differ between two placements.
double moved(const std::vector<TaskPlace>& a, const std::vector<TaskPlace>& b) {
  size_t all = 0, changed = 0;
  for (size_t t = 0; t < a.size(); ++t)
    for (size_t i = 0; i < a[t].threads.size(); ++i, ++all) changed += a[t].threads[i].cpus != b[t].threads[i].cpus;
  return all ? static_cast<double>(changed) / static_cast<double>(all) : 0;
}

void add_regions(const Tree& tree, const std::vector<std::shared_ptr<const Tree>>& subs, const Request& r, int threads,
                 Result& out, const Deadline& deadline) {
  if (!r.phases) return;
  if (!strategy_info(r.strategy).needs_matrix)
    throw Error(std::string("per-region placement needs a profile-guided strategy, not ") +
                strategy_info(r.strategy).name + " (use lp-compact, lp-scatter, gp, lpgp or gplp)");
  // Every region placed first, on the CPUs this thread may use (each an
  // independent placement: the step's idle CPUs place a profile of many
  // regions), then merged in profile order as one at a time would.
  const auto& regions = r.region_names;
  std::vector<std::vector<TaskPlace>> placed(regions.size());
  for_each_index(regions.size(), placing_threads(regions.size(), tree.nodes[tree.root].pus.size()), [&](size_t i) {
    placed[i] = place_tasks(tree, subs, r, r.region_matrix(i), threads, deadline, {});
  });
  for (size_t i = 0; i < regions.size(); ++i) {
    const std::string& region = regions[i];
    RegionPlace rp;
    rp.name = region;
    rp.tasks = std::move(placed[i]);
    if (!out.regions.empty() && moved(out.regions.back().tasks, rp.tasks) <= r.phase_merge) {
      rp.tasks = out.regions.back().tasks;
      rp.merged = true;
    }
    out.regions.push_back(rp);
    // A merged region's other call sites: the same placement, not placed again.
    auto aliases = r.region_aliases.find(region);
    if (aliases == r.region_aliases.end()) continue;
    for (const std::string& alias : aliases->second) {
      RegionPlace same = out.regions.back();
      same.name = alias;
      same.merged = true;
      out.regions.push_back(same);
    }
  }
}

}  // namespace

// The names and messages are the options' (slurm_pin_options.h).
void set_granularity(Request& r, const std::string& g) {
  char err[512];
  int i = sp_granularity_of(g.c_str(), err, sizeof err);
  if (i < 0) throw Error(err);
  r.topology.granularity = i == SP_GRANULARITY_PU ? Granularity::kPu : Granularity::kCore;
  r.widen_to = i == SP_GRANULARITY_L2 ? "L2" : i == SP_GRANULARITY_L3 ? "L3" : i == SP_GRANULARITY_NUMA ? "NUMANode" : "";
}

void set_gpu(Request& r, const std::string& mode) {
  char err[512];
  int i = sp_gpu_mode_of(mode.c_str(), err, sizeof err);
  if (i < 0) throw Error(err);
  r.gpu_closest = i == SP_GPU_CLOSEST;
}

void use_profile_file(Request& r, const std::string& path, const std::string& name) {
  use_profile(r, read_profile(path, file_needs(r)), path, name);
}

void use_profile(Request& r, Profile parsed, const std::string& path, const std::string& name) {
  auto kept = std::make_shared<const Profile>(std::move(parsed));
  const Profile& profile = *kept;
  r.matrix_source = "profile " + (name.empty() ? path : name + " (" + path + ")");
  r.profile_ranks = profile.ranks;
  bool read = profile.rank_matrices.count("bytes") || profile.rank_edges.count("bytes");
  r.profile_rank_traffic = read ? profile.rank_traffic(path) : SharingMatrix();
  // A profile of ranks alone (slurm-pin profile --mpi) orders the tasks;
  // their threads are placed as strategies without a matrix place them.
  r.profile_has_threads = profile.has_thread_matrix() || !profile.ranks;
  r.has_matrix = r.profile_has_threads;
  if (r.has_matrix) r.matrix = profile.affinity(r.profile_model, r.profile_region, path);
  r.thread_load.clear();
  if (r.has_matrix && static_cast<int>(profile.thread_accesses.size()) == r.matrix.size())
    r.thread_load = profile.thread_accesses;
  r.region_names.clear();
  r.region_matrix = nullptr;
  r.region_aliases.clear();
  if (r.phases) {
    if (profile.regions.empty())
      throw Error(path + ": the profile has no parallel regions, so there are no phases to place "
                  "(drop the phases option, or profile a program with OpenMP regions)");
    const auto& regions = profile.regions;
    for (const auto& region : regions) {
      profile.check_matrix(r.profile_model, region, path);
      r.region_names.push_back(region.name);
      if (!region.aliases.empty()) r.region_aliases[region.name] = region.aliases;
    }
    // Each region's matrix is built from the profile, which the request
    // keeps, where that region is placed (add_regions), its rows read
    // there too (file_needs): one at a time per placing thread, freed once
    // placed. Built here, every region's was held at once: 20 MB of fresh
    // pages for 100 regions of 128 threads, 11 of the 140 ms of CPU their
    // placing took; their rows, 13 MB more.
    r.region_matrix = [kept, model = r.profile_model, path](size_t i) {
      return kept->affinity(model, kept->regions[i], path);
    };
  }
}

namespace {

// Each task's GPUs and nearest NIC into `out`.
void attach_devices(Result& out, const NodeDevices& devices, const std::vector<VisibleGpu>& visible,
                    const std::vector<std::vector<int>>& task_gpus) {
  if (!visible.empty()) out.gpu_variable = visible.front().gpu.variable;
  std::vector<CpuSet> cpus;
  for (const auto& t : out.tasks) cpus.push_back(t.share);
  std::vector<TaskDevices> got = task_devices(devices, visible, task_gpus, cpus);
  for (size_t t = 0; t < out.tasks.size(); ++t)
    out.tasks[t].gpus = got[t].gpus, out.tasks[t].gpu_names = got[t].gpu_names, out.tasks[t].nic = got[t].nic;
}

// What every result carries, however its places were found.
void finish(Result& out, const Request& r, const LoadedTopology& lt) {
  out.fingerprint = lt.fingerprint;
  if (r.topology.smt > lt.most_pus_per_core && lt.most_pus_per_core > 0)
    out.notes.push_back("smt " + std::to_string(r.topology.smt) + ": the cores here have " +
                        plural(lt.most_pus_per_core, "hardware thread") + ", every one used");
  for (const auto& t : out.tasks) {
    out.slot_of_thread.emplace_back();
    for (const auto& th : t.threads) out.slot_of_thread.back().push_back(th.slot);
  }
  out.scored = r.has_matrix && !out.tasks.empty() &&
               static_cast<int>(out.tasks[0].threads.size()) == r.matrix.size();
  if (out.scored) out.score_matrix = r.matrix;  // shared, not copied
  out.tasks_scored = r.has_task_matrix && static_cast<int>(out.tasks.size()) == r.task_matrix.size();
  if (out.tasks_scored) out.task_matrix = r.task_matrix;
}

// Whether at least half of each task's slots are near its GPUs (a task
// without GPUs anywhere).
bool near_enough(const Tree& tree, const std::vector<std::vector<int>>& shares, const std::vector<CpuSet>& near) {
  for (size_t t = 0; t < shares.size(); ++t) {
    if (near[t].empty()) continue;
    size_t inside = 0;
    auto near_t = [&](unsigned pu) { return near[t].has(pu); };
    for (int s : shares[t]) inside += std::any_of(tree.nodes[s].pus.begin(), tree.nodes[s].pus.end(), near_t);
    if (2 * inside < shares[t].size()) return false;
  }
  return true;
}

// The step's slots split among its tasks (every slot used, sizes within
// one): evenly along the tree, in the task layout asked for. With GPUs the
// tasks keep node order, each with the GPUs whose block meets it
// (gpus_per_task); where a node's GPUs sit so unevenly that the even split
// puts a task mostly away from its GPUs, each task instead takes as many
// slots nearest its GPUs.
std::vector<std::vector<int>> split(const Tree& tree, const Request& r, int tasks, const std::vector<VisibleGpu>& visible,
                                    const std::vector<std::vector<int>>& task_gpus) {
  if (visible.empty()) return split_tasks(tree, tasks, r.task_layout, r.cores_whole);
  std::vector<std::vector<int>> even = split_tasks_evenly(tree, tasks, r.cores_whole);
  std::vector<CpuSet> near = cpus_near_gpus(visible, task_gpus);
  // (split_tasks_near counts slots: a core's hardware threads kept whole stay with the even split.)
  if (tasks > tree.nodes[tree.root].slots || r.cores_whole || near_enough(tree, even, near)) return even;
  std::vector<int> sizes;
  for (const auto& share : even) sizes.push_back(static_cast<int>(share.size()));
  return split_tasks_near(tree, sizes, near);
}

// Whether a task's extra threads can go to its cores' hardware threads:
// slots are whole cores (not widened, not smt:k), some core has several.
bool hardware_threads_help(const Request& r, const Tree& tree) {
  if (r.cores_whole || r.topology.granularity != Granularity::kCore || !r.widen_to.empty() || r.topology.smt)
    return false;
  for (int s : tree.slots())
    if (tree.nodes[s].pus.size() > 1) return true;
  return false;
}

int smallest(const std::vector<std::vector<int>>& shares) {
  size_t least = shares[0].size();
  for (const auto& s : shares) least = std::min(least, s.size());
  return static_cast<int>(least);
}

// What a verbose user is told of the split: tasks of different sizes, slots
// left unused, tasks sharing slots.
void note_split(Result& out, const std::vector<std::vector<int>>& shares, size_t slots, const std::string& word) {
  std::map<size_t, int> sizes;
  std::set<int> used;
  for (const auto& s : shares) ++sizes[s.size()], used.insert(s.begin(), s.end());
  if (shares.size() > slots) {
    out.notes.push_back(plural(shares.size(), "task") + " on " + plural(slots, word) +
                        " (oversubscribed): neighbouring tasks share a " + word);
    return;
  }
  if (sizes.size() > 1) {
    std::string s;
    for (auto it = sizes.rbegin(); it != sizes.rend(); ++it)
      s += (s.empty() ? "" : ", ") + plural(it->second, "task") + " of " + plural(it->first, word);
    out.notes.push_back(plural(slots, word) + " split among " + plural(shares.size(), "task") + ": " + s);
  }
  if (used.size() < slots)
    out.notes.push_back(plural(slots - used.size(), word) + " left unused: " + plural(slots, word) +
                        " do not split evenly among " + plural(shares.size(), "task"));
}

// One placement as it goes, handed from stage to stage.
struct Placing {
  Request r;  // the request, completed as the stages learn more
  Deadline deadline;
  std::shared_ptr<const LoadedTopology> loaded;
  NodeDevices devices;
  std::vector<VisibleGpu> visible;
  std::vector<std::vector<int>> task_gpus;
  std::vector<std::vector<int>> shares;  // each task's slots of the allowed tree
  int share = 0;                         // the smallest of them
  int threads = 0;                       // per task
  Result out;

  explicit Placing(const Request& request) : r(request), deadline(request.max_seconds) {}
  const Tree& tree() const { return loaded->tree; }
  std::string word() const { return slot_word(r.topology.granularity); }
};

// Stage 1: the machine (and its devices, for device locality), loaded once.
void load_machine(Placing& p) {
  if (p.r.topology.smt > 0) p.r.topology.granularity = Granularity::kPu;  // smt:k: each kept PU is a slot
  p.r.topology.devices = p.r.gpu_closest;  // one load: the tree and the devices
  p.loaded = load_topology(p.r.topology);
  if (p.r.gpu_closest) {
    p.devices = node_devices(p.loaded->devices);
    p.visible = visible_gpus(p.devices, p.r.gpu_env, p.r.gpu_indices);
  }
}

// The tasks' traffic hands out the shares: heavy pairs of tasks in one
// L3, one NUMA domain (task_traffic.hh), by the request's strategy when it
// is profile-guided, else place_by_traffic. Tasks near their GPUs keep those shares.
void order_by_traffic(Placing& p) {
  if (p.r.task_matrix.size() != static_cast<int>(p.shares.size()))
    throw Error(p.r.task_matrix_source + " describes " + plural(p.r.task_matrix.size(), "task") + " but " +
                plural(p.shares.size(), "task") + " run here: give the matrix of this step's tasks");
  if (!p.visible.empty()) {
    p.out.notes.push_back(p.r.task_matrix_source + " not used: each task keeps the CPUs near its GPUs");
    return;
  }
  std::string why;
  p.shares = shares_by_traffic(p.tree(), p.shares, p.r.task_matrix, p.r.strategy, p.r.seed, &why);
  if (!why.empty()) p.out.notes.push_back(p.r.task_matrix_source + " not used: " + why);
}

// The profile's rank traffic, for the tasks that run here: the rows and
// columns of their global ranks. A profile of another job size cannot say
// which tasks are which: the tasks keep the split's order, with a note.
void order_by_profile_ranks(Placing& p) {
  const Request& r = p.r;
  int tasks = static_cast<int>(p.shares.size());
  if (r.has_task_matrix || !r.profile_ranks || tasks < 2) return;
  int job = r.job_tasks ? r.job_tasks : tasks;
  std::vector<int> ranks = r.task_ranks;
  if (ranks.empty())
    for (int t = 0; t < tasks; ++t) ranks.push_back(t);
  std::string source = r.matrix_source + "'s rank traffic";
  if (job != r.profile_ranks || r.profile_rank_traffic.size() != r.profile_ranks) {
    p.out.notes.push_back(source + " is of " + plural(r.profile_ranks, "rank") + " but the job has " +
                          plural(job, "task") + ": tasks in block order (profile the job at this size)");
    return;
  }
  std::vector<bool> seen(static_cast<size_t>(job));
  bool valid = static_cast<int>(ranks.size()) == tasks;
  for (size_t i = 0; valid && i < ranks.size(); ++i) {
    valid = ranks[i] >= 0 && ranks[i] < job && !seen[static_cast<size_t>(ranks[i])];
    if (valid) seen[static_cast<size_t>(ranks[i])] = true;
  }
  if (!valid) {
    p.out.notes.push_back(source + " not used: the job's task ids here are not " + std::to_string(tasks) +
                          " distinct ranks below " + std::to_string(job) + "; tasks in block order");
    return;
  }
  p.r.task_matrix = r.profile_rank_traffic.subset(ranks);
  p.r.has_task_matrix = true;
  p.r.task_matrix_source = source;
  order_by_traffic(p);
}

// Stage 2: each task's share of the allowed slots (near its GPUs).
void split_tasks(Placing& p) {
  const Tree& tree = p.tree();
  std::vector<int> slots = tree.slots();
  int tasks = p.r.tasks ? p.r.tasks : 1;
  if (tasks > static_cast<int>(slots.size()) && !p.r.oversubscribe)
    throw Error(plural(tasks, "task") + " but only " + plural(slots.size(), p.word()) + " in CPUs " +
                format_cpulist(tree.nodes[tree.root].pus) + ": run fewer tasks or allocate more CPUs");
  p.task_gpus = gpus_per_task(p.visible, tasks);
  p.shares = split(tree, p.r, tasks, p.visible, p.task_gpus);
  if (p.r.has_task_matrix) order_by_traffic(p);
  else order_by_profile_ranks(p);  // a profile loaded before (sp_load_profile)
  p.share = smallest(p.shares);
  note_split(p.out, p.shares, slots.size(), p.word());
}

// Stage 3: the sharing profile, read now that the share is known; true when
// the node's cache holds this very placement (its key holds every input, so
// the entry passed every later check when it was computed).
bool read_profile_or_cache(Placing& p) {
  if (p.r.profile_spec.empty()) return false;
  StoredProfile stored = fetch_profile(p.r, p.share);
  if (stored.path.empty()) return order_by_profile_ranks(p), false;
  p.out.cache_key = placement_cache_key(p.r, *p.loaded, stored.path, stored.text.view());
  if (!p.out.cache_key.empty() && read_cached_placement(p.r.cache_dir, p.out.cache_key, p.tree(),
                                                        p.r.tasks ? p.r.tasks : 1, stored.threads, p.out)) {
    p.out.cache_key.clear();
    p.out.from_cache = true;
    return true;
  }
  use_profile(p.r, parse_profile(stored.text, stored.path, needs_of(p.r, p.share)), stored.path, p.r.profile_spec);
  order_by_profile_ranks(p);
  return false;
}

// Tasks placed by their traffic (a profile of ranks alone, or a task
// matrix) with a strategy that needs a thread matrix and none given: the
// strategy placed the tasks; each task's threads go compact inside its
// share (a one-thread task has nothing to share, so no note).
void threads_without_matrix(Placing& p) {
  if (p.r.has_matrix || !strategy_info(p.r.strategy).needs_matrix) return;
  bool ranks_only = !p.r.profile_has_threads;
  if (!ranks_only && !p.r.has_task_matrix) return;  // nothing to place by: resolve_threads says what is missing
  int threads = p.r.threads ? p.r.threads : p.share;
  const std::string name = strategy_info(p.r.strategy).name;
  if (threads > 1 && ranks_only)
    p.out.notes.push_back(p.r.matrix_source + " holds rank traffic only: each task's threads placed compact "
                          "(profile with a thread backend too for " + name + ")");
  else if (threads > 1)
    p.out.notes.push_back(p.r.task_matrix_source + " placed the tasks; without a sharing matrix each task's threads "
                          "are placed compact (give a sharing profile too for " + name + ")");
  p.r.strategy = Strategy::kCompact;
}

// Stage 5: whether the task's threads fit its share (or may share it).
void check_threads_fit(Placing& p) {
  int threads = p.threads, share = p.share;
  if (threads > share && !p.r.oversubscribe)
    throw Error(plural(threads, "thread") + " per task but each task has only " + plural(share, p.word()) +
                ": use fewer threads, more CPUs per task, granularity pu, or allow oversubscription");
  if (threads > share * kMaxOversubscription)
    throw Error(plural(threads, "thread") + " per task on " + plural(share, p.word()) + ": at most " +
                std::to_string(kMaxOversubscription) + " threads share one " + p.word() +
                " (use fewer threads or more CPUs per task)");
  if (threads > share)
    p.out.notes.push_back(plural(threads, "thread") + " per task on " + plural(share, p.word()) +
                          " (oversubscribed): threads share them, neighbours together");
}

// Stage 6: every thread of every task (and of every region) on its slot.
void place_threads(Placing& p) {
  p.deadline.check();
  auto subs = task_trees(p.tree(), p.shares, p.threads, p.deadline);
  p.out.tasks = place_tasks(p.tree(), subs, p.r, p.r.matrix, p.threads, p.deadline, p.r.thread_load);
  add_regions(p.tree(), subs, p.r, p.threads, p.out, p.deadline);
  if (p.r.has_matrix && p.r.matrix.all_zero())
    p.out.notes.push_back(p.r.matrix_source + " is all zeros: no thread shares with another, so "
                          "every placement scores the same");
}

// Stage 7: each task's GPUs and network adapter (a placement file chose the
// CPUs: its tasks get GPUs in the same blocks).
void attach_gpus(Placing& p) {
  if (!p.r.gpu_closest) return;
  if (p.r.strategy == Strategy::kFile) p.task_gpus = gpus_per_task(p.visible, static_cast<int>(p.out.tasks.size()));
  attach_devices(p.out, p.devices, p.visible, p.task_gpus);
}

// The last stage, whatever the way: the allowed tree, the machine's
// fingerprint, what levels() scores.
Result finished(Placing& p) {
  if (!p.out.allowed) p.out.allowed = shared_tree(p.loaded);
  finish(p.out, p.r, *p.loaded);
  return std::move(p.out);
}

}  // namespace

Result compute_placement(const Request& request) {
  Placing p(request);
  load_machine(p);
  if (p.r.strategy == Strategy::kFile) {
    p.out = from_file(p.r, p.loaded);
  } else {
    split_tasks(p);
    if (read_profile_or_cache(p)) return finished(p);
    threads_without_matrix(p);
    resolve_threads(p.r, p.threads);  // stage 4: threads per task
    // More threads than a task has cores: the same request placed on the
    // cores' hardware threads, each core's in one task; sharing only beyond them.
    if (p.threads > p.share && hardware_threads_help(request, p.tree())) {
      Request on_pus = request;
      on_pus.topology.granularity = Granularity::kPu;
      on_pus.cores_whole = true;
      Result res = compute_placement(on_pus);
      res.notes.insert(res.notes.begin(), plural(p.threads, "thread") + " per task on " +
                                              plural(p.share, p.word()) +
                                              ": each on a hardware thread of the task's cores");
      return res;
    }
    check_threads_fit(p);
    place_threads(p);
  }
  attach_gpus(p);
  return finished(p);
}

const std::vector<LevelScore>& Result::task_levels() const {
  if (!task_levels_done_) {
    // The tasks as one team whose members sit at their first threads' slots.
    std::vector<std::vector<int>> at(1);
    for (const auto& slots : slot_of_thread) at[0].push_back(slots.empty() ? -1 : slots[0]);
    task_levels_ = score_levels(tree(), at, tasks_scored ? &task_matrix : nullptr);
    task_levels_done_ = true;
  }
  return task_levels_;
}

const std::vector<LevelScore>& Result::levels() const {
  if (!levels_done_) {
    levels_ = score_levels(tree(), slot_of_thread, scored ? &score_matrix : nullptr);
    levels_done_ = true;
  }
  return levels_;
}

}  // namespace slurmpin
