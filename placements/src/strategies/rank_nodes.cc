// SPDX-License-Identifier: GPL-2.0-or-later
#include "strategies/rank_nodes.hh"

#include <algorithm>
#include <string>

#include "error.hh"
#include "strategies/partition.hh"

namespace slurmpin {

namespace {

// Slurm's block distribution: the first ranks % nodes nodes one rank more.
std::vector<int> block_sizes(int ranks, int nodes) {
  std::vector<int> size(static_cast<size_t>(nodes), ranks / nodes);
  for (int n = 0; n < ranks % nodes; ++n) ++size[static_cast<size_t>(n)];
  return size;
}

// Traffic between ranks on different nodes (the matrix's floor included):
// one pass over the pairs.
double crossing(const SharingMatrix& w, const std::vector<int>& node_of) {
  double s = 0;
  for (int i = 0; i < w.size(); ++i)
    for (int j = i + 1; j < w.size(); ++j)
      if (node_of[static_cast<size_t>(i)] != node_of[static_cast<size_t>(j)]) s += w(i, j);
  return s;
}

// Parts renamed after nodes: part p goes to the node of the same size
// holding most of its ranks in block order (greedy, largest overlap first),
// so equal-cost answers stay close to block order.
std::vector<int> name_parts(const std::vector<int>& part, const std::vector<int>& block, const std::vector<int>& size) {
  size_t n = size.size();
  std::vector<std::vector<int>> overlap(n, std::vector<int>(n, 0));
  for (size_t r = 0; r < part.size(); ++r) ++overlap[static_cast<size_t>(part[r])][static_cast<size_t>(block[r])];
  std::vector<int> node_of_part(n, -1);
  std::vector<bool> taken(n, false);
  for (size_t done = 0; done < n; ++done) {
    int best = -1;
    size_t bp = 0, bn = 0;
    for (size_t p = 0; p < n; ++p)
      for (size_t q = 0; q < n; ++q)
        if (node_of_part[p] < 0 && !taken[q] && size[p] == size[q] && overlap[p][q] > best)
          best = overlap[p][q], bp = p, bn = q;
    node_of_part[bp] = static_cast<int>(bn);
    taken[bn] = true;
  }
  std::vector<int> out(part.size());
  for (size_t r = 0; r < part.size(); ++r) out[r] = node_of_part[static_cast<size_t>(part[r])];
  return out;
}

}  // namespace

RankNodes ranks_to_nodes(const SharingMatrix& traffic, int nodes, uint64_t seed) {
  int ranks = traffic.size();
  if (nodes < 1 || ranks < nodes)
    throw Error(std::to_string(ranks) + " ranks cannot run on " + std::to_string(nodes) +
                " nodes: give at least one rank per node");
  std::vector<int> size = block_sizes(ranks, nodes), block(static_cast<size_t>(ranks)),
                   cyclic(static_cast<size_t>(ranks));
  for (int r = 0, n = 0, left = size[0]; r < ranks; ++r) {
    if (left == 0) left = size[static_cast<size_t>(++n)];
    block[static_cast<size_t>(r)] = n, --left;
    cyclic[static_cast<size_t>(r)] = r % nodes;
  }
  RankNodes out;
  out.total = traffic.total();
  out.block = crossing(traffic, block);
  out.cyclic = crossing(traffic, cyclic);
  if (nodes == 1 || traffic.all_zero()) {
    out.node_of = block;
  } else {
    std::vector<int> part = partition_items(traffic, std::vector<int>(static_cast<size_t>(ranks), 1), size, seed);
    out.node_of = name_parts(part, block, size);
    // Never worse than Slurm's own orders.
    if (crossing(traffic, out.node_of) > out.block) out.node_of = block;
  }
  out.crossing = crossing(traffic, out.node_of);
  return out;
}

}  // namespace slurmpin
