// SPDX-License-Identifier: GPL-2.0-or-later
// Conjugate gradient of NPB CG's shape (OpenMP): the smallest eigenvalue of
// a random sparse symmetric positive definite matrix by inverse iteration,
// each step 25 CG iterations (sparse matrix-vector product, dot products,
// vector updates). N = 14000 rows with about 130 non-zeros each (1.8 M:
// class A), 15 steps. Every thread reads scattered entries of the whole
// vector p while writing its own rows of q: sharing that is irregular and
// spread over all threads, unlike a stencil's neighbours.
//   cg [N [NONZEROS_PER_ROW [STEPS]]]
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
  int n;
  int *start, *col;
  double *val;
} Csr;

// SplitMix64: a reproducible matrix without libc's rand state.
static unsigned long long next(unsigned long long *s) {
  unsigned long long z = (*s += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

static int by_column(const void *a, const void *b) { return *(const int *)a - *(const int *)b; }

// Symmetric pattern: row i holds i and `per_row` random partners (and each
// partner holds i); diagonally dominant, so positive definite.
static Csr make_matrix(int n, int per_row) {
  int *deg = calloc((size_t)n, sizeof *deg);
  int (*pair)[2] = malloc((size_t)n * per_row * sizeof *pair);
  unsigned long long s = 314159265;
  size_t pairs = 0;
  for (int i = 0; i < n; ++i)
    for (int k = 0; k < per_row / 2; ++k) {
      int j = (int)(next(&s) % (unsigned long long)n);
      if (j == i) continue;
      pair[pairs][0] = i, pair[pairs][1] = j, ++pairs, ++deg[i], ++deg[j];
    }
  Csr a = {n, malloc((size_t)(n + 1) * sizeof(int)), NULL, NULL};
  a.start[0] = 0;
  for (int i = 0; i < n; ++i) a.start[i + 1] = a.start[i] + deg[i] + 1;
  a.col = malloc((size_t)a.start[n] * sizeof(int));
  a.val = malloc((size_t)a.start[n] * sizeof(double));
  int *fill = malloc((size_t)n * sizeof(int));
  for (int i = 0; i < n; ++i) fill[i] = a.start[i], a.col[fill[i]++] = i;
  for (size_t p = 0; p < pairs; ++p) a.col[fill[pair[p][0]]++] = pair[p][1], a.col[fill[pair[p][1]]++] = pair[p][0];
  for (int i = 0; i < n; ++i) {
    qsort(a.col + a.start[i], (size_t)(a.start[i + 1] - a.start[i]), sizeof(int), by_column);
    for (int e = a.start[i]; e < a.start[i + 1]; ++e)
      a.val[e] = a.col[e] == i ? (double)(a.start[i + 1] - a.start[i]) + 20.0 : -0.5 - 0.5 * ((a.col[e] + i) % 7) / 7.0;
  }
  free(deg), free(pair), free(fill);
  return a;
}

static void spmv(const Csr *a, const double *x, double *y) {
#pragma omp parallel for schedule(static)
  for (int i = 0; i < a->n; ++i) {
    double s = 0;
    for (int e = a->start[i]; e < a->start[i + 1]; ++e) s += a->val[e] * x[a->col[e]];
    y[i] = s;
  }
}

static double dot(int n, const double *x, const double *y) {
  double s = 0;
#pragma omp parallel for reduction(+ : s) schedule(static)
  for (int i = 0; i < n; ++i) s += x[i] * y[i];
  return s;
}

// 25 CG iterations on A z = x; returns ||x - A z||.
static double conj_grad(const Csr *a, const double *x, double *z, double *p, double *q, double *r) {
  int n = a->n;
#pragma omp parallel for schedule(static)
  for (int i = 0; i < n; ++i) z[i] = 0, r[i] = x[i], p[i] = x[i];
  double rho = dot(n, r, r);
  for (int it = 0; it < 25; ++it) {
    spmv(a, p, q);
    double alpha = rho / dot(n, p, q);
#pragma omp parallel for schedule(static)
    for (int i = 0; i < n; ++i) z[i] += alpha * p[i], r[i] -= alpha * q[i];
    double rho0 = rho;
    rho = dot(n, r, r);
    double beta = rho / rho0;
#pragma omp parallel for schedule(static)
    for (int i = 0; i < n; ++i) p[i] = r[i] + beta * p[i];
  }
  spmv(a, z, q);
  double s = 0;
#pragma omp parallel for reduction(+ : s) schedule(static)
  for (int i = 0; i < n; ++i) s += (x[i] - q[i]) * (x[i] - q[i]);
  return sqrt(s);
}

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 14000, per_row = argc > 2 ? atoi(argv[2]) : 130,
      steps = argc > 3 ? atoi(argv[3]) : 15;
  if (n < 2 || per_row < 2 || steps < 1) {
    fprintf(stderr, "cg: N >= 2, NONZEROS_PER_ROW >= 2, STEPS >= 1\n");
    return 2;
  }
  Csr a = make_matrix(n, per_row);
  double *x = malloc((size_t)n * sizeof(double)), *z = malloc((size_t)n * sizeof(double)),
         *p = malloc((size_t)n * sizeof(double)), *q = malloc((size_t)n * sizeof(double)),
         *r = malloc((size_t)n * sizeof(double));
  for (int i = 0; i < n; ++i) x[i] = 1.0;
  double zeta = 0, rnorm = 0;
  for (int s = 0; s < steps; ++s) {  // inverse power iteration, as NPB CG
    rnorm = conj_grad(&a, x, z, p, q, r);
    double xz = dot(n, x, z), zz = dot(n, z, z);
    zeta = 20.0 + 1.0 / xz;
    double scale = 1.0 / sqrt(zz);
#pragma omp parallel for schedule(static)
    for (int i = 0; i < n; ++i) x[i] = scale * z[i];
  }
  printf("cg %d rows, %d non-zeros, %d steps: zeta %.10f, residual %.3e\n", n, a.start[n], steps, zeta, rnorm);
  free(a.start), free(a.col), free(a.val), free(x), free(z), free(p), free(q), free(r);
  return 0;
}
