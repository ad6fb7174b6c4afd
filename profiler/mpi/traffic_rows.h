/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What one MPI rank sent to every other rank, for slurm-pin profile --mpi.
 * Each rank counts only what it sends (a message is counted once, at its
 * sender, whoever receives it and however: probe, wildcard or matched
 * probe), in MPI_COMM_WORLD ranks, and writes its row at MPI_Finalize into
 * the directory in SLURM_PIN_MPI_DIR; slurm-pin profile reads the rows back
 * into the rank x rank matrix. Built once per MPI library (MPI handles are
 * not portable between them). */
#ifndef SLURM_PIN_TRAFFIC_ROWS_H
#define SLURM_PIN_TRAFFIC_ROWS_H

#include <mpi.h>
#include <stdint.h>

/* Starts counting once MPI is up (after PMPI_Init*): sizes the row to the
 * world. Without SLURM_PIN_MPI_DIR nothing is counted. */
void traffic_start(void);

/* Writes this rank's row (before PMPI_Finalize). */
void traffic_finish(void);

/* Whether counting is on: the wrappers skip all work otherwise. */
int traffic_on(void);

/* `count` elements of `type` sent to rank `dest` of `comm` (its remote
 * group for an intercommunicator) as `messages` messages; `collective`
 * marks bytes a collective moved by the model (docs/profiler.md).
 * MPI_PROC_NULL and ranks outside the world are ignored. */
void traffic_send(MPI_Comm comm, int dest, int count, MPI_Datatype type, int collective);

/* The same with the size already in bytes. */
void traffic_send_bytes(MPI_Comm comm, int dest, uint64_t bytes, uint64_t messages, int collective);

/* This process's rank in `comm` and the size of `comm`; 0 when `comm` is an
 * intercommunicator (collectives on those are not counted). */
int traffic_members(MPI_Comm comm, int* rank, int* size);

/* Bytes of `count` elements of `type`; 0 for a type MPI does not know. */
uint64_t traffic_bytes(int count, MPI_Datatype type);

/* `bytes` moved between this rank and rank `target` of window `win`'s group
 * by a one-sided call, counted at the origin whichever way they go. */
void traffic_window_bytes(MPI_Win win, int target, uint64_t bytes);

/* The ranks of `comm` this process sends to in a neighbourhood collective,
 * in MPI's order (Cartesian: each dimension's lower then upper neighbour,
 * MPI_PROC_NULL where there is none; graphs: the neighbours, or the
 * destinations of a distributed graph), in a malloc'd array the caller
 * frees; returns their count, 0 for a communicator without a topology. */
int traffic_neighbors(MPI_Comm comm, int** dest);

/* Persistent sends: counted at each MPI_Start. */
void traffic_persistent_add(MPI_Request req, MPI_Comm comm, int dest, int count, MPI_Datatype type);
void traffic_persistent_start(MPI_Request req);
void traffic_persistent_free(MPI_Request req);

#endif
