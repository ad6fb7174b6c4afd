// SPDX-License-Identifier: GPL-2.0-or-later
#include "strategies/load_first.hh"

#include <algorithm>
#include <numeric>

namespace slurmpin {

std::vector<int> core_of_slots(const Tree& t) {
  std::vector<int> core(t.nodes.size(), -1);
  for (int s : t.slots()) {
    int c = t.ancestor_of_kind(s, "Core");
    // A virtual slot (oversubscription) has no kind: its core is the slot
    // it was made from; a slot wider than a core is its own unit.
    if (c < 0) c = t.nodes[s].kinds.empty() && t.nodes[s].parent >= 0 ? t.nodes[s].parent : s;
    core[s] = c;
  }
  return core;
}

namespace {

// How far above the average a core's load may be before it is repaired.
constexpr double kSlack = 0.10;
// A busy thread: this many times a thread's average load.
constexpr double kBusy = 1.5;
// The least share of a core's average load a swap moves: smaller ones would
// trade sharing for nothing measurable.
constexpr double kMinMove = 0.05;

// The placement as cores holding slots holding threads (-1: empty slot).
// Sharing is the matrix's remainder above its floor, as the strategies
// count it (sharing_matrix.hh): swaps move no floor that matters.
struct Cores {
  const SharingMatrix& w;
  const std::vector<double>& load;
  std::vector<std::vector<int>> slots;  // per core, its slots (nodes of t)
  std::vector<int> occupant;            // per node of t: its thread, or -1
  std::vector<int> core_of_thread;
  std::vector<double> core_load;

  double load_of(int thread) const { return thread < 0 ? 0 : load[thread]; }

  // What `thread` shares with the threads on each core: O(its row).
  std::vector<double> sharing(int thread) const {
    std::vector<double> out(slots.size(), 0);
    if (thread < 0) return out;
    SharingMatrix::Row r = w.row(thread);
    for (size_t k = 0; k < r.size; ++k) out[core_of_thread[r.to[k]]] += r.w[k];
    return out;
  }

  // The sharing kept on cores gained by swapping slot a's occupant x (on
  // core ca) and slot b's occupant y (on cb), from each one's sharing.
  double gain(int x, const std::vector<double>& sx, int ca, int y, const std::vector<double>& sy, int cb) const {
    double xy = x >= 0 && y >= 0 ? w.remainder(x, y) : 0;
    return (x >= 0 ? sx[cb] - xy - sx[ca] : 0) + (y >= 0 ? sy[ca] - xy - sy[cb] : 0);
  }

