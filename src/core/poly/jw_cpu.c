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
#include "poly_math.h"

#define SQRT_PI 1.772453850905516027298167483341145L

/* log h_n^l, h_n^l = int_0^1 (W_n^l)^2 (1 - r^2)^(-1/2) dr, in long double
 * (about 3 digits beyond double, where long double has a 64-bit mantissa). */
static long double jw_log_norm(int n, int l)
{
  if (n == 0 && l == 0) return logl(1.5707963267948966192313216916397514L);
  return lgammal(n + 0.5L) + lgammal(n + l + 0.5L) - logl(2.0L * (2 * n + l)) - lgammal((long double)n + l) -
         lgammal(n + 1.0L);
}

static double jw_q0(int l) { return (double)expl(-0.5L * jw_log_norm(0, l)); }

gs_status gs_jw_eval(long len, const int *n, const int *l, const double *r, int norm, double *out, char *msg)
{
  for (long i = 0; i < len; ++i) {
    if (n[i] < 0 || l[i] < 0 || !(r[i] >= 0.0 && r[i] <= 1.0))
      return gs_set_msg(msg, GS_ERR_ARG, "element %ld: jw_eval needs n >= 0, l >= 0 and 0 <= r <= 1", i + 1);
  }
#pragma omp parallel for num_threads(gs_cpu_threads_for(0, (double)len * 8.0)) schedule(static)
  for (long i = 0; i < len; ++i) {
    double *buf = (double *)malloc(((size_t)n[i] + 1) * sizeof(double));
    if (buf) {
      jw_unit_values(l[i], n[i] + 1, r[i], jw_q0(l[i]), buf, 1);
      out[i] = buf[n[i]];
      if (norm == GS_JW_NATURAL) out[i] *= (double)expl(0.5L * jw_log_norm(n[i], l[i]));
    } else {
      out[i] = NAN;
    }
    free(buf);
  }
  return GS_OK;
}

/* The grid r_k = cos(pi (2k + 1) / (4 nr)) and its weight pi / (2 nr). */
static double jw_node(long k, long nr) { return cos(M_PI * (2.0 * k + 1.0) / (4.0 * nr)); }
static double jw_weight(long nr) { return M_PI / (2.0 * nr); }

/* ---- quadrature ---------------------------------------------------------------- */

