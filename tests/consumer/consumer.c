/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A program outside slurm-pin that uses its C API through the installed
 * library: built by the install tests with pkg-config and with CMake, and
 * run as `consumer GPU_NODE.xml` (a node with GPUs and NICs, as hwloc
 * exported it). Every public function is called here or in launcher.c;
 * each result is one line the tests compare. */
#include <stdio.h>
#include <stdlib.h>

#include <slurm_pin/slurm_pin.h>

#define CHECK(call) \
  do { if ((call) < 0) return fprintf(stderr, "consumer: %s: %s\n", #call, sp_error(p)), 1; } while (0)

/* Each thread's CPUs of task 0 on one line. CPU sets are hwloc bitmaps:
 * hwloc comes with the library's flags. */
static int print_threads(sp_placement_t *p) {
  char cpus[64];
  hwloc_const_bitmap_t set;
  for (int i = 0; i < sp_get_nthreads(p); ++i) {
    if (!(set = sp_get_thread_cpuset(p, 0, i)) || hwloc_bitmap_list_snprintf(cpus, sizeof cpus, set) < 0) return 1;
    printf("%s%s", i ? " " : "", cpus);
  }
  printf("\n");
  return 0;
}

/* Each task's CPUs ("tasks 0-1 2-3"). */
static int print_tasks(sp_placement_t *p) {
  char cpus[256];
  printf("tasks");
  for (int t = 0; t < sp_get_ntasks(p); ++t) {
    if (hwloc_bitmap_list_snprintf(cpus, sizeof cpus, sp_get_task_cpuset(p, t)) < 0) return 1;
    printf(" %s", cpus);
  }
  printf("\n");
  return 0;
}

/* The strategies, a placement on two topologies, threads by their sharing
 * (edges, then a profile). */
static int placements(sp_placement_t *p, const char *unused) {
  (void)unused;
  char name[64];
  printf("strategies");
  for (int i = 0; i < sp_strategy_count(); ++i)
    if (sp_strategy_name(i, name, sizeof name) >= 0) printf(" %s", name);
  printf("\n");
  CHECK(sp_set_topology(p, "pack:2 core:2 pu:1"));
  CHECK(sp_set_strategy(p, "scatter"));
  CHECK(sp_set_threads(p, 4));
  CHECK(sp_compute(p));
  if (print_threads(p)) return 1;
  /* On a topology the program loaded itself, as mpibind_set_topology. */
  hwloc_topology_t mine;
  if (hwloc_topology_init(&mine) || hwloc_topology_set_synthetic(mine, "pack:2 core:4 pu:1") ||
      hwloc_topology_load(mine))
    return 1;
  CHECK(sp_set_hwloc_topology(p, mine));
  CHECK(sp_compute(p));
  if (print_threads(p)) return 1;
  hwloc_topology_destroy(mine);
  /* Threads 0 and 2 share most, 1 and 3: each pair in one package. */
  int from[] = {0, 1}, to[] = {2, 3};
  double weight[] = {9, 9};
  CHECK(sp_set_topology(p, "pack:2 core:2 pu:1"));
  CHECK(sp_set_strategy(p, "lpgp"));
  CHECK(sp_set_edges(p, 4, 2, from, to, weight));
  CHECK(sp_compute(p));
  if (print_threads(p)) return 1;
  /* The same sharing as a profile file (slurm-pin profile writes them). */
  char profile[] = "/tmp/consumer-profile.XXXXXX";
  FILE *f = fdopen(mkstemp(profile), "w");
  if (!f) return 1;
  fprintf(f, "slurm-pin-profile 1\nthreads 4\nmatrix simple\n0 1 9 1\n1 0 1 9\n9 1 0 1\n1 9 1 0\n");
  fclose(f);
  CHECK(sp_set_profile(p, profile, NULL, "simple", NULL));
  CHECK(sp_compute(p));
  remove(profile);
  return print_threads(p);
}

/* Four tasks by their traffic. */
static int tasks(sp_placement_t *p, const char *unused) {
  (void)unused;
  /* Four tasks (MPI ranks 4-7 of 8) by their traffic: 0-2 and 1-3 exchange most. */
  double traffic[16] = {0, 1, 9, 1, 1, 0, 1, 9, 9, 1, 0, 1, 1, 9, 1, 0};
  int ranks[] = {4, 5, 6, 7};
  CHECK(sp_set_topology(p, "pack:2 core:2 pu:2"));
  CHECK(sp_set_strategy(p, "compact"));
  CHECK(sp_set_threads(p, 1));
  CHECK(sp_set_tasks(p, 4));
  CHECK(sp_set_task_matrix(p, traffic, 4));
  CHECK(sp_set_task_ranks(p, ranks, 4, 8));
  CHECK(sp_compute(p));
  return print_tasks(p);
}

/* The shape's options, as srun's say them. */
static int shape(sp_placement_t *p, const char *unused) {
  char line[512];
  (void)unused;
  CHECK(sp_set_topology(p, "pack:2 core:2 pu:2"));
  /* Within CPUs 0-5 (3 cores), one hardware thread of each core, 6
   * threads bound to whole cores (so sharing them), random with a seed,
   * memory interleaved. */
  CHECK(sp_set_restrict(p, "0-5"));
  CHECK(sp_set_threads(p, 6));
  CHECK(sp_set_smt(p, 1));
  CHECK(sp_set_granularity(p, "core"));
  CHECK(sp_set_oversubscribe(p, 1));
  CHECK(sp_set_strategy(p, "random"));
  CHECK(sp_set_seed(p, 7));
  CHECK(sp_set_mem_policy(p, "interleave"));
  CHECK(sp_compute(p));
  CHECK(sp_describe_task(p, 0, line, sizeof line));
  printf("describe %s\n", line);
  for (int i = 0; i < sp_get_nnotes(p); ++i)
    if (sp_get_note(p, i, line, sizeof line) >= 0) printf("note %s\n", line);
  return 0;
}

/* The GPUs a job was given, each of 8 tasks given the nearest. */
static int gpus(sp_placement_t *p, const char *node) {
  char gpus[64], nic[64];
  CHECK(sp_set_topology(p, node));
  CHECK(sp_set_tasks(p, 8));
  CHECK(sp_set_gpu_locality(p, "closest"));
  CHECK(sp_set_job_gpu_variable(p, "CUDA_VISIBLE_DEVICES", "0,1,2,3,4,5,6,7"));
  CHECK(sp_set_job_gpus(p, "0,1,2,3,4,5,6,7"));
  CHECK(sp_compute(p));
  printf("gpus");
  for (int t = 0; t < sp_get_ntasks(p); ++t) {
    CHECK(sp_get_task_gpus(p, t, gpus, sizeof gpus));
    CHECK(sp_get_task_nic(p, t, nic, sizeof nic));
    printf(" %s:%s", gpus, nic[0] ? nic : "-");
  }
  printf("\n");
  return 0;
}

/* Threads bound by slurm-pin's thread library (preload): what the task's
 * library reads is data the task inherits. */
static int thread_library(sp_placement_t *p, const char *unused) {
  (void)unused;
  CHECK(sp_set_topology(p, "pack:1 core:2 pu:1"));
  CHECK(sp_set_thread_mode(p, "preload"));
  CHECK(sp_set_thread_library(p, NULL)); /* the one installed with libslurmpin */
  CHECK(sp_compute(p));
  printf("task data %s\n", sp_get_task_data(p, 0, NULL, 0) > 0 ? "yes" : "no");
  return 0;
}

int main(int argc, char **argv) {
  if (argc != 2) return fprintf(stderr, "usage: consumer GPU_NODE.xml\n"), 2;
  /* Each part on a handle of its own: a handle's inputs stay until changed. */
  int (*const parts[])(sp_placement_t *, const char *) = {placements, tasks, shape, gpus, thread_library};
  for (size_t i = 0; i < sizeof parts / sizeof *parts; ++i) {
    sp_placement_t *p = sp_init();
    if (!p) return fprintf(stderr, "consumer: out of memory\n"), 1;
    int rc = parts[i](p, argv[1]);
    sp_finalize(p);
    if (rc) return rc;
  }
  return 0;
}
