// SPDX-License-Identifier: GPL-2.0-or-later
// What `slurm-pin profile` checks before it runs anything, so that a
// profile is never lost after a long run to something knowable up front:
// where it will be written, whether the binary suits the backend, and
// whether the job can ever start.
#pragma once
#include <string>
#include <vector>

namespace slurmpin {

// The store (or --output's directory) must be writable by the caller.
void check_destination(const std::string& store, const std::string& output);

// An ELF binary must be instrumented for the compiler backend (and linked
// with slurm-pin's runtime, not libtsan), and not for valgrind, whose
// Valgrind must be able to read its debug info (Valgrind before 3.20 and
// clang's default DWARF 5 since clang 14). `valgrind_version`: "3.19.0", "" unknown.
// Not ELF (a script): nothing to check.
void check_binary(const std::string& backend, const std::string& program, const std::string& valgrind_version);

// Which MPI library an ELF program needs (its DT_NEEDED names, read by
// common/mpi_program.h): "openmpi" (libmpi.so.N), "mpich" (libmpich.so.N),
// "" for none or not ELF.
std::string mpi_library_of(const std::string& program);

// A job asking `cpus` CPUs per task must fit a node: of the current
// allocation (`cpus_on_node`, 0 unknown), else the largest of
// `node_cpus` (sinfo's CPUs per node of the partition). 0 entries: unknown.
void check_cpus(int cpus, int cpus_on_node, const std::vector<int>& node_cpus, const std::string& partition);

}  // namespace slurmpin
