/* The mode of the latent field and the Laplace approximation of the
 * marginal likelihood: Newton's iteration in the form of Rasmussen and
 * Williams (2006, algorithm 3.1), with step halving. Per step, with
 * s = W^1/2 at the current f:
 *   B = I + S K S = L L',   b = W f + d log p / d f,
 *   a_new = b - S L'^-1 L^-1 S K b,   f_new = K a_new,
 * which is f_new = (K^-1 + W)^-1 b written with B's factor only: one
 * Cholesky factorization (n^3 / 3) and three products or solves with
 * n x n matrices (n^2 each) per step. */
#include <float.h>
#include <math.h>
#include <string.h>

#include "gs_cpu.h"
#include "gs_dense.h"
#include "laplace_internal.h"
#include "lapack.h"

/* Halvings of a Newton step before the iteration gives up: 2^-40 of a step
 * moves f by less than rounding. */
#define LAPLACE_MAX_HALVINGS 40

/* A step is accepted where the objective rises, or falls by no more than
 * its rounding (sums of n terms of its size), so that steps near the mode,
 * whose gain is below the rounding, are not halved for nothing. */
#define LAPLACE_ROUNDING (64.0 * DBL_EPSILON)

gs_status gs_laplace_data_check(const gs_laplace_data *d, char *msg)
{
  if (d->family < 0 || d->family >= GS_GLMM_FAMILY_COUNT || (d->family == GS_GLMM_BINOMIAL && !d->trials) ||
      (gs_glmm_has_param(d->family) && !(d->param > 0.0 && isfinite(d->param))) ||
      d->max_iter < 1 || !(d->tol > 0.0))
    return gs_set_msg(msg, GS_ERR_ARG, "bad Laplace mode call");
  return GS_OK;
}

/* Observations per chunk of laplace_sums, chunks per parallel batch (their
 * sums on the stack), and the work of one observation (a log density:
 * lgamma, exp) in the package's units. */
#define LAPLACE_CHUNK 2048
#define LAPLACE_BATCH 256
#define LAPLACE_POINT_WORK 8.0

void laplace_sums(long n, int count, laplace_chunk_fn fn, const void *ctx, double *sums)
{
  double part[LAPLACE_BATCH * LAPLACE_MAX_SUMS];
  const long chunks = (n + LAPLACE_CHUNK - 1) / LAPLACE_CHUNK;
  const int threads = gs_cpu_threads_for(0, (double)n * LAPLACE_POINT_WORK);
  memset(sums, 0, (size_t)count * sizeof(double));
  for (long c0 = 0; c0 < chunks; c0 += LAPLACE_BATCH) {
    const long c1 = c0 + LAPLACE_BATCH < chunks ? c0 + LAPLACE_BATCH : chunks;
#pragma omp parallel for schedule(static) num_threads(threads)
    for (long c = c0; c < c1; ++c) {
      double *p = part + (c - c0) * count;
      memset(p, 0, (size_t)count * sizeof(double));
      fn(ctx, c * LAPLACE_CHUNK, (c + 1) * LAPLACE_CHUNK < n ? (c + 1) * LAPLACE_CHUNK : n, p);
    }
    for (long c = 0; c < c1 - c0; ++c)
      for (int k = 0; k < count; ++k) sums[k] += part[c * count + k];
  }
}

typedef struct {
  const gs_laplace_data *d;
  const double *a, *f;
} objective_args;

static void objective_chunk(const void *ctx, long i0, long i1, double *sums)
{
  const objective_args *o = (const objective_args *)ctx;
  for (long i = i0; i < i1; ++i) {
    sums[0] += o->a[i] * o->f[i];
    sums[1] += laplace_point(o->d, i, o->d->eta0[i] + o->f[i]).logp;
  }
}

double laplace_objective(const gs_laplace_data *d, long n, const double *a, const double *f, double *loglik_y)
{
  const objective_args o = {.d = d, .a = a, .f = f};
  double sums[2];
  laplace_sums(n, 2, objective_chunk, &o, sums);
  *loglik_y = sums[1];
  const double psi = -0.5 * sums[0] + sums[1];
  return isfinite(psi) ? psi : -INFINITY;
}

double laplace_max_abs(const double *x, long n)
{
  double m = 0.0;
  for (long i = 0; i < n; ++i) m = fmax(m, fabs(x[i]));
  return m;
}

/* out = K x (K's lower triangle). */
static void k_times(const gs_laplace *lp, const double *x, double *out)
{
  const int n = (int)lp->n, one_i = 1;
  const double one = 1.0, zero = 0.0;
  dsymv_("L", &n, &one, lp->k, &n, x, &one_i, &zero, out, &one_i, 1);
}

/* At f: s = W^1/2, rhs = W f + d log p / d f, and B = I + S K S factored in
 * place; *logdet = log |B|. */
