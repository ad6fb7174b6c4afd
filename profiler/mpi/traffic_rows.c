/* SPDX-License-Identifier: GPL-2.0-or-later */
/* One rank's row of the traffic matrix (traffic_rows.h). */
#define _GNU_SOURCE
#include "traffic_rows.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The row: what this rank sent to each world rank. Programs of
 * MPI_THREAD_MULTIPLE send from several threads: adds are atomic. */
static uint64_t *g_bytes, *g_messages, *g_collective;
static int g_world_size, g_world_rank;
static int g_keyval = MPI_KEYVAL_INVALID;
static MPI_Group g_world_group = MPI_GROUP_NULL;
static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;

int traffic_on(void) { return g_bytes != NULL; }

/* A communicator's members as world ranks, kept on the communicator (an
 * attribute, freed with it; a duplicate computes its own). */
struct comm_map {
  int size, rank, inter;
  int world[]; /* of the remote group for an intercommunicator */
};

static int free_map(MPI_Comm comm, int keyval, void* map, void* extra) {
  (void)comm, (void)keyval, (void)extra;
  free(map);
  return MPI_SUCCESS;
}

/* `group`'s members as world ranks (freeing the group); NULL when MPI or
 * memory fails. `rank` and `inter` describe the caller's place. */
static struct comm_map* group_map(MPI_Group group, int rank, int inter) {
  int size = 0;
  PMPI_Group_size(group, &size);
  struct comm_map* m = size > 0 ? malloc(sizeof *m + (size_t)size * sizeof(int)) : NULL;
  int* ranks = size > 0 ? malloc((size_t)size * sizeof(int)) : NULL;
  if (m && ranks) {
    for (int i = 0; i < size; ++i) ranks[i] = i;
    m->size = size, m->rank = rank, m->inter = inter;
    if (PMPI_Group_translate_ranks(group, size, ranks, g_world_group, m->world) != MPI_SUCCESS) free(m), m = NULL;
  } else {
    free(m), m = NULL;
  }
  free(ranks);
  PMPI_Group_free(&group);
  return m;
}

static struct comm_map* build_map(MPI_Comm comm) {
  int inter = 0, rank = 0;
  MPI_Group group;
  PMPI_Comm_test_inter(comm, &inter);
  if ((inter ? PMPI_Comm_remote_group(comm, &group) : PMPI_Comm_group(comm, &group)) != MPI_SUCCESS) return NULL;
  PMPI_Comm_rank(comm, &rank);
  return group_map(group, rank, inter);
}

static const struct comm_map* map_of(MPI_Comm comm) {
  void* val = NULL;
  int found = 0;
  if (PMPI_Comm_get_attr(comm, g_keyval, &val, &found) == MPI_SUCCESS && found) return val;
  pthread_mutex_lock(&g_lock);
  if (PMPI_Comm_get_attr(comm, g_keyval, &val, &found) != MPI_SUCCESS || !found) {
    val = build_map(comm);
    if (val) PMPI_Comm_set_attr(comm, g_keyval, val);
  }
  pthread_mutex_unlock(&g_lock);
  return val;
}

/* `dest` of `comm` as a world rank; -1 when it names nobody. */
static int world_rank(MPI_Comm comm, int dest) {
  if (dest < 0) return -1; /* MPI_PROC_NULL, MPI_ANY_SOURCE */
  if (comm == MPI_COMM_WORLD) return dest < g_world_size ? dest : -1;
  const struct comm_map* m = map_of(comm);
  if (!m || dest >= m->size) return -1;
  int w = m->world[dest];
  return w >= 0 && w < g_world_size ? w : -1;
}

int traffic_members(MPI_Comm comm, int* rank, int* size) {
  if (comm == MPI_COMM_WORLD) {
    *rank = g_world_rank, *size = g_world_size;
    return 1;
  }
  const struct comm_map* m = map_of(comm);
  if (!m || m->inter) return 0;
  *rank = m->rank, *size = m->size;
  return 1;
}

uint64_t traffic_bytes(int count, MPI_Datatype type) {
  int size = 0;
  if (count <= 0 || type == MPI_DATATYPE_NULL || PMPI_Type_size(type, &size) != MPI_SUCCESS || size <= 0) return 0;
  return (uint64_t)count * (uint64_t)size;
}

