// SPDX-License-Identifier: GPL-2.0-or-later
#include "strategies/task_split.hh"

#include <algorithm>

#include "strategies/orders.hh"

namespace slurmpin {

namespace {

void blocks(const Tree& t, int node, const std::vector<int>& tasks, int share,
            std::vector<std::vector<int>>& out) {
  std::vector<int> order = compact_order(t, node);
  for (size_t i = 0; i < tasks.size(); ++i)
    out[tasks[i]].assign(order.begin() + i * share, order.begin() + (i + 1) * share);
}

void deal(const Tree& t, int node, const std::vector<int>& tasks, int share,
          std::vector<std::vector<int>>& out) {
  const Domain& d = t.nodes[node];
  if (tasks.size() == 1 || d.is_slot()) return blocks(t, node, tasks, share, out);
  std::vector<int> room;
  size_t total_room = 0;
  for (int c : d.children) {
    room.push_back(t.nodes[c].slots / share);
    total_room += room.back();
  }
  // No child can hold the tasks whole: keep them together here.
  if (total_room < tasks.size()) return blocks(t, node, tasks, share, out);
  std::vector<std::vector<int>> per_child(d.children.size());
  size_t next = 0;
  for (size_t c = 0; next < tasks.size(); c = (c + 1) % d.children.size())
    if (static_cast<int>(per_child[c].size()) < room[c]) per_child[c].push_back(tasks[next++]);
  for (size_t c = 0; c < d.children.size(); ++c)
    if (!per_child[c].empty()) deal(t, d.children[c], per_child[c], share, out);
}

}  // namespace

std::vector<std::vector<int>> split_tasks_near(const Tree& t, int share,
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
    for (size_t k = 0; k < static_cast<size_t>(share) && k < free.size(); ++k) {
      out[task].push_back(order[free[k].second]);
      taken[order[free[k].second]] = 1;
    }
    // A share keeps compact order inside, whatever order it was taken in.
    std::sort(out[task].begin(), out[task].end(), [&](int a, int b) { return position[a] < position[b]; });
  }
  return out;
}

std::vector<std::vector<int>> split_tasks(const Tree& t, int tasks, int share, TaskLayout layout) {
  std::vector<std::vector<int>> out(tasks);
  std::vector<int> ids(tasks);
  for (int i = 0; i < tasks; ++i) ids[i] = i;
  if (layout == TaskLayout::kCompact) blocks(t, t.root, ids, share, out);
  else deal(t, t.root, ids, share, out);
  return out;
}

}  // namespace slurmpin