/* The nr x ncoef matrix of unit polynomial values on the grid. */
static double *jw_matrix(const gs_jwt_args *a, int threads)
{
  double *q = (double *)malloc((size_t)a->nr * a->ncoef * sizeof(double));
  if (!q) return NULL;
  const double q0 = jw_q0(a->l);
#pragma omp parallel for num_threads(gs_cpu_threads_for(threads, 10.0 * a->nr * a->ncoef)) schedule(static)
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

/* ---- connection ------------------------------------------------------------------
 * Coefficients c of W^l (beta = l - 1/2) become those of W^(l-2) by
 * e = U^-1 A_beta c, where A_beta (lower bidiagonal: mu_n^beta, nu_n^beta)
 * multiplies by 1 + x and U = A_(beta-1)^T changes the basis; analysis is
 * the transpose, A_beta^T A_(beta-1)^-1. Even l end at W^0 (Chebyshev T_2n:
 * a DCT-III/II), odd l at W^1 (T_2n+1: a DCT-IV). */
typedef struct {
  int l0, levels; /* base degree (l mod 2) and number of betas, l - l0 */
  long len;       /* entries per beta */
  double *mu, *nu; /* [b * len + n] for beta = l0 + b + 1/2 */
} jw_chain;

static int jw_chain_make(jw_chain *c, int l, long len)
{
  c->l0 = l % 2;
  c->levels = l - c->l0;
  c->len = len;
  const size_t sz = (size_t)(c->levels > 0 ? c->levels : 1) * len;
  c->mu = (double *)malloc(sz * sizeof(double));
  c->nu = (double *)malloc(sz * sizeof(double));
  if (!c->mu || !c->nu) return 0;
  for (int b = 0; b < c->levels; ++b)
    for (long n = 0; n < len; ++n) {
      c->mu[b * len + n] = jw_mu((int)n, c->l0 + b + 0.5);
      c->nu[b * len + n] = jw_nu((int)n, c->l0 + b + 0.5);
    }
  return 1;
}

static void jw_chain_free(jw_chain *c)
{
  free(c->mu);
  free(c->nu);
}

/* Synthesis chain on t (ncoef entries in, ncoef + (l - l0) / 2 out). */
static void jw_chain_down(const jw_chain *c, int l, long ncoef, double *t)
{
  long len = ncoef;
  for (int j = l; j > c->l0; j -= 2) {
    const double *mu = c->mu + (j - c->l0 - 1) * c->len, *nu = c->nu + (j - c->l0 - 1) * c->len;
    const double *mu1 = mu - c->len, *nu1 = nu - c->len;
    t[len] = nu[len - 1] * t[len - 1];
    for (long n = len - 1; n > 0; --n) t[n] = mu[n] * t[n] + nu[n - 1] * t[n - 1];
    t[0] *= mu[0];
    ++len;
    t[len - 1] /= mu1[len - 1];
    for (long n = len - 2; n >= 0; --n) t[n] = (t[n] - nu1[n] * t[n + 1]) / mu1[n];
  }
}

/* Analysis chain on t (ncoef + (l - l0) / 2 entries in, ncoef out). */
static void jw_chain_up(const jw_chain *c, int l, long ncoef, double *t)
{
  long len = ncoef + (l - c->l0) / 2;
  for (int j = c->l0 + 2; j <= l; j += 2) {
    const double *mu = c->mu + (j - c->l0 - 1) * c->len, *nu = c->nu + (j - c->l0 - 1) * c->len;
    const double *mu1 = mu - c->len, *nu1 = nu - c->len;
    t[0] /= mu1[0];
    for (long n = 1; n < len; ++n) t[n] = (t[n] - nu1[n - 1] * t[n - 1]) / mu1[n];
    --len;
    for (long n = 0; n < len; ++n) t[n] = mu[n] * t[n] + nu[n] * t[n + 1];
  }
}

static gs_status jw_connection(const gs_jwt_args *a, int analysis, int threads, char *msg)
{
  const int l = a->l;
  const long nr = a->nr, top = a->ncoef + l / 2;
  if (top > nr) return gs_set_msg(msg, GS_ERR_ARG, "the grid of %ld points is too small for %ld coefficients of degree %d", nr, a->ncoef, l);
  jw_chain c;
  double *t = (double *)calloc((size_t)nr * a->ncol, sizeof(double));
  if (!t || !jw_chain_make(&c, l, top + 1)) {
    free(t);
    return gs_set_msg(msg, GS_ERR_NOMEM, "no memory for the connection transform");
  }
  const int type = c.l0 ? 4 : (analysis ? 2 : 3), nt = gs_cpu_threads_for(threads, 4.0 * (double)top * (l + 2) * a->ncol);
  /* the unit W^0_n and W^1_n are sqrt(2 / pi) (n = 0) and (2 / sqrt(pi)) cos: the DCTs' own factors of 2 */
  const double s = 1.0 / (double)SQRT_PI;
  gs_status st = GS_OK;
  if (!analysis) {
#pragma omp parallel for num_threads(nt) schedule(static)
    for (long j = 0; j < a->ncol; ++j) {
      double *tj = t + j * nr;
      memcpy(tj, a->coef + j * a->ncoef, (size_t)a->ncoef * sizeof(double));
      jw_chain_down(&c, l, a->ncoef, tj);
      tj[0] *= c.l0 ? s : sqrt(2.0) * s;
      for (long n = 1; n < top; ++n) tj[n] *= s;
    }
    st = gs_dct_cpu(type, nr, a->ncol, t, a->values, threads, msg);
  } else {
    st = gs_dct_cpu(type, nr, a->ncol, a->values, t, threads, msg);
    const double w = jw_weight(nr);
#pragma omp parallel for num_threads(nt) schedule(static)
    for (long j = 0; j < (st == GS_OK ? a->ncol : 0); ++j) {
      double *tj = t + j * nr;
      tj[0] *= w * (c.l0 ? s : s / sqrt(2.0));
      for (long n = 1; n < top; ++n) tj[n] *= w * s;
      jw_chain_up(&c, l, a->ncoef, tj);
      memcpy(a->coef + j * a->ncoef, tj, (size_t)a->ncoef * sizeof(double));
    }
  }
  jw_chain_free(&c);
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
