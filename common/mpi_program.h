/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Which MPI a program is linked with, from its ELF dynamic section (its
 * DT_NEEDED names, not a search of the whole file): what the traffic
 * recorder preloaded into a rank must match (libslurm_pin_mpi_openmpi.so
 * or _mpich.so; each needs its own MPI's symbols). Read as the user, in
 * the task's own process. Every read is bounded by the file's headers,
 * whose counts are bounded here.
 */
#ifndef SLURM_PIN_MPI_PROGRAM_H
#define SLURM_PIN_MPI_PROGRAM_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

enum mpi_kind { MPI_KIND_NONE = 0, MPI_KIND_OPENMPI = 1, MPI_KIND_MPICH = 2 };

/* The MPI `path` needs directly (libmpi.so.N: Open MPI; libmpich.so.N or
 * libmpi.so.12 from MPICH's libmpich: MPICH), MPI_KIND_NONE for an ELF
 * program that needs neither, or for anything else (a script); -1 with
 * errno when it cannot be read. */
int mpi_program_kind(const char *path);

/* "openmpi", "mpich" or "" */
const char *mpi_kind_name(int kind);

#ifdef __cplusplus
}
#endif

#endif
