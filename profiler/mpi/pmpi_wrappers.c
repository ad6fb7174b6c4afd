/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The MPI calls slurm-pin profile --mpi counts (PMPI interposition, loaded
 * with LD_PRELOAD). Point-to-point sends are counted as sent. Collectives
 * are counted as the data each member must send to the others for the
 * call's result, whatever algorithm the library runs (docs/profiler.md,
 * "MPI traffic"): rooted ones between the root and each member, all-to-all
 * ones block by block, reductions to all (Allreduce) spread evenly as a
 * reduce-scatter and an allgather move them, scans along the rank order,
 * neighbourhood collectives block by block to each destination. One-sided
 * calls are counted at the origin, whichever way the data goes.
 * Collectives on intercommunicators, barriers and the large-count (_c)
 * calls are not counted. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "traffic_rows.h"

/* --- the collective model, each member counting what it sends ---------- */

/* Every member but the root sends `bytes` to the root. */
static void to_root(MPI_Comm comm, int root, uint64_t bytes) {
  int me, n;
  if (traffic_on() && traffic_members(comm, &me, &n) && me != root) traffic_send_bytes(comm, root, bytes, 1, 1);
}

/* The root sends `counts[j]` (or `count`, when counts is NULL) elements of
 * `type` to every other member j. */
static void from_root(MPI_Comm comm, int root, const int* counts, int count, MPI_Datatype type) {
  int me, n;
  if (!traffic_on() || !traffic_members(comm, &me, &n) || me != root) return;
  for (int j = 0; j < n; ++j)
    if (j != me) traffic_send_bytes(comm, j, traffic_bytes(counts ? counts[j] : count, type), 1, 1);
}

/* This member sends `bytes` and `messages` to every other member. */
static void to_all(MPI_Comm comm, uint64_t bytes, uint64_t messages) {
  int me, n;
  if (!traffic_on() || !traffic_members(comm, &me, &n)) return;
  for (int j = 0; j < n; ++j)
    if (j != me) traffic_send_bytes(comm, j, bytes, messages, 1);
}

/* This member sends counts[j] elements of types[j] (or `type`) to each j. */
static void to_each(MPI_Comm comm, const int* counts, const MPI_Datatype* types, MPI_Datatype type) {
  int me, n;
  if (!traffic_on() || !traffic_members(comm, &me, &n)) return;
  for (int j = 0; j < n; ++j)
    if (j != me) traffic_send_bytes(comm, j, traffic_bytes(counts[j], types ? types[j] : type), 1, 1);
}

/* A reduction to all: n members' data, reduce-scattered then gathered,
 * moves 2 (n - 1) / n of it from each member, spread over the others. */
static void allreduce(MPI_Comm comm, int count, MPI_Datatype type) {
  int me, n;
  if (traffic_on() && traffic_members(comm, &me, &n) && n > 1) to_all(comm, 2 * traffic_bytes(count, type) / n, 2);
}

/* A scan: each member's partial result goes to the next. */
static void scan(MPI_Comm comm, int count, MPI_Datatype type) {
  int me, n;
  if (traffic_on() && traffic_members(comm, &me, &n) && me + 1 < n)
    traffic_send_bytes(comm, me + 1, traffic_bytes(count, type), 1, 1);
}

/* What a member contributes to an allgather or all-to-all block: its send
 * arguments, or its receive ones when it sends in place. */
static uint64_t own_block(const void* sendbuf, int scount, MPI_Datatype stype, int rcount, MPI_Datatype rtype) {
  return sendbuf == MPI_IN_PLACE ? traffic_bytes(rcount, rtype) : traffic_bytes(scount, stype);
}

static void gatherv_block(const void* sendbuf, int scount, MPI_Datatype stype, int root, MPI_Comm comm) {
  if (sendbuf != MPI_IN_PLACE) to_root(comm, root, traffic_bytes(scount, stype));
}

