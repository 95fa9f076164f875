/* The derivatives of the exact Gaussian log-likelihood on the CPU (see
 * gs_gp_derivatives in gs_gp.h): P from the factor by the packed dense
 * kernels, the derivative matrices entry by entry from the Matérn
 * derivatives of matern_deriv_math.h (the Vecchia approximation's), their
 * traces against P and the quadratic forms in one pass over the pairs, and
 * the information through W_i = P dS_i. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gp_internal.h"
#include "gs_cpu.h"
#include "gs_dense.h"
#include "lapack.h"

/* Columns per block between interrupt checks in the O(n^3) products. */
#define DERIV_BLOCK 256

typedef struct {
  const gs_gp *gp;
  const gs_gp_deriv_args *a;
  matern_deriv_model model;
  double *p;               /* n x n, P (both triangles) */
  double *d[GS_COV_NPAR]; /* generated dS_i (both triangles), for the information; else NULL */
} deriv_work;

/* The shares of the work reported to the progress callback: forming P,
 * the pass over the pairs, the information's products (of a call that asks
 * for it; else P and the pass share the whole). */
#define DERIV_SHARE_INVERSE 0.3
#define DERIV_SHARE_PASS 0.2

static int deriv_stop(const gs_gp *gp, double done) { return gp->progress && gp->progress(done); }

/* p := Sigma^-1 = L^-T L^-1 from the factor L (lower, in gp->a), both
 * triangles; s is n x n scratch. A column block of L^-1 below its first row
 * is L22^-1 times identity columns (the rows above are 0), and
 * (L^-T L^-1)_ij = sum_k T_ik T_jk with T = L^-T upper triangular needs
 * k >= max(i, j) only: about n^3 / 2 multiply-adds in all. */
static gs_status deriv_inverse(const gs_gp *gp, double *p, double *s, double share, char *msg)
{
  const int n = (int)gp->n, th = gp->threads;
  gs_status st = GS_OK;
  memset(s, 0, (size_t)n * n * sizeof(double));
  memset(p, 0, (size_t)n * n * sizeof(double));
  for (int j = 0; j < n; ++j) s[j + (size_t)j * n] = 1.0;
  for (int j = 0; j < n && st == GS_OK; j += DERIV_BLOCK) {
    const int jb = n - j < DERIV_BLOCK ? n - j : DERIV_BLOCK;
    const size_t at = j + (size_t)j * n;
    st = gs_dense_trsm_lln(n - j, jb, gp->a + at, n, s + at, n, th, msg);
    if (st == GS_OK && deriv_stop(gp, share / 3.0 * (j + jb) / n)) st = gs_interrupted(msg);
  }
#pragma omp parallel for schedule(dynamic, 16) num_threads(gs_cpu_threads_for(th, (double)n * n / 64.0))
  for (int j = 0; j < n; ++j) /* in place: s = T = L^-T */
    for (int i = j + 1; i < n; ++i) {
      const double t = s[i + (size_t)j * n];
      s[i + (size_t)j * n] = s[j + (size_t)i * n];
      s[j + (size_t)i * n] = t;
    }
  for (int j = 0; j < n && st == GS_OK; j += DERIV_BLOCK) { /* p -= T T' on and below the diagonal block */
    const int jb = n - j < DERIV_BLOCK ? n - j : DERIV_BLOCK;
    const size_t at = j + (size_t)j * n;
    st = gs_dense_gemm_nt(n - j, jb, n - j, s + at, n, s + at, n, p + at, n, 0, th, msg);
    if (st == GS_OK && deriv_stop(gp, share / 3.0 * (1.0 + 2.0 * (j + jb) / n))) st = gs_interrupted(msg);
  }
  if (st != GS_OK) return st;
#pragma omp parallel for schedule(dynamic, 16) num_threads(gs_cpu_threads_for(th, (double)n * n / 64.0))
  for (int j = 0; j < n; ++j)
    for (int i = j; i < n; ++i) p[j + (size_t)i * n] = p[i + (size_t)j * n] = -p[i + (size_t)j * n];
  return GS_OK;
}

/* The REML correction P = Sigma^-1 - B C^-1 B' with B = Sigma^-1 X (n x q)
 * and C = X' B: b := V = B R^-1 for the Cholesky factor C = R'R, so that
 * P = Sigma^-1 - V V'. Shared by both backends (the GPU's B comes to the
 * host: q is a handful of columns). */
