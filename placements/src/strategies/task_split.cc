// SPDX-License-Identifier: GPL-2.0-or-later
#include "strategies/task_split.hh"

#include <algorithm>
#include <climits>
#include <cstdlib>

#include "strategies/orders.hh"

namespace slurmpin {

namespace {

// What the split counts and keeps whole: slots, or with `cores_whole` the
// cores (each a run of hardware-thread slots).
struct Units {
  const Tree& t;
  bool cores_whole;
  bool is_unit(int node) const { return t.nodes[node].is_slot() || (cores_whole && t.nodes[node].has_kind("Core")); }
  int count(int node) const {
    if (!cores_whole || is_unit(node)) return cores_whole ? 1 : t.nodes[node].slots;
    int n = 0;
    for (int c : t.nodes[node].children) n += count(c);
    return n;
  }
  // The units below `node` in compact order, each its slots.
  std::vector<std::vector<int>> below(int node) const {
    std::vector<std::vector<int>> out;
    collect(node, out);
    return out;
  }

 private:
  void collect(int node, std::vector<std::vector<int>>& out) const {
    if (is_unit(node)) {
      out.push_back(compact_order(t, node));
      return;
    }
    for (int c : t.nodes[node].children) collect(c, out);
  }
};

// `units` cut into one run per task, sizes within one, the larger first.
void cut(const std::vector<std::vector<int>>& units, const std::vector<int>& tasks,
         std::vector<std::vector<int>>& out) {
  size_t k = tasks.size(), n = units.size(), at = 0;
  if (n == 0) return;  // nothing to give (the engine refuses an empty tree first)
  if (n < k) {  // more tasks than units: spread them, neighbours sharing
    for (size_t i = 0; i < k; ++i) out[tasks[i]] = units[i * n / k];
    return;
  }
  for (size_t i = 0; i < k; ++i) {
    size_t size = n / k + (i < n % k);
    out[tasks[i]].clear();
    for (size_t u = at; u < at + size; ++u) out[tasks[i]].insert(out[tasks[i]].end(), units[u].begin(), units[u].end());
    at += size;
  }
}

// How many of `k` tasks each child takes, in proportion to its slots
// (largest remainder, ties to the first), each at least one.
std::vector<int> apportion(int k, const std::vector<int>& slots) {
  long total = 0;
  for (int s : slots) total += s;
  std::vector<int> q(slots.size());
  std::vector<std::pair<long, size_t>> rest;  // (-remainder, child): ties to the first
  int given = 0;
  for (size_t c = 0; c < slots.size(); ++c) {
    q[c] = static_cast<int>(static_cast<long>(k) * slots[c] / total);
    given += q[c];
    rest.emplace_back(-(static_cast<long>(k) * slots[c] % total), c);
  }
  std::sort(rest.begin(), rest.end());
  for (int i = 0; given < k; ++i, ++given) ++q[rest[i].second];
  for (size_t c = 0; c < q.size(); ++c)
    while (q[c] == 0) {  // from the child with the most tasks per slot
      size_t from = 0;
      for (size_t o = 1; o < q.size(); ++o)
        if (static_cast<long>(q[o]) * slots[from] > static_cast<long>(q[from]) * slots[o]) from = o;
      --q[from];
      ++q[c];
    }
  return q;
}

// Whether task sizes from lo to hi are even enough: within one slot, or,
// when every child takes as many tasks (`same`), within the spread of the
// node's own domains (a KNL's quadrants of 16 and 18 cores: an eighth of
// the largest), not that of an allocation that took most of one domain.
bool within(int lo, int hi, bool same) { return hi - lo <= 1 || (same && 8 * (hi - lo) <= hi); }

// Whether children of `slots` taking `q` tasks each (their slots cut within
// one) give every task a size even enough.
bool even_enough(const std::vector<int>& slots, const std::vector<int>& q) {
  int lo = INT_MAX, hi = 0;
  bool same = true;
  for (size_t c = 0; c < slots.size(); ++c) {
    lo = std::min(lo, slots[c] / q[c]);
    hi = std::max(hi, (slots[c] + q[c] - 1) / q[c]);
    same = same && q[c] == q[0];
  }
  return within(lo, hi, same);
}

// Fewer tasks than children: the children cut into `k` runs at the
// boundaries nearest where cut() would end each task (even sizes, the larger
// first). The run lengths, or empty when the runs are not even enough.
std::vector<int> runs_of(int k, const std::vector<int>& slots) {
  long total = 0;
  for (int s : slots) total += s;
  std::vector<int> ends;  // a run's end: one past its last child
  size_t last = 0;
  long prefix = 0;
  for (int i = 1; i < k; ++i) {
    long target = i * (total / k) + std::min<long>(i, total % k);
    size_t best = 0;
    long best_gap = 0;
    long p = prefix;
    for (size_t j = last + 1; j + (k - i) <= slots.size(); ++j) {
      p += slots[j - 1];
      long gap = std::labs(p - target);
      if (!best || gap < best_gap) best = j, best_gap = gap;
    }
    for (size_t j = last; j < best; ++j) prefix += slots[j];
    ends.push_back(static_cast<int>(best));
    last = best;
  }
  ends.push_back(static_cast<int>(slots.size()));
  std::vector<int> sizes, children;
  int begin = 0;
  for (int end : ends) {
    int size = 0;
    for (int j = begin; j < end; ++j) size += slots[j];
    sizes.push_back(size);
    children.push_back(end - begin);
    begin = end;
  }
  bool same = std::all_of(children.begin(), children.end(), [&](int c) { return c == children[0]; });
  if (within(*std::min_element(sizes.begin(), sizes.end()), *std::max_element(sizes.begin(), sizes.end()), same))
    return children;
  return {};
}

void divide(const Units& u, int node, const std::vector<int>& tasks, std::vector<std::vector<int>>& out) {
  const Domain& d = u.t.nodes[node];
  int k = static_cast<int>(tasks.size());
  if (k == 1 || u.is_unit(node) || u.count(node) <= k) return cut(u.below(node), tasks, out);
  std::vector<int> kids, sizes;
  for (int c : d.children)
    if (u.count(c) > 0) kids.push_back(c), sizes.push_back(u.count(c));
  if (kids.size() == 1) return divide(u, kids[0], tasks, out);
  if (k >= static_cast<int>(kids.size())) {
    std::vector<int> q = apportion(k, sizes);
    if (!even_enough(sizes, q)) return cut(u.below(node), tasks, out);
    size_t next = 0;
    for (size_t c = 0; c < kids.size(); ++c) {
      std::vector<int> mine(tasks.begin() + next, tasks.begin() + next + q[c]);
      next += q[c];
      divide(u, kids[c], mine, out);
    }
    return;
  }
  std::vector<int> runs = runs_of(k, sizes);
  if (runs.empty()) return cut(u.below(node), tasks, out);
  size_t child = 0;
  for (int i = 0; i < k; ++i) {
    std::vector<int>& mine = out[tasks[i]];
    mine.clear();
    for (int j = 0; j < runs[i]; ++j, ++child) {
      std::vector<int> order = compact_order(u.t, kids[child]);
      mine.insert(mine.end(), order.begin(), order.end());
    }
  }
}

}  // namespace

std::vector<std::vector<int>> split_tasks_evenly(const Tree& t, int tasks, bool cores_whole) {
  std::vector<std::vector<int>> out(tasks);
  std::vector<int> ids(tasks);
  for (int i = 0; i < tasks; ++i) ids[i] = i;
  divide(Units{t, cores_whole}, t.root, ids, out);
  return out;
}

namespace {

// Tasks near the same devices are equally near whatever share each of them
// took: among themselves they keep node order (the first task the first
// share), as without devices, so that rank order follows the CPUs.
void keep_node_order_in_ties(const std::vector<CpuSet>& near, const std::vector<size_t>& position,
                             std::vector<std::vector<int>>& out) {
  std::vector<char> done(near.size(), 0);
  auto first = [&](const std::vector<int>& share) { return share.empty() ? ~size_t{0} : position[share[0]]; };
  for (size_t task = 0; task < near.size(); ++task) {
    if (done[task]) continue;
    std::vector<size_t> tied;
    for (size_t other = task; other < near.size(); ++other)
      if (!done[other] && near[other] == near[task]) tied.push_back(other), done[other] = 1;
    std::vector<std::vector<int>> shares;
    for (size_t t : tied) shares.push_back(std::move(out[t]));
    std::sort(shares.begin(), shares.end(), [&](const auto& a, const auto& b) { return first(a) < first(b); });
    for (size_t k = 0; k < tied.size(); ++k) out[tied[k]] = std::move(shares[k]);
  }
}

}  // namespace

std::vector<std::vector<int>> split_tasks_near(const Tree& t, const std::vector<int>& sizes,
                                               const std::vector<CpuSet>& near) {
  std::vector<int> order = compact_order(t, t.root);
  std::vector<char> taken(t.nodes.size(), 0);
  std::vector<size_t> position(t.nodes.size(), 0);
  for (size_t i = 0; i < order.size(); ++i) position[order[i]] = i;
  std::vector<std::vector<int>> out(near.size());
  for (size_t task = 0; task < near.size(); ++task) {
    const CpuSet& n = near[task];
    auto inside = [&](int slot) {
      for (unsigned pu : t.nodes[slot].pus)
        if (!n.has(pu)) return false;
      return true;
    };
    // Domains holding a near slot; a slot's distance is the levels up to one.
    std::vector<char> holds(t.nodes.size(), 0);
    for (int s : order)
      if (inside(s))
        for (int d = s; d >= 0 && !holds[d]; d = t.nodes[d].parent) holds[d] = 1;
    std::vector<std::pair<int, size_t>> free;  // (distance, compact position)
    for (size_t i = 0; i < order.size(); ++i) {
      if (taken[order[i]]) continue;
      int distance = 0;
      for (int d = order[i]; d >= 0 && !holds[d]; d = t.nodes[d].parent) ++distance;
      free.emplace_back(distance, i);
    }
    std::stable_sort(free.begin(), free.end());
    size_t size = task < sizes.size() ? static_cast<size_t>(sizes[task]) : 0;
    for (size_t k = 0; k < size && k < free.size(); ++k) {
      out[task].push_back(order[free[k].second]);
      taken[order[free[k].second]] = 1;
    }
    // A share keeps compact order inside, whatever order it was taken in.
    std::sort(out[task].begin(), out[task].end(), [&](int a, int b) { return position[a] < position[b]; });
  }
  keep_node_order_in_ties(near, position, out);
  return out;
}

namespace {

// The child of `node` whose subtree holds `slot`.
size_t child_holding(const Tree& t, int node, int slot) {
  int d = slot;
  while (t.nodes[d].parent != node) d = t.nodes[d].parent;
  const std::vector<int>& c = t.nodes[node].children;
  return static_cast<size_t>(std::find(c.begin(), c.end(), d) - c.begin());
}

// Scatter: the shares `shares` (indices into `even`, in compact order) go
// to `tasks` dealt round-robin over `node`'s children, each child taking as
// many tasks as it holds shares (a share is held by the child of its first
// slot), and so on down, as Slurm's cyclic distribution deals tasks.
void deal(const Tree& t, int node, const std::vector<int>& tasks, const std::vector<int>& shares,
          const std::vector<std::vector<int>>& even, std::vector<std::vector<int>>& out) {
  const Domain& d = t.nodes[node];
  if (tasks.size() == 1 || d.is_slot()) {
    for (size_t i = 0; i < tasks.size(); ++i) out[tasks[i]] = even[shares[i]];
    return;
  }
  std::vector<std::vector<int>> held(d.children.size()), per_child(d.children.size());
  for (int s : shares) held[child_holding(t, node, even[s][0])].push_back(s);
  size_t next = 0;
  for (size_t c = 0; next < tasks.size(); c = (c + 1) % d.children.size())
    if (per_child[c].size() < held[c].size()) per_child[c].push_back(tasks[next++]);
  for (size_t c = 0; c < d.children.size(); ++c)
    if (!per_child[c].empty()) deal(t, d.children[c], per_child[c], held[c], even, out);
}

}  // namespace

std::vector<std::vector<int>> split_tasks(const Tree& t, int tasks, TaskLayout layout, bool cores_whole) {
  std::vector<std::vector<int>> even = split_tasks_evenly(t, tasks, cores_whole);
  if (layout == TaskLayout::kCompact) return even;
  for (const auto& share : even)
    if (share.empty()) return even;  // more tasks than slots: they share, in order
  std::vector<int> ids(tasks);
  for (int i = 0; i < tasks; ++i) ids[i] = i;
  std::vector<std::vector<int>> out(tasks);
  deal(t, t.root, ids, ids, even, out);
  return out;
}

}  // namespace slurmpin