static void alltoallv_blocks(const void* sendbuf, const int* scounts, MPI_Datatype stype, const int* rcounts,
                             MPI_Datatype rtype, MPI_Comm comm) {
  if (sendbuf == MPI_IN_PLACE) to_each(comm, rcounts, NULL, rtype);
  else to_each(comm, scounts, NULL, stype);
}

static void reduce_scatter_block(MPI_Comm comm, int count, MPI_Datatype type) {
  to_all(comm, traffic_bytes(count, type), 1);
}

/* --- start and end ------------------------------------------------------- */

int MPI_Init(int* argc, char*** argv) {
  int rc = PMPI_Init(argc, argv);
  if (rc == MPI_SUCCESS) traffic_start();
  return rc;
}

int MPI_Init_thread(int* argc, char*** argv, int required, int* provided) {
  int rc = PMPI_Init_thread(argc, argv, required, provided);
  if (rc == MPI_SUCCESS) traffic_start();
  return rc;
}

int MPI_Finalize(void) {
  traffic_finish();
  return PMPI_Finalize();
}

/* --- point to point ------------------------------------------------------ */

#define BLOCKING_SEND(name)                                                                           \
  int MPI_##name(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm) {   \
    traffic_send(comm, dest, count, type, 0);                                                         \
    return PMPI_##name(buf, count, type, dest, tag, comm);                                            \
  }
BLOCKING_SEND(Send)
BLOCKING_SEND(Bsend)
BLOCKING_SEND(Ssend)
BLOCKING_SEND(Rsend)

#define NONBLOCKING_SEND(name)                                                                          \
  int MPI_##name(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,       \
                 MPI_Request* req) {                                                                    \
    traffic_send(comm, dest, count, type, 0);                                                           \
    return PMPI_##name(buf, count, type, dest, tag, comm, req);                                         \
  }
NONBLOCKING_SEND(Isend)
NONBLOCKING_SEND(Ibsend)
NONBLOCKING_SEND(Issend)
NONBLOCKING_SEND(Irsend)

/* Persistent sends count at each start, not at their creation. */
#define PERSISTENT_SEND(name)                                                                           \
  int MPI_##name(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,       \
                 MPI_Request* req) {                                                                    \
    int rc = PMPI_##name(buf, count, type, dest, tag, comm, req);                                       \
    if (rc == MPI_SUCCESS) traffic_persistent_add(*req, comm, dest, count, type);                       \
    return rc;                                                                                          \
  }
PERSISTENT_SEND(Send_init)
PERSISTENT_SEND(Bsend_init)
PERSISTENT_SEND(Ssend_init)
PERSISTENT_SEND(Rsend_init)

int MPI_Start(MPI_Request* req) {
  traffic_persistent_start(*req);
  return PMPI_Start(req);
}

int MPI_Startall(int n, MPI_Request reqs[]) {
  for (int i = 0; i < n; ++i) traffic_persistent_start(reqs[i]);
  return PMPI_Startall(n, reqs);
}

int MPI_Request_free(MPI_Request* req) {
  traffic_persistent_free(*req);
  return PMPI_Request_free(req);
}

int MPI_Sendrecv(const void* sbuf, int scount, MPI_Datatype stype, int dest, int stag, void* rbuf, int rcount,
                 MPI_Datatype rtype, int source, int rtag, MPI_Comm comm, MPI_Status* status) {
  traffic_send(comm, dest, scount, stype, 0);
  return PMPI_Sendrecv(sbuf, scount, stype, dest, stag, rbuf, rcount, rtype, source, rtag, comm, status);
}

int MPI_Sendrecv_replace(void* buf, int count, MPI_Datatype type, int dest, int stag, int source, int rtag,
                         MPI_Comm comm, MPI_Status* status) {
  traffic_send(comm, dest, count, type, 0);
  return PMPI_Sendrecv_replace(buf, count, type, dest, stag, source, rtag, comm, status);
}

