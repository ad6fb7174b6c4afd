// SPDX-License-Identifier: GPL-2.0-or-later
// Which MPI a program needs (common/mpi_program.h), read from whatever file
// a user's job names: any bytes end in a kind or "none", within the
// headers' bounds, never past what was read.
#include <sys/mman.h>
#include <unistd.h>

#include <cstdio>

#include "fuzz_support.hh"

extern "C" {
#include "mpi_program.h"
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static int fd = memfd_create("fuzz_mpi_program", 0);
  if (fd < 0 || ftruncate(fd, 0) != 0 || pwrite(fd, data, size, 0) != static_cast<ssize_t>(size)) return 0;
  char path[64];
  std::snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
  int kind = mpi_program_kind(path);
  if (kind != MPI_KIND_NONE && kind != MPI_KIND_OPENMPI && kind != MPI_KIND_MPICH) __builtin_trap();
  return 0;
}
