// SPDX-License-Identifier: GPL-2.0-or-later
#include "mpi_rank.hh"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>

#include "task_env.h"

namespace slurmpin {

namespace {

// A non-negative number, or -1.
int number(const char* text) {
  if (!text || !*text || std::strlen(text) > 7 || std::strspn(text, "0123456789") != std::strlen(text)) return -1;
  return std::atoi(text);
}

// The cpuset cgroup of this process (v1 controller, else v2 unified), or "".
std::string cgroup_cpus() {
  std::ifstream f("/proc/self/cgroup");
  std::string line;
  while (std::getline(f, line)) {
    // "N:cpuset:/path" (v1) or "0::/path" (v2)
    size_t a = line.find(':'), b = line.find(':', a + 1);
    if (a == std::string::npos || b == std::string::npos) continue;
    std::string controllers = line.substr(a + 1, b - a - 1), path = line.substr(b + 1);
    std::string file;
    if (controllers == "cpuset") file = "/sys/fs/cgroup/cpuset" + path + "/cpuset.cpus";
    else if (controllers.empty()) file = "/sys/fs/cgroup" + path + "/cpuset.cpus.effective";
    else continue;
    // A kernel file (its size reads as 0, so read it as a stream).
    std::ifstream cpus(file);
    std::string text;
    if (!std::getline(cpus, text)) continue;
    while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
    if (!text.empty()) return text;
  }
  return "";
}

}  // namespace

MpiRank find_mpi_rank() {
  static const char* const pairs[][4] = {
      {"OMPI_COMM_WORLD_LOCAL_RANK", "OMPI_COMM_WORLD_LOCAL_SIZE", "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE"},
      {"MPI_LOCALRANKID", "MPI_LOCALNRANKS", "PMI_RANK", "PMI_SIZE"},
      {"PMIX_LOCAL_RANK", "PMIX_LOCAL_SIZE", "PMIX_RANK", "PMIX_SIZE"},
  };
  MpiRank r;
  for (const auto& p : pairs) {
    int local = number(std::getenv(p[0])), size = number(std::getenv(p[1]));
    if (local < 0 || size <= 0 || local >= size) continue;
    r.local_rank = local;
    r.local_size = size;
    const char* rank = std::getenv(p[2]);
    r.rank = rank && number(rank) >= 0 ? rank : "";
    r.world_size = std::max(number(std::getenv(p[3])), 0);
    return r;
  }
  return r;
}

std::string node_cpus_for_ranks() {
  if (const char* cpus = std::getenv(SP_ENV_NODE_CPUS)) {
    if (*cpus) return cpus;
  }
  return cgroup_cpus();  // "" : the CPUs this process may use
}

}  // namespace slurmpin
