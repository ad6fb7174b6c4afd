/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * MPI programs of the shapes HPC codes have, for slurm-pin profile --mpi and
 * slurm-pin evaluate:
 *   halo3d: a 3-D grid of ranks, each exchanging its six faces (N x N
 *           doubles) with its neighbours every iteration (Isend/Irecv), then
 *           a 7-point stencil on its N^3 block (OpenMP: a hybrid code when
 *           OMP_NUM_THREADS > 1), and an Allreduce of the residual every 10;
 *   ring:   each rank sends N*N doubles to the next one around a ring
 *           (persistent requests, as codes that repeat one pattern do);
 *   nhalo3d, putring: the same exchanges as one MPI_Neighbor_alltoall on
 *           the Cartesian communicator, and as MPI_Put into the next
 *           rank's window between fences (the same bytes moved).
 * The ranks' grid positions are shuffled by SEED (0: in rank order), as
 * when a code numbers its domains unlike the launcher: the grid is a
 * communicator split with the shuffled order as key, so the traffic
 * between world ranks is far from block-shaped.
 *   mpi_stencil halo3d|nhalo3d|ring|putring N ITERATIONS [SEED]
 * Rank 0 prints "time: S" (the iterations) and a checksum.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The position of each world rank in the grid: a permutation by SEED. */
static int* positions(int size, unsigned seed) {
  int* p = malloc(sizeof(int) * (size_t)size);
  for (int i = 0; i < size; ++i) p[i] = i;
  for (int i = size - 1; seed && i > 0; --i) {
    seed = seed * 1103515245u + 12345u;
    int j = (int)((seed >> 8) % (unsigned)(i + 1));
    int t = p[i];
    p[i] = p[j], p[j] = t;
  }
  return p;
}

#define AT(g, z, y, x) ((g)[((size_t)(z) * (n + 2) + (y)) * (n + 2) + (x)])

static double stencil(const double* in, double* out, int n) {
  double diff = 0;
#pragma omp parallel for reduction(+ : diff) schedule(static)
  for (int z = 1; z <= n; ++z)
    for (int y = 1; y <= n; ++y)
      for (int x = 1; x <= n; ++x) {
        double v = (AT(in, z, y, x) + AT(in, z - 1, y, x) + AT(in, z + 1, y, x) + AT(in, z, y - 1, x) +
                    AT(in, z, y + 1, x) + AT(in, z, y, x - 1) + AT(in, z, y, x + 1)) / 7.0;
        diff += (v - AT(in, z, y, x)) * (v - AT(in, z, y, x));
        AT(out, z, y, x) = v;
      }
  return diff;
}

/* Face d (0..5: -x +x -y +y -z +z) of the block, packed or unpacked; `ghost`
 * picks the ghost layer instead of the boundary one. */
static void face(double* g, double* buf, int n, int d, int ghost, int unpack) {
  int axis = d / 2, hi = d % 2, layer = hi ? (ghost ? n + 1 : n) : (ghost ? 0 : 1);
  size_t k = 0;
  for (int a = 1; a <= n; ++a)
    for (int b = 1; b <= n; ++b) {
      double* v = axis == 0 ? &AT(g, a, b, layer) : axis == 1 ? &AT(g, a, layer, b) : &AT(g, layer, a, b);
      if (unpack) *v = buf[k++];
      else buf[k++] = *v;
    }
}

/* The six faces as one neighbourhood all-to-all: MPI orders the blocks by
 * Cartesian dimension (lower, then upper neighbour); face d is axis d / 2,
 * and axis a is dimension 2 - a (x varies fastest). */
static void neighbor_exchange(MPI_Comm cart, double* out, double* in, size_t f) {
  double *sb = malloc(6 * f * sizeof(double)), *rb = malloc(6 * f * sizeof(double));
  for (int k = 0; k < 6; ++k) memcpy(sb + k * f, out + (2 * (2 - k / 2) + k % 2) * f, f * sizeof(double));
  MPI_Neighbor_alltoall(sb, (int)f, MPI_DOUBLE, rb, (int)f, MPI_DOUBLE, cart);
  for (int k = 0; k < 6; ++k) memcpy(in + (2 * (2 - k / 2) + k % 2) * f, rb + k * f, f * sizeof(double));
  free(sb), free(rb);
}