/* --- collectives, blocking and not ---------------------------------------- */

int MPI_Bcast(void* buf, int count, MPI_Datatype type, int root, MPI_Comm comm) {
  from_root(comm, root, NULL, count, type);
  return PMPI_Bcast(buf, count, type, root, comm);
}

int MPI_Ibcast(void* buf, int count, MPI_Datatype type, int root, MPI_Comm comm, MPI_Request* req) {
  from_root(comm, root, NULL, count, type);
  return PMPI_Ibcast(buf, count, type, root, comm, req);
}

int MPI_Reduce(const void* sbuf, void* rbuf, int count, MPI_Datatype type, MPI_Op op, int root, MPI_Comm comm) {
  to_root(comm, root, traffic_bytes(count, type));
  return PMPI_Reduce(sbuf, rbuf, count, type, op, root, comm);
}

int MPI_Ireduce(const void* sbuf, void* rbuf, int count, MPI_Datatype type, MPI_Op op, int root, MPI_Comm comm,
                MPI_Request* req) {
  to_root(comm, root, traffic_bytes(count, type));
  return PMPI_Ireduce(sbuf, rbuf, count, type, op, root, comm, req);
}

int MPI_Allreduce(const void* sbuf, void* rbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm) {
  allreduce(comm, count, type);
  return PMPI_Allreduce(sbuf, rbuf, count, type, op, comm);
}

int MPI_Iallreduce(const void* sbuf, void* rbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm,
                   MPI_Request* req) {
  allreduce(comm, count, type);
  return PMPI_Iallreduce(sbuf, rbuf, count, type, op, comm, req);
}

int MPI_Reduce_scatter_block(const void* sbuf, void* rbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm) {
  reduce_scatter_block(comm, count, type);
  return PMPI_Reduce_scatter_block(sbuf, rbuf, count, type, op, comm);
}

int MPI_Reduce_scatter(const void* sbuf, void* rbuf, const int rcounts[], MPI_Datatype type, MPI_Op op,
                       MPI_Comm comm) {
  to_each(comm, rcounts, NULL, type);
  return PMPI_Reduce_scatter(sbuf, rbuf, rcounts, type, op, comm);
}

int MPI_Scan(const void* sbuf, void* rbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm) {
  scan(comm, count, type);
  return PMPI_Scan(sbuf, rbuf, count, type, op, comm);
}

int MPI_Exscan(const void* sbuf, void* rbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm) {
  scan(comm, count, type);
  return PMPI_Exscan(sbuf, rbuf, count, type, op, comm);
}

int MPI_Gather(const void* sbuf, int scount, MPI_Datatype stype, void* rbuf, int rcount, MPI_Datatype rtype,
               int root, MPI_Comm comm) {
  gatherv_block(sbuf, scount, stype, root, comm);
  return PMPI_Gather(sbuf, scount, stype, rbuf, rcount, rtype, root, comm);
}

int MPI_Igather(const void* sbuf, int scount, MPI_Datatype stype, void* rbuf, int rcount, MPI_Datatype rtype,
                int root, MPI_Comm comm, MPI_Request* req) {
  gatherv_block(sbuf, scount, stype, root, comm);
  return PMPI_Igather(sbuf, scount, stype, rbuf, rcount, rtype, root, comm, req);
}

int MPI_Gatherv(const void* sbuf, int scount, MPI_Datatype stype, void* rbuf, const int rcounts[],
                const int displs[], MPI_Datatype rtype, int root, MPI_Comm comm) {
  gatherv_block(sbuf, scount, stype, root, comm);
  return PMPI_Gatherv(sbuf, scount, stype, rbuf, rcounts, displs, rtype, root, comm);
}

int MPI_Scatter(const void* sbuf, int scount, MPI_Datatype stype, void* rbuf, int rcount, MPI_Datatype rtype,
                int root, MPI_Comm comm) {
  from_root(comm, root, NULL, scount, stype);
  return PMPI_Scatter(sbuf, scount, stype, rbuf, rcount, rtype, root, comm);
}

