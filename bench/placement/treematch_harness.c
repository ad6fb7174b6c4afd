/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * bench/placement's driver of TreeMatch (Jeannot and Mercier; the mapper
 * Open MPI ships in 3rd-party/treematch), built by bench/placement/run from
 * a fetched Open MPI source tree, never shipped here:
 *
 *   treematch_harness MATRIX ARITIES
 *
 * MATRIX: n lines of n numbers (the communication matrix); ARITIES: the
 * balanced tree's children per level, root first ("2,4,2": 16 leaves).
 * Prints TreeMatch's own time (building its tree and computing the mapping,
 * as Open MPI's topo component calls them) and, for each process, its leaf
 * in the tree's order (TreeMatch's logical core numbering):
 *   ms 1.234
 *   sigma 3 0 1 2 ...
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "treematch.h"

static double now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

static double **read_matrix(const char *path, int *order) {
  FILE *f = fopen(path, "r");
  if (!f) return NULL;
  int n = 0, c;
  /* n: the numbers on the first line. */
  for (int in = 0; (c = fgetc(f)) != EOF && c != '\n';) {
    int digit = c != ' ' && c != '\t';
    if (digit && !in) ++n;
    in = digit;
  }
  rewind(f);
  double **m = malloc(sizeof *m * (size_t)n);
  for (int i = 0; i < n; ++i) {
    m[i] = malloc(sizeof **m * (size_t)n);
    for (int j = 0; j < n; ++j)
      if (fscanf(f, "%lf", &m[i][j]) != 1) return fclose(f), NULL;
  }
  fclose(f);
  *order = n;
  return m;
}

int main(int argc, char **argv) {
  if (argc != 3) return fprintf(stderr, "usage: treematch_harness MATRIX ARITIES\n"), 2;
  int order = 0;
  double **mat = read_matrix(argv[1], &order);
  if (!mat) return fprintf(stderr, "treematch_harness: cannot read %s\n", argv[1]), 1;
  int arity[64], levels = 0;
  for (char *s = argv[2]; *s && levels < 63; s += *s == ',') arity[levels++] = (int)strtol(s, &s, 10);
  arity[levels++] = 0; /* the leaves */
  double cost[64];
  int leaves = 1;
  for (int l = 0; l < levels; ++l) cost[l] = levels - 1 - l, leaves *= arity[l] ? arity[l] : 1;
  int *numbering = malloc(sizeof *numbering * (size_t)leaves);
  for (int i = 0; i < leaves; ++i) numbering[i] = i;
  tm_set_verbose_level(0);
  tm_topology_t *topology = tm_build_synthetic_topology(arity, cost, levels, numbering, leaves);
  tm_affinity_mat_t *aff = tm_build_affinity_mat(mat, order);
  double start = now_ms();
  tm_tree_t *tree = tm_build_tree_from_topology(topology, aff, NULL, NULL);
  tm_solution_t *sol = tm_compute_mapping(topology, tree);
  double ms = now_ms() - start;
  printf("ms %.4f\nsigma", ms);
  for (size_t i = 0; i < sol->sigma_length; ++i) printf(" %d", sol->sigma[i]);
  printf("\n");
  return 0;
}