static double halo3d(MPI_Comm grid, int n, int iterations, int neighbor) {
  int size, rank, dims[3] = {0, 0, 0}, periods[3] = {1, 1, 1}, nb[6];
  MPI_Comm_size(grid, &size);
  MPI_Dims_create(size, 3, dims);
  MPI_Comm cart;
  MPI_Cart_create(grid, 3, dims, periods, 0, &cart);
  MPI_Comm_rank(cart, &rank);
  for (int axis = 0; axis < 3; ++axis) MPI_Cart_shift(cart, 2 - axis, 1, &nb[2 * axis], &nb[2 * axis + 1]);
  size_t cells = (size_t)(n + 2) * (n + 2) * (n + 2), f = (size_t)n * n;
  double *a = calloc(cells, sizeof(double)), *b = calloc(cells, sizeof(double));
  double *out = malloc(6 * f * sizeof(double)), *in = malloc(6 * f * sizeof(double));
  for (size_t i = 0; i < cells; ++i) a[i] = (double)((i * 7 + (size_t)rank * 13) % 101);
  double residual = 0;
  for (int it = 0; it < iterations; ++it) {
    MPI_Request req[12];
    MPI_Status st[12]; /* not MPI_STATUSES_IGNORE: gcc 12 misreads MPICH's as an empty array */
    for (int d = 0; d < 6; ++d) face(a, out + d * f, n, d, 0, 0);
    if (neighbor) {
      neighbor_exchange(cart, out, in, f);
    } else {
      for (int d = 0; d < 6; ++d) {
        MPI_Irecv(in + d * f, (int)f, MPI_DOUBLE, nb[d], d ^ 1, cart, &req[d]);
        MPI_Isend(out + d * f, (int)f, MPI_DOUBLE, nb[d], d, cart, &req[6 + d]);
      }
      MPI_Waitall(12, req, st);
    }
    for (int d = 0; d < 6; ++d) face(a, in + d * f, n, d, 1, 1);
    double diff = stencil(a, b, n);
    double* t = a;
    a = b, b = t;
    if (it % 10 == 9) MPI_Allreduce(&diff, &residual, 1, MPI_DOUBLE, MPI_SUM, cart);
  }
  double sum = 0;
  for (size_t i = 0; i < cells; ++i) sum += a[i];
  MPI_Comm_free(&cart);
  free(a), free(b), free(out), free(in);
  return sum + residual;
}

/* The ring through a window: each rank puts its block into the next rank's. */
static double putring(MPI_Comm grid, int n, int iterations) {
  int size, rank;
  MPI_Comm_size(grid, &size);
  MPI_Comm_rank(grid, &rank);
  size_t f = (size_t)n * n;
  double *out = malloc(f * sizeof(double)), *in, sum = 0;
  MPI_Win win;
  MPI_Win_allocate((MPI_Aint)(f * sizeof(double)), sizeof(double), MPI_INFO_NULL, grid, &in, &win);
  for (size_t i = 0; i < f; ++i) out[i] = (double)(rank + (int)i % 7);
  for (int it = 0; it < iterations; ++it) {
    MPI_Win_fence(0, win);
    MPI_Put(out, (int)f, MPI_DOUBLE, (rank + 1) % size, 0, (int)f, MPI_DOUBLE, win);
    MPI_Win_fence(0, win);
    for (size_t i = 0; i < f; ++i) out[i] = 0.5 * (out[i] + in[i]);
  }
  for (size_t i = 0; i < f; ++i) sum += out[i];
  MPI_Win_free(&win);
  free(out);
  return sum;
}

static double ring(MPI_Comm grid, int n, int iterations) {
  int size, rank;
  MPI_Comm_size(grid, &size);
  MPI_Comm_rank(grid, &rank);
  size_t f = (size_t)n * n;
  double *out = malloc(f * sizeof(double)), *in = malloc(f * sizeof(double)), sum = 0;
  for (size_t i = 0; i < f; ++i) out[i] = (double)(rank + (int)i % 7);
  MPI_Request req[2];
  MPI_Status st[2];
  MPI_Send_init(out, (int)f, MPI_DOUBLE, (rank + 1) % size, 0, grid, &req[0]);
  MPI_Recv_init(in, (int)f, MPI_DOUBLE, (rank + size - 1) % size, 0, grid, &req[1]);
  for (int it = 0; it < iterations; ++it) {
    MPI_Startall(2, req);
    MPI_Waitall(2, req, st);
    for (size_t i = 0; i < f; ++i) out[i] = 0.5 * (out[i] + in[i]);
  }
  MPI_Request_free(&req[0]);
  MPI_Request_free(&req[1]);
  for (size_t i = 0; i < f; ++i) sum += out[i];
  free(out), free(in);
  return sum;
}

int main(int argc, char** argv) {
  int provided;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  int n = argc > 2 ? atoi(argv[2]) : 0, iterations = argc > 3 ? atoi(argv[3]) : 0;
  const char* shape = argc > 1 ? argv[1] : "";
  int known = strcmp(shape, "halo3d") == 0 || strcmp(shape, "nhalo3d") == 0 || strcmp(shape, "ring") == 0 ||
              strcmp(shape, "putring") == 0;
  if (argc < 4 || n < 1 || iterations < 1 || !known) {
    fprintf(stderr, "usage: mpi_stencil halo3d|nhalo3d|ring|putring N ITERATIONS [SEED]\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  unsigned seed = argc > 4 ? (unsigned)strtoul(argv[4], NULL, 10) : 0;
  int size, rank;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  int* pos = positions(size, seed);
  MPI_Comm grid;
  MPI_Comm_split(MPI_COMM_WORLD, 0, pos[rank], &grid);
  free(pos);
  MPI_Barrier(grid);
  double t = MPI_Wtime();
  double local = strcmp(shape, "ring") == 0      ? ring(grid, n, iterations)
                 : strcmp(shape, "putring") == 0 ? putring(grid, n, iterations)
                                                 : halo3d(grid, n, iterations, strcmp(shape, "nhalo3d") == 0);
  double total = 0;
  MPI_Reduce(&local, &total, 1, MPI_DOUBLE, MPI_SUM, 0, grid);
  t = MPI_Wtime() - t;
  int grid_rank;
  MPI_Comm_rank(grid, &grid_rank);
  if (grid_rank == 0) printf("time: %.6f\nchecksum: %.6e\n", t, total);
  MPI_Comm_free(&grid);
  MPI_Finalize();
  return 0;
}