int MPI_Iscatter(const void* sbuf, int scount, MPI_Datatype stype, void* rbuf, int rcount, MPI_Datatype rtype,
                 int root, MPI_Comm comm, MPI_Request* req) {
  from_root(comm, root, NULL, scount, stype);
  return PMPI_Iscatter(sbuf, scount, stype, rbuf, rcount, rtype, root, comm, req);
}

int MPI_Scatterv(const void* sbuf, const int scounts[], const int displs[], MPI_Datatype stype, void* rbuf,
                 int rcount, MPI_Datatype rtype, int root, MPI_Comm comm) {
  from_root(comm, root, scounts, 0, stype);
  return PMPI_Scatterv(sbuf, scounts, displs, stype, rbuf, rcount, rtype, root, comm);
}

int MPI_Allgather(const void* sbuf, int scount, MPI_Datatype stype, void* rbuf, int rcount, MPI_Datatype rtype,
                  MPI_Comm comm) {
  to_all(comm, own_block(sbuf, scount, stype, rcount, rtype), 1);
  return PMPI_Allgather(sbuf, scount, stype, rbuf, rcount, rtype, comm);
}

int MPI_Iallgather(const void* sbuf, int scount, MPI_Datatype stype, void* rbuf, int rcount, MPI_Datatype rtype,
                   MPI_Comm comm, MPI_Request* req) {
  to_all(comm, own_block(sbuf, scount, stype, rcount, rtype), 1);
  return PMPI_Iallgather(sbuf, scount, stype, rbuf, rcount, rtype, comm, req);
}

int MPI_Allgatherv(const void* sbuf, int scount, MPI_Datatype stype, void* rbuf, const int rcounts[],
                   const int displs[], MPI_Datatype rtype, MPI_Comm comm) {
  int me, n;
  if (traffic_on() && traffic_members(comm, &me, &n))
    to_all(comm, own_block(sbuf, scount, stype, rcounts[me], rtype), 1);
  return PMPI_Allgatherv(sbuf, scount, stype, rbuf, rcounts, displs, rtype, comm);
}

int MPI_Alltoall(const void* sbuf, int scount, MPI_Datatype stype, void* rbuf, int rcount, MPI_Datatype rtype,
                 MPI_Comm comm) {
  to_all(comm, own_block(sbuf, scount, stype, rcount, rtype), 1);
  return PMPI_Alltoall(sbuf, scount, stype, rbuf, rcount, rtype, comm);
}

int MPI_Ialltoall(const void* sbuf, int scount, MPI_Datatype stype, void* rbuf, int rcount, MPI_Datatype rtype,
                  MPI_Comm comm, MPI_Request* req) {
  to_all(comm, own_block(sbuf, scount, stype, rcount, rtype), 1);
  return PMPI_Ialltoall(sbuf, scount, stype, rbuf, rcount, rtype, comm, req);
}

int MPI_Alltoallv(const void* sbuf, const int scounts[], const int sdispls[], MPI_Datatype stype, void* rbuf,
                  const int rcounts[], const int rdispls[], MPI_Datatype rtype, MPI_Comm comm) {
  alltoallv_blocks(sbuf, scounts, stype, rcounts, rtype, comm);
  return PMPI_Alltoallv(sbuf, scounts, sdispls, stype, rbuf, rcounts, rdispls, rtype, comm);
}

int MPI_Ialltoallv(const void* sbuf, const int scounts[], const int sdispls[], MPI_Datatype stype, void* rbuf,
                   const int rcounts[], const int rdispls[], MPI_Datatype rtype, MPI_Comm comm, MPI_Request* req) {
  alltoallv_blocks(sbuf, scounts, stype, rcounts, rtype, comm);
  return PMPI_Ialltoallv(sbuf, scounts, sdispls, stype, rbuf, rcounts, rdispls, rtype, comm, req);
}