static void add_to(int w, uint64_t bytes, uint64_t messages, int collective) {
  if (w < 0) return;
  __atomic_fetch_add(&g_bytes[w], bytes, __ATOMIC_RELAXED);
  __atomic_fetch_add(&g_messages[w], messages, __ATOMIC_RELAXED);
  if (collective) __atomic_fetch_add(&g_collective[w], bytes, __ATOMIC_RELAXED);
}

void traffic_send_bytes(MPI_Comm comm, int dest, uint64_t bytes, uint64_t messages, int collective) {
  if (g_bytes) add_to(world_rank(comm, dest), bytes, messages, collective);
}

/* A window's group as world ranks, kept on the window as the communicators'
 * maps are. */
static int g_win_keyval = MPI_KEYVAL_INVALID;

static int free_win_map(MPI_Win win, int keyval, void* map, void* extra) {
  (void)win, (void)keyval, (void)extra;
  free(map);
  return MPI_SUCCESS;
}

static struct comm_map* build_win_map(MPI_Win win) {
  MPI_Group group;
  return PMPI_Win_get_group(win, &group) == MPI_SUCCESS ? group_map(group, -1, 0) : NULL;
}

void traffic_window_bytes(MPI_Win win, int target, uint64_t bytes) {
  if (!g_bytes || target < 0 || g_win_keyval == MPI_KEYVAL_INVALID) return;
  void* val = NULL;
  int found = 0;
  if (PMPI_Win_get_attr(win, g_win_keyval, &val, &found) != MPI_SUCCESS || !found) {
    pthread_mutex_lock(&g_lock);
    if (PMPI_Win_get_attr(win, g_win_keyval, &val, &found) != MPI_SUCCESS || !found) {
      val = build_win_map(win);
      if (val) PMPI_Win_set_attr(win, g_win_keyval, val);
    }
    pthread_mutex_unlock(&g_lock);
  }
  const struct comm_map* m = val;
  if (m && target < m->size && m->world[target] >= 0 && m->world[target] < g_world_size)
    add_to(m->world[target], bytes, 1, 0);
}

void traffic_send(MPI_Comm comm, int dest, int count, MPI_Datatype type, int collective) {
  if (g_bytes) traffic_send_bytes(comm, dest, traffic_bytes(count, type), 1, collective);
}

/* Persistent send requests, by handle (a pointer in Open MPI, an int in
 * MPICH): hashed buckets, as a halo exchange may keep thousands. */
struct persistent {
  MPI_Request req;
  int world;
  uint64_t bytes;
  struct persistent* next;
};
#define PERSISTENT_BUCKETS 4096
static struct persistent* g_persistent[PERSISTENT_BUCKETS];

static unsigned bucket_of(MPI_Request req) {
  uint64_t key = 0;
  memcpy(&key, &req, sizeof req < sizeof key ? sizeof req : sizeof key);
  key ^= key >> 33;
  key *= 0xff51afd7ed558ccdULL;
  key ^= key >> 33;
  return (unsigned)(key % PERSISTENT_BUCKETS);
}

void traffic_persistent_add(MPI_Request req, MPI_Comm comm, int dest, int count, MPI_Datatype type) {
  if (!g_bytes || req == MPI_REQUEST_NULL) return;
  struct persistent* p = malloc(sizeof *p);
  if (!p) return;
  p->req = req, p->world = world_rank(comm, dest), p->bytes = traffic_bytes(count, type);
  unsigned b = bucket_of(req);
  pthread_mutex_lock(&g_lock);
  p->next = g_persistent[b];
  g_persistent[b] = p;
  pthread_mutex_unlock(&g_lock);
}

void traffic_persistent_start(MPI_Request req) {
  if (!g_bytes || req == MPI_REQUEST_NULL) return;
  int world = -1;
  uint64_t bytes = 0;
  pthread_mutex_lock(&g_lock);
  for (struct persistent* p = g_persistent[bucket_of(req)]; p; p = p->next)
    if (p->req == req) {
      world = p->world, bytes = p->bytes;
      break;
    }
  pthread_mutex_unlock(&g_lock);
  if (world >= 0) traffic_send_bytes(MPI_COMM_WORLD, world, bytes, 1, 0);
}

void traffic_persistent_free(MPI_Request req) {
  if (!g_bytes || req == MPI_REQUEST_NULL) return;
  pthread_mutex_lock(&g_lock);
  for (struct persistent** p = &g_persistent[bucket_of(req)]; *p; p = &(*p)->next)
    if ((*p)->req == req) {
      struct persistent* dead = *p;
      *p = dead->next;
      free(dead);
      break;
    }
  pthread_mutex_unlock(&g_lock);
}

