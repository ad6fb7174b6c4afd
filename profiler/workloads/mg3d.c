// SPDX-License-Identifier: GPL-2.0-or-later
// A V-cycle multigrid of NPB MG's shape (OpenMP): the 3-D Poisson problem on
// an N^3 periodic grid (N = 256: class A), a 27-point residual, a 27-point
// smoother, full-weighting restriction and trilinear prolongation over
// log2(N) - 1 levels, ITER V-cycles. Threads share the planes at the edges
// of their blocks at every level, and the coarse levels, which few threads
// hold, are shared by all: the access pattern a profiler of real HPC codes
// has to record.
//   mg3d [N [ITER]]
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

typedef struct {
  int n;       // interior points per side; the grid holds (n + 2)^3 with a halo
  double *u, *r, *v;
} Level;

#define AT(g, n, i, j, k) (g)[((size_t)(i) * ((n) + 2) + (j)) * ((n) + 2) + (k)]

// Periodic halo: each face copies the opposite interior plane.
static void halo(double *g, int n) {
  int m = n + 2;
#pragma omp parallel for
  for (int i = 1; i <= n; ++i)
    for (int j = 1; j <= n; ++j) AT(g, n, i, j, 0) = AT(g, n, i, j, n), AT(g, n, i, j, n + 1) = AT(g, n, i, j, 1);
#pragma omp parallel for
  for (int i = 1; i <= n; ++i)
    for (int k = 0; k < m; ++k) AT(g, n, i, 0, k) = AT(g, n, i, n, k), AT(g, n, i, n + 1, k) = AT(g, n, i, 1, k);
#pragma omp parallel for
  for (int j = 0; j < m; ++j)
    for (int k = 0; k < m; ++k) AT(g, n, 0, j, k) = AT(g, n, n, j, k), AT(g, n, n + 1, j, k) = AT(g, n, 1, j, k);
}

// 27-point operator with weights by distance class (centre, face, edge, corner).
static double apply27(const double *g, int n, int i, int j, int k, const double c[4]) {
  double s[4] = {0, 0, 0, 0};
  for (int di = -1; di <= 1; ++di)
    for (int dj = -1; dj <= 1; ++dj)
      for (int dk = -1; dk <= 1; ++dk) s[abs(di) + abs(dj) + abs(dk)] += AT(g, n, i + di, j + dj, k + dk);
  return c[0] * s[0] + c[1] * s[1] + c[2] * s[2] + c[3] * s[3];
}

static const double kA[4] = {-8.0 / 3.0, 0.0, 1.0 / 6.0, 1.0 / 12.0};   // NPB MG's operator
static const double kS[4] = {-3.0 / 8.0, 1.0 / 32.0, -1.0 / 64.0, 0.0};  // its smoother

// r = v - A u
static void resid(Level *l) {
  int n = l->n;
#pragma omp parallel for
  for (int i = 1; i <= n; ++i)
    for (int j = 1; j <= n; ++j)
      for (int k = 1; k <= n; ++k) AT(l->r, n, i, j, k) = AT(l->v, n, i, j, k) - apply27(l->u, n, i, j, k, kA);
  halo(l->r, n);
}

// u += S r
static void smooth(Level *l) {
  int n = l->n;
#pragma omp parallel for
  for (int i = 1; i <= n; ++i)
    for (int j = 1; j <= n; ++j)
      for (int k = 1; k <= n; ++k) AT(l->u, n, i, j, k) += apply27(l->r, n, i, j, k, kS);
  halo(l->u, n);
}

// Coarse v = full weighting of the fine residual.
static void restrict_to(const Level *f, Level *c) {
  static const double w[4] = {0.5, 0.25, 0.125, 0.0625};
  int n = c->n;
#pragma omp parallel for
  for (int i = 1; i <= n; ++i)
    for (int j = 1; j <= n; ++j)
      for (int k = 1; k <= n; ++k) AT(c->v, n, i, j, k) = apply27(f->r, f->n, 2 * i - 1, 2 * j - 1, 2 * k - 1, w);
  halo(c->v, n);
}

