/* The CPU's kriging loop (gs_krige_blocks.h): a block of new locations at a
 * time, it builds their cross-covariances on all cores, solves them with the
 * factor's threaded solve and reduces them in place. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "gp_krige_math.h"
#include "gs_cpu.h"
#include "gs_krige_blocks.h"
#include "lapack.h"

/* The cross-covariances of a block take at most this much memory (the
 * dense factor's solve, which transposes them, as much again). */
#define GP_KRIGE_BLOCK_BYTES ((size_t)256 << 20)
/* The first block has about this many multiply-adds; later ones are sized
 * to take about GP_KRIGE_BLOCK_SECONDS (gs_batch_resize), so that progress
 * and interrupt checks come at a steady pace, from a forward solve of
 * n^2 / 2 multiply-adds per location at n = 46,000 to predictions alone,
 * which cost O(n) each. */
#define GP_KRIGE_FIRST_WORK 1073741824.0
#define GP_KRIGE_BLOCK_SECONDS 1.0

/* fit = x0 B for the block of new locations at x0 (leading dimensions m). */
static void krige_trend(const gs_gp_krige_args *a, int rows, const double *x0, double *fit)
{
  const int m = (int)a->m, p = a->p, k = a->k;
  const double one = 1.0, zero = 0.0;
  if (p) {
    dgemm_("N", "N", &rows, &k, &p, &one, x0, &m, a->beta, &p, &zero, fit, &m, 1, 1);
    return;
  }
  for (int c = 0; c < k; ++c) memset(fit + (size_t)c * m, 0, (size_t)rows * sizeof(double));
}

/* The standard errors of a block: wc = G^-1 c_0 (n x rows), g = W' wc. */
static void krige_se(const gs_krige_factor *f, const gs_gp_krige_args *a, int rows, long j0, const double *wc,
                     const double *g, double *se)
{
  const long n = f->n;
  const double sigma2 = a->model.par[GS_COV_SIGMA2];
#pragma omp parallel for schedule(static) num_threads(gs_cpu_threads_for(f->threads, (double)n * rows))
  for (int j = 0; j < rows; ++j) {
    const double *col = wc + (size_t)j * n;
    double s = 0.0;
    for (long i = 0; i < n; ++i) s += col[i] * col[i];
    se[j] = gp_krige_se(sigma2, s, a->x0 + j0 + j, a->m, g + (size_t)j * a->p, a->a, a->p);
  }
}

gs_status gs_krige_check(const gs_gp_krige_args *a, int dim, char *msg)
{
  gs_status st = gs_cov_model_check(&a->model, dim, msg);
  if (st != GS_OK) return st;
  /* p may reach n: replicates with missing values krige a replicate observed
   * at few locations with the trend pooled over all of them (A and B given) */
  if (a->m < 0 || a->m > INT_MAX || a->dim != dim || a->p < 0 || a->k < 1 || !a->r || !a->fit ||
      (a->m > 0 && !a->locs) || (a->p > 0 && (!a->x0 || !a->w || !a->beta || !a->a)))
    return gs_set_msg(msg, GS_ERR_ARG, "bad kriging call");
  return GS_OK;
}

gs_status gs_krige_blocks(const gs_krige_factor *f, const gs_gp_krige_args *a, char *msg)
{
  gs_status st = GS_OK;
  const long n = f->n, m = a->m;
  const int nn = (int)n, mm = (int)m, p = a->p, k = a->k, dim = a->dim;
  const double one = 1.0, zero = 0.0;
  const double per_location = a->se ? 0.5 * (double)n * n : (double)n * (k + 1);
  long most = (long)(GP_KRIGE_BLOCK_BYTES / ((size_t)n * sizeof(double)));
  if (most < 1) most = 1;
  if (most > m) most = m;
  long block = (long)(GP_KRIGE_FIRST_WORK / per_location);
  if (block < 1) block = 1;
  if (block > most) block = most;
  double *c = (double *)malloc((size_t)n * most * sizeof(double));
  double *locs = (double *)malloc((size_t)most * dim * sizeof(double));
  double *g = (double *)malloc(((size_t)p * most + 1) * sizeof(double));
  double *v = a->se ? NULL : (double *)malloc((size_t)n * k * sizeof(double));
  if (!c || !locs || !g || (!a->se && !v)) {
    st = gs_set_msg(msg, GS_ERR_NOMEM, "out of host memory for the cross-covariances of %ld new locations", most);
    goto done;
  }
  if (v) { /* predictions alone: c_0' Sigma^-1 (Y - X B) = c_0' v */
    memcpy(v, a->r, (size_t)n * k * sizeof(double));
    if ((st = f->backward(f->ctx, v, k, msg)) != GS_OK) goto done;
  }
  /* j0 moves by the rows done: block may change size after each */
  for (long j0 = 0, done_rows; j0 < m; j0 += done_rows) {
    const double t0 = gs_wall_seconds();
    const int rows = (int)(block < m - j0 ? block : m - j0);
    done_rows = rows;
    for (int d = 0; d < dim; ++d) memcpy(locs + (size_t)d * rows, a->locs + j0 + (size_t)d * m, rows * sizeof(double));
    const gs_matern_cov_args cov = {
        .locs1 = f->locs, .n1 = n, .locs2 = locs, .n2 = rows, .dim = dim, .model = a->model, .lower_only = 0, .out = c};
    if ((st = gs_matern_cov_cpu(&cov, f->threads, NULL, msg)) != GS_OK) goto done;
    double *fit = a->fit + j0;
    krige_trend(a, rows, a->x0 + j0, fit);
    if (v) {
      dgemm_("T", "N", &rows, &k, &nn, &one, c, &nn, v, &nn, &one, fit, &mm, 1, 1);
    } else {
      if ((st = f->forward(f->ctx, c, rows, msg)) != GS_OK) goto done;
      dgemm_("T", "N", &rows, &k, &nn, &one, c, &nn, a->r, &nn, &one, fit, &mm, 1, 1);
      if (p) dgemm_("T", "N", &p, &rows, &nn, &one, a->w, &nn, c, &nn, &zero, g, &p, 1, 1);
      krige_se(f, a, rows, j0, c, g, a->se + j0);
    }
    if (f->progress && f->progress((double)(j0 + rows) / m)) {
      st = gs_interrupted(msg);
      goto done;
    }
    block = (long)gs_batch_resize((size_t)block, gs_wall_seconds() - t0, GP_KRIGE_BLOCK_SECONDS, 1);
    if (block > most) block = most;
  }
done:
  free(c);
  free(locs);
  free(g);
  free(v);
  return st;
}