gs_status gs_gp_deriv_trend(long n, int q, const double *x, double *b, char *msg)
{
  double *c = (double *)malloc((size_t)q * q * sizeof(double));
  if (!c) return gs_set_msg(msg, GS_ERR_NOMEM, "out of host memory");
  for (int l = 0; l < q; ++l)
    for (int m = 0; m <= l; ++m) {
      double t = 0.0;
      for (long r = 0; r < n; ++r) t = fma(x[r + (size_t)l * n], b[r + (size_t)m * n], t);
      c[l + (size_t)m * q] = c[m + (size_t)l * q] = t;
    }
  int info = 0;
  const int ni = (int)n;
  const double one = 1.0;
  dpotrf_("U", &q, c, &q, &info, 1);
  if (info == 0) dtrsm_("R", "U", "N", "N", &ni, &q, &one, c, &q, b, &ni, 1, 1, 1, 1);
  free(c);
  if (info != 0)
    return gs_set_msg(msg, GS_ERR_NOT_PD, "X' Sigma^-1 X is not positive definite: the trend's columns are collinear");
  return GS_OK;
}

/* REML: p -= V V' (gs_gp_deriv_trend) with B = p X. */
static gs_status deriv_project(const gs_gp *gp, double *p, const double *x, int q, char *msg)
{
  const int n = (int)gp->n;
  double *b = (double *)malloc((size_t)n * q * sizeof(double));
  if (!b) return gs_set_msg(msg, GS_ERR_NOMEM, "out of host memory");
  const int nth = gs_cpu_threads_for(gp->threads, (double)n * n * q / 64.0);
#pragma omp parallel for num_threads(nth)
  for (int i = 0; i < n; ++i) /* p symmetric: row i of p X from column i */
    for (int l = 0; l < q; ++l) {
      double t = 0.0;
      for (int r = 0; r < n; ++r) t = fma(p[r + (size_t)i * n], x[r + (size_t)l * n], t);
      b[i + (size_t)l * n] = t;
    }
  gs_status st = gs_gp_deriv_trend(n, q, x, b, msg);
  if (st == GS_OK) {
#pragma omp parallel for schedule(dynamic, 16) num_threads(nth)
    for (int j = 0; j < n; ++j)
      for (int i = 0; i < n; ++i) {
        double t = 0.0;
        for (int l = 0; l < q; ++l) t = fma(b[i + (size_t)l * n], b[j + (size_t)l * n], t);
        p[i + (size_t)j * n] -= t;
      }
  }
  free(b);
  return st;
}

/* Column j of the pass: the pairs (i, j), i >= j, each counted twice off
 * the diagonal; adds tr(P dS) and sum u' dS u into acc[0..3] and acc[4..7],
 * and stores the generated dS entries where w->d asks. */
GS_CPU_DISPATCH static void deriv_column(const deriv_work *w, long j, double *acc)
{
  const gs_gp *gp = w->gp;
  const gs_gp_deriv_args *a = w->a;
  const long n = gp->n;
  for (long i = j; i < n; ++i) {
    const double dist = matern_distance(gp->locs, n, i, gp->locs, n, j, gp->dim, w->model.cov.metric);
    double dv[GS_COV_NPAR];
    dv[GS_COV_SIGMA2] = matern_deriv_pair(&w->model, dist, a->deriv, dv);
    dv[GS_COV_NUGGET] = (i == j);
    const double weight = (i == j) ? 1.0 : 2.0, pij = weight * w->p[i + j * n];
    double uu = 0.0;
    for (int c = 0; c < a->k; ++c) uu = fma(a->u[i + c * n], a->u[j + c * n], uu);
    uu *= weight;
    for (int t = 0; t < GS_COV_NPAR; ++t) {
      if (!((a->deriv >> t) & 1)) continue;
      acc[t] = fma(pij, dv[t], acc[t]);
      acc[GS_COV_NPAR + t] = fma(uu, dv[t], acc[GS_COV_NPAR + t]);
      if (w->d[t]) w->d[t][i + j * n] = w->d[t][j + i * n] = dv[t];
    }
  }
}

/* The pass over the pairs, in column blocks with interrupt checks. */
static gs_status deriv_pass(deriv_work *w, double from, double to, char *msg)
{
  const long n = w->gp->n;
  double acc[2 * GS_COV_NPAR] = {0};
  const int nth = gs_cpu_threads_for(w->gp->threads, 0.5 * (double)n * (double)n);
  for (long j0 = 0; j0 < n; j0 += DERIV_BLOCK) {
    const long j1 = n - j0 > DERIV_BLOCK ? j0 + DERIV_BLOCK : n;
#pragma omp parallel for schedule(dynamic, 1) num_threads(nth) reduction(+ : acc[:2 * GS_COV_NPAR])
    for (long j = j0; j < j1; ++j) deriv_column(w, j, acc);
    if (deriv_stop(w->gp, from + (to - from) * j1 / n)) return gs_interrupted(msg);
  }
  for (int t = 0; t < GS_COV_NPAR; ++t) {
    if (!((w->a->deriv >> t) & 1)) continue;
    w->a->trace[t] = acc[t];
    w->a->quad[t] = acc[GS_COV_NPAR + t];
  }
  return GS_OK;
}

/* tr(A B) = sum_ij A_ij B_ji for n x n matrices, in tiles so that the
 * transposed reads stay in cache. */