// Fine u += trilinear interpolation of the coarse u.
static void prolong(const Level *c, Level *f) {
  int n = f->n;
#pragma omp parallel for
  for (int i = 1; i <= n; ++i)
    for (int j = 1; j <= n; ++j)
      for (int k = 1; k <= n; ++k) {
        int ci = (i + 1) / 2, cj = (j + 1) / 2, ck = (k + 1) / 2;
        int oi = i % 2 ? 0 : 1, oj = j % 2 ? 0 : 1, ok = k % 2 ? 0 : 1;
        double s = 0;
        for (int a = 0; a <= oi; ++a)
          for (int b = 0; b <= oj; ++b)
            for (int d = 0; d <= ok; ++d) s += AT(c->u, c->n, ci + a, cj + b, ck + d);
        AT(f->u, n, i, j, k) += s / ((oi + 1) * (oj + 1) * (ok + 1));
      }
  halo(f->u, n);
}

static void zero(double *g, int n) {
  size_t m = (size_t)(n + 2) * (n + 2) * (n + 2);
#pragma omp parallel for
  for (size_t x = 0; x < m; ++x) g[x] = 0;
}

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 256, iter = argc > 2 ? atoi(argv[2]) : 4;
  if (n < 4 || (n & (n - 1))) {
    fprintf(stderr, "mg3d: N must be a power of two >= 4\n");
    return 2;
  }
  int levels = 0;
  for (int m = n; m >= 4; m /= 2) ++levels;
  Level *l = calloc((size_t)levels, sizeof *l);
  for (int k = 0; k < levels; ++k) {
    l[k].n = n >> k;
    size_t m = (size_t)(l[k].n + 2) * (l[k].n + 2) * (l[k].n + 2);
    l[k].u = malloc(m * sizeof(double)), l[k].r = malloc(m * sizeof(double)), l[k].v = malloc(m * sizeof(double));
    if (!l[k].u || !l[k].r || !l[k].v) return 1;
    zero(l[k].u, l[k].n), zero(l[k].r, l[k].n), zero(l[k].v, l[k].n);
  }
  // NPB's right-hand side: +1 and -1 at a few fixed points.
  for (int p = 0; p < 20; ++p) {
    int i = 1 + (p * 97) % n, j = 1 + (p * 61) % n, k = 1 + (p * 31) % n;
    AT(l[0].v, n, i, j, k) = p < 10 ? 1.0 : -1.0;
  }
  halo(l[0].v, n);
  for (int it = 0; it < iter; ++it) {
    resid(&l[0]);
    for (int k = 1; k < levels; ++k) {  // down: restrict the residual
      restrict_to(&l[k - 1], &l[k]);
      zero(l[k].u, l[k].n);
      resid(&l[k]);
      if (k == levels - 1) smooth(&l[k]);  // the coarsest level is solved by smoothing
    }
    for (int k = levels - 1; k > 0; --k) {  // up: prolong, then smooth
      prolong(&l[k], &l[k - 1]);
      resid(&l[k - 1]);
      smooth(&l[k - 1]);
    }
  }
  resid(&l[0]);
  double norm = 0;
#pragma omp parallel for reduction(+ : norm)
  for (int i = 1; i <= n; ++i)
    for (int j = 1; j <= n; ++j)
      for (int k = 1; k <= n; ++k) norm += AT(l[0].r, n, i, j, k) * AT(l[0].r, n, i, j, k);
  printf("mg3d %d^3, %d V-cycles, %d levels: residual norm %.6e\n", n, iter, levels, sqrt(norm / ((double)n * n * n)));
  for (int k = 0; k < levels; ++k) free(l[k].u), free(l[k].r), free(l[k].v);
  free(l);
  return 0;
}