static gs_status factor_b(gs_laplace *lp, const gs_laplace_data *d, const double *f, double *logdet, char *msg)
{
  const long n = lp->n;
  double *s = lp->work + LAPLACE_SQRT_W * n, *rhs = lp->work + LAPLACE_B_RHS * n;
  for (long i = 0; i < n; ++i) {
    const gs_glmm_point p = laplace_point(d, i, d->eta0[i] + f[i]);
    s[i] = sqrt(p.weight);
    rhs[i] = p.weight * f[i] + p.grad;
  }
  for (long j = 0; j < n; ++j) {
    const double *kj = lp->k + j * n;
    double *bj = lp->b + j * n;
    for (long i = j; i < n; ++i) bj[i] = s[i] * kj[i] * s[j];
    bj[j] += 1.0;
  }
  long minor = 0;
  gs_status st = gs_dense_potrf((int)n, lp->b, (int)n, lp->threads, &minor, msg);
  if (st == GS_ERR_NOT_PD) /* B >= I: only non-finite weights or covariances get here */
    return gs_set_msg(msg, st, "the Laplace approximation's matrix I + W^1/2 K W^1/2 is not positive definite at order "
                               "%ld: the weights or the covariance are not finite",
                      minor);
  if (st != GS_OK) return st;
  double sum = 0.0;
  for (long i = 0; i < n; ++i) sum += log(lp->b[i + i * n]);
  *logdet = 2.0 * sum;
  return GS_OK;
}

/* The Newton point from the factor of B at the current f: a_new and
 * f_new = K a_new. */
static void newton_point(gs_laplace *lp, double *a_new, double *f_new)
{
  const int n = (int)lp->n, one_i = 1;
  const double *s = lp->work + LAPLACE_SQRT_W * lp->n, *rhs = lp->work + LAPLACE_B_RHS * lp->n;
  double *z = lp->work + LAPLACE_SOLVE * lp->n;
  k_times(lp, rhs, z);
  for (int i = 0; i < n; ++i) z[i] *= s[i];
  dtrsv_("L", "N", "N", &n, lp->b, &n, z, &one_i, 1, 1, 1);
  dtrsv_("L", "T", "N", &n, lp->b, &n, z, &one_i, 1, 1, 1);
  for (int i = 0; i < n; ++i) a_new[i] = rhs[i] - s[i] * z[i];
  k_times(lp, a_new, f_new);
}

double laplace_start(const gs_laplace_data *d, long n, double *a, double *f, double *zeros, double *loglik_y)
{
  double start_y;
  const double start = laplace_objective(d, n, a, f, &start_y);
  memset(zeros, 0, (size_t)n * sizeof(double));
  const double zero = laplace_objective(d, n, zeros, zeros, loglik_y);
  if (start >= zero) {
    *loglik_y = start_y;
    return start;
  }
  memset(a, 0, (size_t)n * sizeof(double));
  memset(f, 0, (size_t)n * sizeof(double));
  return zero;
}

int laplace_halving_step(const gs_laplace_data *d, long n, double *a, double *f, const double *a_new,
                         const double *f_new, double *a_try, double *f_try, double *psi, double *loglik_y)
{
  double t = 1.0;
  for (int h = 0; h <= LAPLACE_MAX_HALVINGS; ++h, t *= 0.5) {
    for (long i = 0; i < n; ++i) {
      a_try[i] = a[i] + t * (a_new[i] - a[i]);
      f_try[i] = f[i] + t * (f_new[i] - f[i]);
    }
    double try_y;
    const double psi_try = laplace_objective(d, n, a_try, f_try, &try_y);
    if (psi_try >= *psi - LAPLACE_ROUNDING * (double)n * (1.0 + fabs(*psi))) {
      memcpy(a, a_try, (size_t)n * sizeof(double));
      memcpy(f, f_try, (size_t)n * sizeof(double));
      *psi = psi_try;
      *loglik_y = try_y;
      return 1;
    }
  }
  return 0;
}

gs_status gs_laplace_mode(gs_laplace *lp, const gs_laplace_data *d, double *a, double *f, gs_laplace_info *info,
                          char *msg)
{
  if (!lp->has_covariance) return gs_set_msg(msg, GS_ERR_ARG, "the Laplace object has no covariance");
  gs_status st = gs_laplace_data_check(d, msg);
  if (st != GS_OK) return st;
  const long n = lp->n;
  double *a_new = lp->work + LAPLACE_A_NEW * n, *f_new = lp->work + LAPLACE_F_NEW * n;
  double loglik_y, logdet = 0.0;
  lp->has_mode = 0;
  k_times(lp, a, f);
  double psi = laplace_start(d, n, a, f, lp->work + LAPLACE_A_TRY * n, &loglik_y);
  int converged = 0, steps = 0;
  for (;;) {
    if ((st = factor_b(lp, d, f, &logdet, msg)) != GS_OK) return st;
    if (converged || steps == d->max_iter) break;
    newton_point(lp, a_new, f_new);
    double change = 0.0;
    for (long i = 0; i < n; ++i) change = fmax(change, fabs(f_new[i] - f[i]));
    converged = change <= d->tol * (1.0 + laplace_max_abs(f, n));
    ++steps;
    if (!laplace_halving_step(d, n, a, f, a_new, f_new, lp->work + LAPLACE_A_TRY * n, lp->work + LAPLACE_F_TRY * n,
                              &psi, &loglik_y))
      break; /* no rise: short of the mode, not converged */
  }
  lp->has_mode = 1;
  info->loglik = psi - 0.5 * logdet;
  info->loglik_y = loglik_y;
  info->logdet = logdet;
  info->iterations = steps;
  info->converged = converged;
  return GS_OK;
}