static double deriv_trace_product(const double *a, const double *b, long n, int threads)
{
  const long tile = 64, tiles = (n + tile - 1) / tile;
  double s = 0.0;
#pragma omp parallel for schedule(dynamic, 1) num_threads(gs_cpu_threads_for(threads, (double)n * n / 64.0)) reduction(+ : s)
  for (long jt = 0; jt < tiles; ++jt)
    for (long it = 0; it < tiles; ++it)
      for (long j = jt * tile; j < n && j < (jt + 1) * tile; ++j)
        for (long i = it * tile; i < n && i < (it + 1) * tile; ++i) s = fma(a[i + j * n], b[j + i * n], s);
  return s;
}

/* info[s + 4 t] = tr(W_s W_t) with W_t = P dS_t: the generated dS_t held in
 * w->d[t] are replaced by -W_t (gemm_nt subtracts; the signs cancel in
 * pairs of generated ones), the nugget's W is P. */
static gs_status deriv_information(deriv_work *w, double *scratch, double from, char *msg)
{
  const gs_gp *gp = w->gp;
  const int n = (int)gp->n, products = gp_deriv_matrices(w->a) - 2;
  int done = 0;
  const double *wm[GS_COV_NPAR] = {0};
  double sign[GS_COV_NPAR];
  for (int t = 0; t < GS_COV_NPAR; ++t) {
    if (!((w->a->deriv >> t) & 1)) continue;
    sign[t] = w->d[t] ? -1.0 : 1.0;
    wm[t] = w->d[t] ? w->d[t] : w->p;
    if (!w->d[t]) continue;
    memcpy(scratch, w->d[t], (size_t)n * n * sizeof(double));
    memset(w->d[t], 0, (size_t)n * n * sizeof(double));
    for (int j = 0; j < n; j += DERIV_BLOCK) { /* -W[:, j..] = -P dS[:, j..] = -P dS[j.., :]' */
      const int jb = n - j < DERIV_BLOCK ? n - j : DERIV_BLOCK;
      gs_status st = gs_dense_gemm_nt(n, jb, n, w->p, n, scratch + j, n, w->d[t] + (size_t)j * n, n, 0, gp->threads, msg);
      if (st != GS_OK) return st;
      if (deriv_stop(gp, from + (1.0 - from) * (done + (double)(j + jb) / n) / products)) return gs_interrupted(msg);
    }
    ++done;
  }
  for (int t = 0; t < GS_COV_NPAR; ++t)
    for (int s = 0; s <= t; ++s) {
      if (!wm[t] || !wm[s]) continue;
      const double v = sign[s] * sign[t] * deriv_trace_product(wm[s], wm[t], n, gp->threads);
      w->a->info[s + GS_COV_NPAR * t] = w->a->info[t + GS_COV_NPAR * s] = v;
    }
  return GS_OK;
}

gs_status gs_gp_cpu_derivatives(gs_gp *gp, const gs_gp_deriv_args *a, char *msg)
{
  const size_t nn = (size_t)gp->n * gp->n;
  const int matrices = gp_deriv_matrices(a);
  gs_status st = gs_host_memory_check(8.0 * matrices * (double)nn, "The likelihood's derivatives (Sigma^-1 and the "
                                      "derivative matrices)", msg);
  if (st != GS_OK) return st;
  deriv_work w = {.gp = gp, .a = a,
                  .model = matern_deriv_prepare(&a->model)};
  double *scratch = (double *)malloc(nn * sizeof(double));
  w.p = (double *)malloc(nn * sizeof(double));
  for (int t = 0; t < GS_COV_NPAR && a->info; ++t)
    if (((a->deriv & GP_DERIV_GENERATED) >> t) & 1 && !(w.d[t] = (double *)malloc(nn * sizeof(double)))) st = GS_ERR_NOMEM;
  if (!scratch || !w.p || st != GS_OK) {
    st = gs_set_msg(msg, GS_ERR_NOMEM, "out of host memory for the %d n x n matrices of the likelihood's derivatives",
                    matrices);
    goto done;
  }
  /* without the information's products, P and the pass share the whole bar */
  const double scale = (a->info && matrices > 2) ? 1.0 : 1.0 / (DERIV_SHARE_INVERSE + DERIV_SHARE_PASS);
  const double inverse = scale * DERIV_SHARE_INVERSE, pass = inverse + scale * DERIV_SHARE_PASS;
  st = deriv_inverse(gp, w.p, scratch, inverse, msg);
  if (st == GS_OK && a->p > 0) st = deriv_project(gp, w.p, a->x, a->p, msg);
  if (st == GS_OK) st = deriv_pass(&w, inverse, pass, msg);
  if (st == GS_OK && a->info) st = deriv_information(&w, scratch, pass, msg);
done:
  for (int t = 0; t < GS_COV_NPAR; ++t) free(w.d[t]);
  free(w.p);
  free(scratch);
  return st;
}
