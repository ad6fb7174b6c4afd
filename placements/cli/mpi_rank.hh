// SPDX-License-Identifier: GPL-2.0-or-later
// An MPI rank's place among the ranks of its node, as its launcher tells it
// (Open MPI and PRRTE, MPICH and Intel MPI's hydra), and the CPUs the
// node's ranks share: what `slurm-pin run` needs to place a rank as the
// SPANK plugin places the tasks of an srun step.
#pragma once
#include <string>

namespace slurmpin {

struct MpiRank {
  int local_rank = -1;  // -1: not started by an MPI launcher
  int local_size = 0;
  std::string rank;     // the job-wide rank, for messages ("" when unknown)
  int world_size = 0;   // the job's ranks (OMPI_COMM_WORLD_SIZE, PMI_SIZE); 0 unknown
};

// The calling process's rank from its environment: OMPI_COMM_WORLD_LOCAL_RANK
// and _LOCAL_SIZE (Open MPI, PRRTE), MPI_LOCALRANKID and MPI_LOCALNRANKS
// (hydra), PMIX_LOCAL_RANK and PMIX_LOCAL_SIZE. local_rank -1 when none
// holds a consistent pair.
MpiRank find_mpi_rank();

// The CPUs the node's ranks share: SLURM_PIN_NODE_CPUS (the plugin gives
// it), else this process's cpuset cgroup (a launcher may have bound the
// process itself to one core), else the CPUs the process may use.
std::string node_cpus_for_ranks();

}  // namespace slurmpin
