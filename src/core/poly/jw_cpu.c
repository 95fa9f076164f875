/* Jones-Worland polynomials and transforms on the CPU: evaluation, the
 * quadrature transforms (a matrix of polynomial values and BLAS) and the
 * connection transforms (bidiagonal steps to Chebyshev coefficients, then
 * a DCT). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gs_cpu.h"
#include "gs_poly.h"
#include "lapack.h"
#include "poly_internal.h"
#include "poly_math.h"

gs_status gs_jw_eval(long len, const int *n, const int *l, const double *r, int norm, double *out, char *msg)
{
  for (long i = 0; i < len; ++i) {
    if (n[i] < 0 || l[i] < 0 || !(r[i] >= 0.0 && r[i] <= 1.0))
      return gs_set_msg(msg, GS_ERR_ARG, "element %ld: jw_eval needs n >= 0, l >= 0 and 0 <= r <= 1", i + 1);
    if (n[i] > GS_JW_MAX_DEGREE || l[i] > GS_JW_MAX_DEGREE)
      return gs_set_msg(msg, GS_ERR_ARG, "element %ld: degrees n = %d, l = %d; each must be at most %d, "
                        "beyond which the recurrence would lose about n ulps", i + 1, n[i], l[i], GS_JW_MAX_DEGREE);
  }
  int failed = 0;
#pragma omp parallel for num_threads(gs_cpu_threads_for(0, 10.0 * len / POLY_FLOPS_PER_WORK)) schedule(static)
  for (long i = 0; i < len; ++i) {
    double *buf = (double *)malloc(((size_t)n[i] + 1) * sizeof(double));
    if (buf) {
      jw_unit_values(l[i], n[i] + 1, r[i], gs_jw_q0(l[i]), buf, 1);
      out[i] = buf[n[i]];
      if (norm == GS_JW_NATURAL) out[i] *= (double)expl(0.5L * gs_jw_log_norm(n[i], l[i]));
    } else {
#pragma omp atomic write
      failed = 1;
    }
    free(buf);
  }
  return failed ? gs_set_msg(msg, GS_ERR_NOMEM, "jw_eval: out of memory for the recurrence") : GS_OK;
}

/* ---- quadrature ---------------------------------------------------------------- */

/* The nr x ncoef matrix of unit polynomial values on the grid. */
static double *jw_matrix(const gs_jwt_args *a, int threads)
{
  double *q = (double *)malloc((size_t)a->nr * a->ncoef * sizeof(double));
  if (!q) return NULL;
  const double q0 = gs_jw_q0(a->l);
#pragma omp parallel for num_threads(gs_cpu_threads_for(threads, 10.0 * a->nr * a->ncoef / POLY_FLOPS_PER_WORK)) schedule(static)
  for (long k = 0; k < a->nr; ++k) jw_unit_values(a->l, (int)a->ncoef, jw_node(k, a->nr), q0, q + k, a->nr);
  return q;
}

static gs_status jw_quadrature(const gs_jwt_args *a, int analysis, int threads, char *msg)
{
  double *q = jw_matrix(a, threads);
  if (!q) return gs_set_msg(msg, GS_ERR_NOMEM, "no memory for the %ld x %ld matrix of the quadrature", a->nr, a->ncoef);
  const int nr = (int)a->nr, nc = (int)a->ncoef, ncol = (int)a->ncol;
  const double zero = 0.0, one = 1.0, w = jw_weight(a->nr);
  if (analysis)
    dgemm_("T", "N", &nc, &ncol, &nr, &w, q, &nr, a->values, &nr, &zero, a->coef, &nc, 1, 1);
  else
    dgemm_("N", "N", &nr, &ncol, &nc, &one, q, &nr, a->coef, &nc, &zero, a->values, &nr, 1, 1);
  free(q);
  return GS_OK;
}

/* ---- connection (the chains are in poly_math.h) ------------------------------- */

static gs_status jw_connection(const gs_jwt_args *a, int analysis, int threads, char *msg)
{
  const int l = a->l;
  const long nr = a->nr, top = a->ncoef + l / 2;
  if (top > nr)
    return gs_set_msg(msg, GS_ERR_ARG, "the grid of %ld points is too small for %ld coefficients of degree %d", nr,
                      a->ncoef, l);
  gs_jw_chain c;
  const int made = gs_jw_chain_make(&c, l, top + 1);
  double *t = (double *)calloc((size_t)nr * a->ncol, sizeof(double));
  if (!t || !made) {
    free(t);
    gs_jw_chain_free(&c);
    return gs_set_msg(msg, GS_ERR_NOMEM, "no memory for the connection transform");
  }
  const int type = c.l0 ? 4 : (analysis ? 2 : 3);
  const int nt = gs_cpu_threads_for(threads, 4.0 * top * (l + 2) * a->ncol / POLY_FLOPS_PER_WORK);
  gs_status st = GS_OK;
  if (!analysis) {
#pragma omp parallel for num_threads(nt) schedule(static)
    for (long j = 0; j < a->ncol; ++j) {
      double *tj = t + j * nr;
      memcpy(tj, a->coef + j * a->ncoef, (size_t)a->ncoef * sizeof(double));
      jw_chain_down(c.mu, c.nu, c.len, c.l0, l, a->ncoef, tj);
      for (long n = 0; n < top; ++n) tj[n] *= jw_dct_scale(c.l0, n, 0, nr);
    }
    st = gs_dct_cpu(type, nr, a->ncol, t, a->values, threads, msg);
  } else {
    st = gs_dct_cpu(type, nr, a->ncol, a->values, t, threads, msg);
#pragma omp parallel for num_threads(nt) schedule(static)
    for (long j = 0; j < (st == GS_OK ? a->ncol : 0); ++j) {
      double *tj = t + j * nr;
      for (long n = 0; n < top; ++n) tj[n] *= jw_dct_scale(c.l0, n, 1, nr);
      jw_chain_up(c.mu, c.nu, c.len, c.l0, l, a->ncoef, tj);
      memcpy(a->coef + j * a->ncoef, tj, (size_t)a->ncoef * sizeof(double));
    }
  }
  gs_jw_chain_free(&c);
  free(t);
  return st;
}

gs_status gs_jwt_synthesis_cpu(const gs_jwt_args *a, int threads, char *msg)
{
  if (a->ncol < 1 || a->nr < 1) return GS_OK;
  return a->method == GS_JW_QUADRATURE ? jw_quadrature(a, 0, threads, msg) : jw_connection(a, 0, threads, msg);
}

gs_status gs_jwt_analysis_cpu(const gs_jwt_args *a, int threads, char *msg)
{
  if (a->ncol < 1 || a->nr < 1) return GS_OK;
  return a->method == GS_JW_QUADRATURE ? jw_quadrature(a, 1, threads, msg) : jw_connection(a, 1, threads, msg);
}