int MPI_Alltoallw(const void* sbuf, const int scounts[], const int sdispls[], const MPI_Datatype stypes[],
                  void* rbuf, const int rcounts[], const int rdispls[], const MPI_Datatype rtypes[], MPI_Comm comm) {
  if (sbuf == MPI_IN_PLACE) to_each(comm, rcounts, rtypes, MPI_DATATYPE_NULL);
  else to_each(comm, scounts, stypes, MPI_DATATYPE_NULL);
  return PMPI_Alltoallw(sbuf, scounts, sdispls, stypes, rbuf, rcounts, rdispls, rtypes, comm);
}

/* --- neighbourhood collectives: each destination gets its block ----------- */

/* Block j (counts[j] elements of types[j], or `count` of `type`) to each
 * neighbour j this process sends to. */
static void to_neighbors(MPI_Comm comm, const int* counts, int count, const MPI_Datatype* types, MPI_Datatype type) {
  int* dest = NULL;
  int n = traffic_neighbors(comm, &dest);
  for (int j = 0; j < n; ++j)
    traffic_send_bytes(comm, dest[j], traffic_bytes(counts ? counts[j] : count, types ? types[j] : type), 1, 1);
  free(dest);
}

int MPI_Neighbor_allgather(const void* sbuf, int scount, MPI_Datatype stype, void* rbuf, int rcount,
                           MPI_Datatype rtype, MPI_Comm comm) {
  to_neighbors(comm, NULL, scount, NULL, stype);
  return PMPI_Neighbor_allgather(sbuf, scount, stype, rbuf, rcount, rtype, comm);
}

int MPI_Neighbor_allgatherv(const void* sbuf, int scount, MPI_Datatype stype, void* rbuf, const int rcounts[],
                            const int displs[], MPI_Datatype rtype, MPI_Comm comm) {
  to_neighbors(comm, NULL, scount, NULL, stype);
  return PMPI_Neighbor_allgatherv(sbuf, scount, stype, rbuf, rcounts, displs, rtype, comm);
}

int MPI_Neighbor_alltoall(const void* sbuf, int scount, MPI_Datatype stype, void* rbuf, int rcount,
                          MPI_Datatype rtype, MPI_Comm comm) {
  to_neighbors(comm, NULL, scount, NULL, stype);
  return PMPI_Neighbor_alltoall(sbuf, scount, stype, rbuf, rcount, rtype, comm);
}

int MPI_Neighbor_alltoallv(const void* sbuf, const int scounts[], const int sdispls[], MPI_Datatype stype, void* rbuf,
                           const int rcounts[], const int rdispls[], MPI_Datatype rtype, MPI_Comm comm) {
  to_neighbors(comm, scounts, 0, NULL, stype);
  return PMPI_Neighbor_alltoallv(sbuf, scounts, sdispls, stype, rbuf, rcounts, rdispls, rtype, comm);
}

int MPI_Neighbor_alltoallw(const void* sbuf, const int scounts[], const MPI_Aint sdispls[],
                           const MPI_Datatype stypes[], void* rbuf, const int rcounts[], const MPI_Aint rdispls[],
                           const MPI_Datatype rtypes[], MPI_Comm comm) {
  to_neighbors(comm, scounts, 0, stypes, MPI_DATATYPE_NULL);
  return PMPI_Neighbor_alltoallw(sbuf, scounts, sdispls, stypes, rbuf, rcounts, rdispls, rtypes, comm);
}

int MPI_Ineighbor_alltoall(const void* sbuf, int scount, MPI_Datatype stype, void* rbuf, int rcount,
                           MPI_Datatype rtype, MPI_Comm comm, MPI_Request* req) {
  to_neighbors(comm, NULL, scount, NULL, stype);
  return PMPI_Ineighbor_alltoall(sbuf, scount, stype, rbuf, rcount, rtype, comm, req);
}

