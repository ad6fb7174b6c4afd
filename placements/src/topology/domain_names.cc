// SPDX-License-Identifier: GPL-2.0-or-later
#include "topology/domain_names.hh"

namespace slurmpin {

namespace {

// The tree's nodes in depth-first order, children in order: hwloc's
// logical order, which the indices follow.
std::vector<int> preorder(const Tree& t) {
  std::vector<int> out, stack{t.root};
  while (!stack.empty()) {
    int n = stack.back();
    stack.pop_back();
    out.push_back(n);
    const auto& c = t.nodes[n].children;
    for (auto it = c.rbegin(); it != c.rend(); ++it) stack.push_back(*it);
  }
  return out;
}

}  // namespace

DomainNames::DomainNames(const Tree& t) : t_(t), index_(t.nodes.size()) {
  std::map<std::string, int> next;
  for (int n : preorder(t))
    for (const auto& k : t.nodes[n].kinds) index_[n][k] = next[k]++;
}

std::string DomainNames::path(int slot) const {
  std::vector<std::string> parts;
  for (int n = slot; n >= 0; n = t_.nodes[n].parent)
    for (auto it = t_.nodes[n].kinds.rbegin(); it != t_.nodes[n].kinds.rend(); ++it)
      if (*it != "Machine") parts.push_back(*it + "#" + std::to_string(index_[n].at(*it)));
  std::string s;
  for (auto it = parts.rbegin(); it != parts.rend(); ++it) s += (s.empty() ? "" : " ") + *it;
  return s;
}

}  // namespace slurmpin