void traffic_start(void) {
  const char* dir = getenv("SLURM_PIN_MPI_DIR");
  if (!dir || !*dir || g_bytes) return;
  PMPI_Comm_size(MPI_COMM_WORLD, &g_world_size);
  PMPI_Comm_rank(MPI_COMM_WORLD, &g_world_rank);
  PMPI_Comm_group(MPI_COMM_WORLD, &g_world_group);
  PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, free_map, &g_keyval, NULL);
  PMPI_Win_create_keyval(MPI_WIN_NULL_COPY_FN, free_win_map, &g_win_keyval, NULL);
  size_t n = g_world_size > 0 ? (size_t)g_world_size : 1;
  uint64_t* rows = calloc(3 * n, sizeof *rows);
  if (!rows) {
    fprintf(stderr, "slurm-pin: rank %d: no memory for its traffic row of %zu ranks: not counted\n", g_world_rank, n);
    return;
  }
  g_messages = rows + n, g_collective = rows + 2 * n;
  g_bytes = rows;
}

static void write_values(FILE* f, const char* key, const uint64_t* row) {
  fputs(key, f);
  for (int i = 0; i < g_world_size; ++i) fprintf(f, " %" PRIu64, __atomic_load_n(&row[i], __ATOMIC_RELAXED));
  fputc('\n', f);
}

void traffic_finish(void) {
  if (!g_bytes) return;
  const char* dir = getenv("SLURM_PIN_MPI_DIR");
  char path[4096], host[256] = "-";
  gethostname(host, sizeof host - 1);
  host[strcspn(host, " \t\n")] = '\0';
  int n = snprintf(path, sizeof path, "%s/rank.%d", dir, g_world_rank);
  /* A fresh file in the profiler's directory: never through a link, never
   * over what is there. */
  int fd = n > 0 && (size_t)n < sizeof path ? open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644) : -1;
  FILE* f = fd >= 0 ? fdopen(fd, "w") : NULL;
  if (!f) {
    fprintf(stderr, "slurm-pin: rank %d: cannot write its traffic row to %s: %s\n", g_world_rank, path, strerror(errno));
    if (fd >= 0) close(fd);
    return;
  }
  fprintf(f, "slurm-pin-mpi-row 1\nrank %d size %d\nhost %s\n", g_world_rank, g_world_size, host[0] ? host : "-");
  write_values(f, "bytes", g_bytes);
  write_values(f, "messages", g_messages);
  write_values(f, "collective_bytes", g_collective);
  if (fclose(f) != 0)
    fprintf(stderr, "slurm-pin: rank %d: cannot write its traffic row to %s: %s\n", g_world_rank, path, strerror(errno));
}

int traffic_neighbors(MPI_Comm comm, int** dest) {
  int status = MPI_UNDEFINED, n = 0;
  *dest = NULL;
  if (!g_bytes || PMPI_Topo_test(comm, &status) != MPI_SUCCESS) return 0;
  if (status == MPI_CART) {
    int dims = 0;
    PMPI_Cartdim_get(comm, &dims);
    if (dims <= 0 || !(*dest = malloc(2 * (size_t)dims * sizeof(int)))) return 0;
    /* MPI's order: in each dimension, the neighbour below, then above. */
    for (int d = 0; d < dims; ++d) PMPI_Cart_shift(comm, d, 1, &(*dest)[2 * d], &(*dest)[2 * d + 1]);
    return 2 * dims;
  }
  if (status == MPI_GRAPH) {
    int me = 0;
    PMPI_Comm_rank(comm, &me);
    if (PMPI_Graph_neighbors_count(comm, me, &n) != MPI_SUCCESS || n <= 0 || !(*dest = malloc((size_t)n * sizeof(int))))
      return 0;
    PMPI_Graph_neighbors(comm, me, n, *dest);
    return n;
  }
  if (status == MPI_DIST_GRAPH) {
    int in = 0, weighted = 0;
    if (PMPI_Dist_graph_neighbors_count(comm, &in, &n, &weighted) != MPI_SUCCESS || n <= 0) return 0;
    int* src = malloc(((size_t)in + 1) * sizeof(int));
    int* w = malloc(((size_t)in + (size_t)n + 2) * sizeof(int));
    *dest = malloc((size_t)n * sizeof(int));
    if (src && w && *dest) PMPI_Dist_graph_neighbors(comm, in, src, w, n, *dest, w + in + 1);
    else n = 0;
    free(src), free(w);
    return n;
  }
  return 0;
}
