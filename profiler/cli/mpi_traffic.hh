// SPDX-License-Identifier: GPL-2.0-or-later
// slurm-pin profile --mpi: the ranks' traffic, recorded by slurm-pin's PMPI
// library (profiler/mpi/) in each rank and read back into a profile's rank
// section (docs/formats.md).
#pragma once
#include <string>
#include <vector>

#include "sharing/profile.hh"
#include "work_dir.hh"

namespace slurmpin {

// The MPI library of the command's program: `forced` ("openmpi", "mpich")
// when given, else the first word of `command` that is an executable linked
// with an MPI (so `mpiexec -n 4 ./app` finds ./app). Throws Error naming
// the fix when none is found. `program` and `word` get that executable and
// its place in `command` (the first word when none is linked with an MPI).
std::string mpi_of_command(const std::vector<std::string>& command, const std::string& forced,
                           std::string* program = nullptr, size_t* word = nullptr);

// The recording library for `mpi` under `libdir`; throws Error when absent.
std::string mpi_library_path(const std::string& libdir, const std::string& mpi);

// The variables a run needs to record into `dir`: the library preloaded
// (before what LD_PRELOAD already holds) and the rows' directory.
std::vector<std::string> mpi_record_env(const std::string& library, const std::string& dir);

// What the ranks wrote into `dir` (rank.0 .. rank.N-1, each N values per
// model; each a regular file of the caller's own: work_dir.hh), as a
// profile's rank section: ranks, rank_matrix bytes and messages (edges
// beyond 256 ranks), rank_collective_share. `hosts` gets each rank's host.
// Throws Error naming the file and the problem.
void read_rank_rows(const WorkDir& dir, Profile& p, std::vector<std::string>* hosts = nullptr);

// Leaves out of `p` the threads the MPI library and its transports start
// (their start routine in libucs, libopen-pal, libpmix...: progress and
// event threads, not the application's), which every rank has besides the
// threads it was asked for. Returns their start routines.
std::vector<std::string> drop_mpi_runtime_threads(Profile& p);

}  // namespace slurmpin
