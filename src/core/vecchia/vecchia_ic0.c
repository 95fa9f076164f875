/* The incomplete Cholesky factorization of the Vecchia precision plus a
 * diagonal (gs_vecchia_ic0): the structure, the CPU's factor and solves,
 * and the loop over the levels that both devices run (the GPU's kernels in
 * vecchia_ic0_cuda.cu). Written here: CHOLMOD has no incomplete
 * factorization, and cuSPARSE's csric02 takes a CSR matrix in its own
 * order, where this one is the Vecchia factor's pattern in the factor's
 * n x (m + 1) layout, factored in the reverse order at every Newton step;
 * the work is O(n m^2) with m about 30. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "gs_cpu.h"
#include "vecchia_internal.h"

/* Seconds between interrupt checks of the factorization. */
#define VECCHIA_IC0_CHECK_SECONDS 0.1

static int nn_at(const gs_vecchia *v, long i, int s) { return v->nn_rows[i * v->mp1 + s]; }

/* where[b] = s for the members b = nn[i][s] of row i (else -1); returns
 * the row's length. */
static int mark_row(const gs_vecchia *v, long i, int *where)
{
  int s = 0;
  for (; s < v->mp1 && nn_at(v, i, s) >= 0; ++s) where[nn_at(v, i, s)] = s;
  return s;
}

static void unmark_row(const gs_vecchia *v, long i, int len, int *where)
{
  for (int s = 0; s < len; ++s) where[nn_at(v, i, s)] = -1;
}

/* acc[s] += sign * sum of M_li M_lj, j = nn[i][s], over the rows l of m
 * (the factor's layout) that hold point i (l = i too with `self`): row i's
 * products with the rows above it, where marking row i (mark_row). Both
 * Q = W'W on the pattern and the incomplete factor's updates are these. */
static void row_products(const gs_vecchia *v, const double *m, long i, int self, double sign, const int *where,
                         double *acc)
{
  const int mp1 = v->mp1;
  for (long e = v->rev_start[i]; e < v->rev_start[i + 1]; ++e) {
    const long l = v->rev[e] / mp1;
    if (l == i && !self) continue;
    const double mli = sign * m[v->rev[e]];
    for (int s = 0; s < mp1 && nn_at(v, l, s) >= 0; ++s) {
      const int at = where[nn_at(v, l, s)];
      if (at >= 0) acc[at] += mli * m[l * mp1 + s];
    }
  }
}

/* q (the factor's layout) = W'W on the pattern: Q_ij, j = nn[i][s], is the
 * sum over the rows l that hold both of W_li W_lj; each row i gathers its
 * own entries, on the package's threads. */
static gs_status form_q(gs_vecchia *v, char *msg)
{
  const long n = v->n;
  const int mp1 = v->mp1;
  if (!v->q && !(v->q = (double *)malloc((size_t)n * mp1 * sizeof(double))))
    return gs_set_msg(msg, GS_ERR_NOMEM, "cannot allocate the Vecchia precision's pattern (%.3g GB)", n * mp1 * 8e-9);
  const int nthreads = gs_cpu_threads_for(v->threads, (double)n * mp1 * mp1);
  int failed = 0;
#pragma omp parallel num_threads(nthreads)
  {
    int *where = (int *)malloc((size_t)n * sizeof(int));
    if (!where) {
#pragma omp atomic write
      failed = 1;
    } else {
      for (long i = 0; i < n; ++i) where[i] = -1;
    }
#pragma omp for schedule(dynamic, 256)
    for (long i = 0; i < n; ++i) {
      if (!where) continue;
      double *qi = v->q + i * mp1;
      memset(qi, 0, (size_t)mp1 * sizeof(double));
      const int len = mark_row(v, i, where);
      row_products(v, v->w, i, 1, 1.0, where, qi);
      unmark_row(v, i, len, where);
    }
    free(where);
  }
  if (failed) return gs_set_msg(msg, GS_ERR_NOMEM, "cannot allocate the workspace of the Vecchia precision");
  v->q_valid = 1;
  return GS_OK;
}