  void swap(int a, int ca, int b, int cb) {
    int x = occupant[a], y = occupant[b];
    occupant[a] = y, occupant[b] = x;
    if (x >= 0) core_of_thread[x] = cb;
    if (y >= 0) core_of_thread[y] = ca;
    core_load[ca] += load_of(y) - load_of(x);
    core_load[cb] += load_of(x) - load_of(y);
  }
};

// Of the threads on core `from` that `movable` allows, and the slots of the
// cores in `to` holding a thread (or none) that `takes` allows, the swap
// keeping the most sharing: {slot, its core, slot, its core}, or {-1}.
// O((threads of `from` + slots of `to`) x a row).
template <typename Movable, typename Takes>
std::vector<int> best_swap(const Cores& c, int from, Movable movable, const std::vector<int>& to, Takes takes) {
  std::vector<int> best = {-1};
  double best_gain = 0;
  std::vector<std::vector<double>> there;  // sharing of each candidate on `to`'s cores
  std::vector<std::pair<int, int>> candidates;
  for (int cb : to)
    for (int b : c.slots[cb]) candidates.emplace_back(b, cb), there.push_back(c.sharing(c.occupant[b]));
  for (int a : c.slots[from]) {
    int x = c.occupant[a];
    if (!movable(x)) continue;
    std::vector<double> sx = c.sharing(x);
    for (size_t k = 0; k < candidates.size(); ++k) {
      auto [b, cb] = candidates[k];
      int y = c.occupant[b];
      if (!takes(x, y, cb)) continue;
      double g = c.gain(x, sx, from, y, there[k], cb);
      if (best[0] < 0 || g > best_gain) best = {a, from, b, cb}, best_gain = g;
    }
  }
  return best;
}

}  // namespace

int balance_load(const Tree& t, const SharingMatrix& w, const std::vector<double>& load, std::vector<int>& slot_of,
                 const std::function<void()>& tick) {
  int n = static_cast<int>(slot_of.size());
  if (static_cast<int>(load.size()) != n || n != w.size()) return 0;
  std::vector<int> core_of = core_of_slots(t);
  Cores c{w, load, {}, std::vector<int>(t.nodes.size(), -1), std::vector<int>(n, -1), {}};
  std::vector<int> index(t.nodes.size(), -1);  // core node -> its index
  for (int s : t.slots()) {
    int k = core_of[s];
    if (index[k] < 0) index[k] = static_cast<int>(c.slots.size()), c.slots.emplace_back();
    c.slots[index[k]].push_back(s);
  }
  int cores = static_cast<int>(c.slots.size());
  if (n <= cores) return 0;  // a core each: nothing shares one
  for (int i = 0; i < n; ++i) {
    if (slot_of[i] < 0 || core_of[slot_of[i]] < 0) return 0;  // unbound threads: nothing to balance
    c.occupant[slot_of[i]] = i;
  }
  c.core_load.assign(cores, 0);
  for (int i = 0; i < n; ++i) c.core_of_thread[i] = index[core_of[slot_of[i]]], c.core_load[c.core_of_thread[i]] += load[i];
  // The busiest threads, one for each core (ties: the lower thread id).
  std::vector<int> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return load[a] > load[b]; });
  if (load[order.front()] <= load[order.back()]) return 0;  // all alike: the strategy's placement stands
  // Within a tenth of the average, every core does its share: the
  // strategy's placement stands (threads of even work, as an OpenMP team's,
  // differ a little in any profile).
  double average = std::accumulate(load.begin(), load.end(), 0.0) / cores;
  auto balanced = [&] { return *std::max_element(c.core_load.begin(), c.core_load.end()) <= average * (1 + kSlack); };
  if (balanced()) return 0;
  // The busy threads: at most one per core, the busiest, each well above
  // a thread's average (a main thread's serial part beside an even team is
  // one busy thread; the team's small differences make none).
  double per_thread = average * cores / n;
  std::vector<char> top(n, 0);
  for (int k = 0; k < cores && load[order[k]] > kBusy * per_thread; ++k) top[order[k]] = 1;
  int swaps = 0;
  // 1. The busiest threads on distinct cores: a core holding two gives the
  // lighter of them to a core holding none, for one of its other threads.
  for (int round = 0; round < cores; ++round) {
    tick();
    std::vector<int> tops(cores, 0), free;
    for (int i = 0; i < n; ++i) tops[c.core_of_thread[i]] += top[i];
    for (int k = 0; k < cores; ++k)
      if (!tops[k]) free.push_back(k);
    int crowded = static_cast<int>(std::find_if(tops.begin(), tops.end(), [](int k) { return k > 1; }) - tops.begin());
    if (crowded == cores || free.empty()) break;
    int lighter = -1;
    for (int s : c.slots[crowded]) {
      int x = c.occupant[s];
      if (x >= 0 && top[x] && (lighter < 0 || load[x] < load[lighter])) lighter = x;
    }
    std::vector<int> s = best_swap(
        c, crowded, [&](int x) { return x == lighter; }, free, [&](int, int y, int) { return y < 0 || !top[y]; });
    if (s[0] < 0) break;
    c.swap(s[0], s[1], s[2], s[3]);
    ++swaps;
  }
  // 2. The busiest core gives a thread to the lightest core that can take
  // one, for a lighter one (or an empty slot), while that lowers its load;
  // the busiest threads stay where they are.
  for (int round = 0; round < 4 * n && !balanced(); ++round) {
    tick();
    int heavy = static_cast<int>(std::max_element(c.core_load.begin(), c.core_load.end()) - c.core_load.begin());
    double high = c.core_load[heavy];
    std::vector<int> lighter(cores);
    std::iota(lighter.begin(), lighter.end(), 0);
    std::stable_sort(lighter.begin(), lighter.end(), [&](int a, int b) { return c.core_load[a] < c.core_load[b]; });
    std::vector<int> s = {-1};
    for (int cb : lighter) {
      if (cb == heavy || c.core_load[cb] >= high) break;
      s = best_swap(
          c, heavy, [&](int x) { return x >= 0 && !top[x]; }, std::vector<int>{cb},
          [&](int x, int y, int) {
            double moved = load[x] - c.load_of(y);
            return (y < 0 || !top[y]) && moved > kMinMove * average && c.core_load[cb] + moved < high;
          });
      if (s[0] >= 0) break;
    }
    if (s[0] < 0) break;
    c.swap(s[0], s[1], s[2], s[3]);
    ++swaps;
  }
  for (int s : t.slots())
    if (c.occupant[s] >= 0) slot_of[c.occupant[s]] = s;
  return swaps;
}

}  // namespace slurmpin
