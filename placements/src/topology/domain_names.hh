// SPDX-License-Identifier: GPL-2.0-or-later
// Where a binding slot sits, named for people: "Package#1 L3#1 L2#2 Core#5",
// each kind with its logical index among the tree's domains of that kind.
#pragma once
#include <map>
#include <string>
#include <vector>

#include "topology/topology.hh"

namespace slurmpin {

class DomainNames {
 public:
  explicit DomainNames(const Tree& t);
  // The domains above `slot` and itself, outermost first; the machine left out.
  std::string path(int slot) const;

 private:
  const Tree& t_;
  std::vector<std::map<std::string, int>> index_;  // per node: kind -> logical index
};

}  // namespace slurmpin