/* The levels of the points (vecchia_internal.h): a point's is one above the
 * highest of the later points whose rows hold it, 0 for none; then the
 * points sorted by level, each level's in decreasing order. Points of one
 * level do not depend on each other and are factored in parallel. */
static gs_status build_levels(gs_vecchia *v, char *msg)
{
  const long n = v->n;
  const int mp1 = v->mp1;
  long *level = (long *)malloc((size_t)n * sizeof(long)), *points = (long *)malloc((size_t)n * sizeof(long));
  long *start = NULL, *fill = NULL, levels = 0;
  if (level && points) {
    for (long i = n - 1; i >= 0; --i) {
      level[i] = 0;
      for (long e = v->rev_start[i]; e < v->rev_start[i + 1]; ++e) {
        const long l = v->rev[e] / mp1;
        if (l != i && level[l] + 1 > level[i]) level[i] = level[l] + 1;
      }
      if (level[i] + 1 > levels) levels = level[i] + 1;
    }
    start = (long *)calloc((size_t)levels + 1, sizeof(long));
    fill = (long *)malloc((size_t)levels * sizeof(long));
  }
  if (!start || !fill) {
    free(level);
    free(points);
    free(start);
    free(fill);
    return gs_set_msg(msg, GS_ERR_NOMEM, "cannot allocate the levels of the incomplete Cholesky factorization");
  }
  for (long i = 0; i < n; ++i) ++start[level[i] + 1];
  for (long k = 0; k < levels; ++k) start[k + 1] += start[k];
  for (long k = 0; k < levels; ++k) fill[k] = start[k];
  for (long i = n - 1; i >= 0; --i) points[fill[level[i]]++] = i;
  free(level);
  free(fill);
  v->level_start = start;
  v->level_points = points;
  v->levels = levels;
  return GS_OK;
}

/* Column i of the factor into ic's row i (where: n entries of -1, left so);
 * returns 0, or 1 where the pivot is not positive. */
static int factor_column(const gs_vecchia *v, const double *d, long i, int *where)
{
  const int mp1 = v->mp1;
  double *ic = v->ic, *li = ic + i * mp1;
  const int len = mark_row(v, i, where);
  for (int s = 0; s < mp1; ++s) li[s] = s < len ? v->q[i * mp1 + s] : 0.0;
  li[0] += d[i];
  row_products(v, ic, i, 0, -1.0, where, li); /* the columns of the later points, done */
  unmark_row(v, i, len, where);
  if (!(li[0] > 0.0) || !isfinite(li[0])) return 1;
  li[0] = sqrt(li[0]);
  for (int s = 1; s < len; ++s) li[s] /= li[0];
  return 0;
}

/* Level k's columns on the CPU's threads; *failed lowered to the lowest
 * point of the level whose pivot is not positive. */
static void cpu_level(const gs_vecchia *v, const double *d, long k, int nthreads, int *where, long *failed)
{
  const long p0 = v->level_start[k], p1 = v->level_start[k + 1];
  const int threads = gs_cpu_threads_for(nthreads, (double)(p1 - p0) * v->mp1 * v->mp1);
#pragma omp parallel num_threads(threads)
  {
    int me = 0;
#ifdef _OPENMP
    me = omp_get_thread_num();
#endif
#pragma omp for schedule(dynamic, 64)
    for (long t = p0; t < p1; ++t) {
      const long i = v->level_points[t];
      if (factor_column(v, d, i, where + (long)me * v->n)) {
#pragma omp critical(gs_vecchia_ic0_failed)
        if (i < *failed) *failed = i;
      }
    }
  }
}

/* The structure both devices share, once per object (the columns and the
 * levels), and on the CPU the factor on the host and Q after each
 * factorization. */
static gs_status ic0_prepare(gs_vecchia *v, char *msg)
{
  gs_status st = vecchia_columns(v, msg);
  if (st == GS_OK && !v->level_start) st = build_levels(v, msg);
  if (st != GS_OK || v->device >= 0 || v->q_valid) return st;
  if ((st = vecchia_host_factor(v, msg)) != GS_OK) return st;
  return form_q(v, msg);
}