int MPI_Ineighbor_alltoallv(const void* sbuf, const int scounts[], const int sdispls[], MPI_Datatype stype,
                            void* rbuf, const int rcounts[], const int rdispls[], MPI_Datatype rtype, MPI_Comm comm,
                            MPI_Request* req) {
  to_neighbors(comm, scounts, 0, NULL, stype);
  return PMPI_Ineighbor_alltoallv(sbuf, scounts, sdispls, stype, rbuf, rcounts, rdispls, rtype, comm, req);
}

int MPI_Ineighbor_allgather(const void* sbuf, int scount, MPI_Datatype stype, void* rbuf, int rcount,
                            MPI_Datatype rtype, MPI_Comm comm, MPI_Request* req) {
  to_neighbors(comm, NULL, scount, NULL, stype);
  return PMPI_Ineighbor_allgather(sbuf, scount, stype, rbuf, rcount, rtype, comm, req);
}

/* --- one-sided: counted at the origin, whichever way the data goes --------- */

int MPI_Put(const void* obuf, int ocount, MPI_Datatype otype, int target, MPI_Aint tdisp, int tcount,
            MPI_Datatype ttype, MPI_Win win) {
  traffic_window_bytes(win, target, traffic_bytes(ocount, otype));
  return PMPI_Put(obuf, ocount, otype, target, tdisp, tcount, ttype, win);
}

int MPI_Rput(const void* obuf, int ocount, MPI_Datatype otype, int target, MPI_Aint tdisp, int tcount,
             MPI_Datatype ttype, MPI_Win win, MPI_Request* req) {
  traffic_window_bytes(win, target, traffic_bytes(ocount, otype));
  return PMPI_Rput(obuf, ocount, otype, target, tdisp, tcount, ttype, win, req);
}

int MPI_Get(void* obuf, int ocount, MPI_Datatype otype, int target, MPI_Aint tdisp, int tcount, MPI_Datatype ttype,
            MPI_Win win) {
  traffic_window_bytes(win, target, traffic_bytes(ocount, otype));
  return PMPI_Get(obuf, ocount, otype, target, tdisp, tcount, ttype, win);
}

int MPI_Rget(void* obuf, int ocount, MPI_Datatype otype, int target, MPI_Aint tdisp, int tcount, MPI_Datatype ttype,
             MPI_Win win, MPI_Request* req) {
  traffic_window_bytes(win, target, traffic_bytes(ocount, otype));
  return PMPI_Rget(obuf, ocount, otype, target, tdisp, tcount, ttype, win, req);
}

int MPI_Accumulate(const void* obuf, int ocount, MPI_Datatype otype, int target, MPI_Aint tdisp, int tcount,
                   MPI_Datatype ttype, MPI_Op op, MPI_Win win) {
  traffic_window_bytes(win, target, traffic_bytes(ocount, otype));
  return PMPI_Accumulate(obuf, ocount, otype, target, tdisp, tcount, ttype, op, win);
}

int MPI_Get_accumulate(const void* obuf, int ocount, MPI_Datatype otype, void* rbuf, int rcount, MPI_Datatype rtype,
                       int target, MPI_Aint tdisp, int tcount, MPI_Datatype ttype, MPI_Op op, MPI_Win win) {
  traffic_window_bytes(win, target, traffic_bytes(ocount, otype) + traffic_bytes(rcount, rtype));
  return PMPI_Get_accumulate(obuf, ocount, otype, rbuf, rcount, rtype, target, tdisp, tcount, ttype, op, win);
}

int MPI_Fetch_and_op(const void* obuf, void* rbuf, MPI_Datatype type, int target, MPI_Aint tdisp, MPI_Op op,
                     MPI_Win win) {
  traffic_window_bytes(win, target, 2 * traffic_bytes(1, type));
  return PMPI_Fetch_and_op(obuf, rbuf, type, target, tdisp, op, win);
}