gs_status gs_vecchia_ic0(gs_vecchia *v, const double *d, double *logdet, char *msg)
{
  if (!v->factored || !v->nn) return gs_set_msg(msg, GS_ERR_ARG, "the Vecchia object has no factor (grouped, or not factored)");
  gs_status st = ic0_prepare(v, msg);
  if (st != GS_OK) return st;
  const long n = v->n;
  const int mp1 = v->mp1, gpu = v->device >= 0;
  int nthreads = 1, *where = NULL;
  double *pivots = NULL;
  if (gpu) {
    if (!(pivots = (double *)malloc((size_t)n * sizeof(double))))
      return gs_set_msg(msg, GS_ERR_NOMEM, "cannot allocate the incomplete Cholesky factor's pivots");
    if ((st = gs_vecchia_gpu_ic0_begin(v, d, !v->q_valid, msg)) != GS_OK) goto done;
    v->q_valid = 1;
  } else {
    if (!v->ic && !(v->ic = (double *)malloc((size_t)n * mp1 * sizeof(double))))
      return gs_set_msg(msg, GS_ERR_NOMEM, "cannot allocate the incomplete Cholesky factor (%.3g GB)", n * mp1 * 8e-9);
    nthreads = gs_cpu_threads_for(v->threads, (double)n * mp1 * mp1);
    if (!(where = (int *)malloc((size_t)nthreads * n * sizeof(int))))
      return gs_set_msg(msg, GS_ERR_NOMEM, "cannot allocate the incomplete Cholesky workspace");
    for (long i = 0; i < (long)nthreads * n; ++i) where[i] = -1;
  }
  long failed = n; /* the lowest point of the first level with a pivot not positive */
  double checked = gs_wall_seconds();
  for (long k = 0; k < v->levels && failed == n; ++k) {
    /* sequential over the levels: an interrupt check every tenth of a
     * second between them (at 1e6 points the factorization takes seconds
     * on the CPU) */
    if (v->progress && gs_wall_seconds() - checked > VECCHIA_IC0_CHECK_SECONDS) {
      checked = gs_wall_seconds();
      if (v->progress((double)v->level_start[k] / n)) {
        st = gs_interrupted(msg);
        goto done;
      }
    }
    if (!gpu) cpu_level(v, d, k, nthreads, where, &failed);
    else if ((st = gs_vecchia_gpu_ic0_level(v, k, msg)) != GS_OK) goto done;
  }
  if (gpu && (st = gs_vecchia_gpu_ic0_end(v, pivots, &failed, msg)) != GS_OK) goto done;
  if (failed < n) {
    st = gs_set_msg(msg, GS_ERR_NOT_PD, "the incomplete Cholesky factorization of the Vecchia-Laplace matrix broke "
                                        "down at point %ld (a pivot not positive)", failed + 1);
    goto done;
  }
  double sum = 0.0;
  for (long i = 0; i < n; ++i) sum += log(gpu ? pivots[i] : v->ic[i * mp1]);
  *logdet = 2.0 * sum;
done:
  free(where);
  free(pivots);
  return st;
}

gs_status gs_vecchia_ic0_solve(gs_vecchia *v, const double *r, double *x, char *msg)
{
  if (v->device >= 0) return gs_vecchia_gpu_ic0_solve(v, r, x, msg);
  const long n = v->n;
  const int mp1 = v->mp1;
  const double *ic = v->ic;
  if (x != r) memcpy(x, r, (size_t)n * sizeof(double));
  /* L z = r: columns in the reverse order, each scattered below */
  for (long i = n - 1; i >= 0; --i) {
    const double *li = ic + i * mp1;
    x[i] /= li[0];
    for (int s = 1; s < mp1 && nn_at(v, i, s) >= 0; ++s) x[nn_at(v, i, s)] -= li[s] * x[i];
  }
  /* L' x = z: in the order, each gathering its earlier points */
  for (long i = 0; i < n; ++i) {
    const double *li = ic + i * mp1;
    double s_ = x[i];
    for (int s = 1; s < mp1 && nn_at(v, i, s) >= 0; ++s) s_ -= li[s] * x[nn_at(v, i, s)];
    x[i] = s_ / li[0];
  }
  return GS_OK;
}
