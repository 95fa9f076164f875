/* The Vecchia-Laplace iteration (gs_laplace_vecchia.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gs_laplace_vecchia.h"
#include "laplace_internal.h"

/* The weights W are kept above 1e-12 per unit of the field's variance, so
 * that the pseudo-variances 1 / W stay finite where a probability or a mean
 * underflows far out in a tail: an observation with less weight than that
 * tells nothing about the field, and its pseudo-datum is one with a
 * variance 1e12 times the field's, to within rounding of none at all. */
#define LAPLACE_VECCHIA_MIN_WEIGHT 1e-12

enum { LV_NOISE, LV_T, LV_U, LV_A_NEW, LV_F_NEW, LV_A_TRY, LV_F_TRY, LV_VECTORS };

/* The pseudo-data at f: D = 1 / W into noise, t into t; returns
 * log p(y | f) - log N(t | f, D) without its 2 pi terms (they cancel
 * against the Gaussian likelihood's), and sum log W into *log_w; NaN where
 * a density, its derivative or W is not finite (exp overflowed, or a
 * linear predictor is not finite). */
typedef struct {
  const gs_laplace_data *d;
  double min_weight;
  const double *f;
  double *noise, *t;
} pseudo_args;

static void pseudo_chunk(const void *ctx, long i0, long i1, double *sums)
{
  const pseudo_args *o = (const pseudo_args *)ctx;
  for (long i = i0; i < i1; ++i) {
    const gs_glmm_point p = laplace_point(o->d, i, o->d->eta0[i] + o->f[i]);
    if (!(isfinite(p.logp) && isfinite(p.grad) && isfinite(p.weight))) {
      sums[0] = NAN;
      return;
    }
    const double w = fmax(p.weight, o->min_weight);
    o->noise[i] = 1.0 / w;
    o->t[i] = o->f[i] + p.grad / w;
    sums[0] += p.logp - 0.5 * log(w) + 0.5 * p.grad * p.grad / w;
    sums[1] += log(w);
  }
}

static double pseudo_data(const gs_laplace_data *d, long n, double min_weight, const double *f, double *noise,
                          double *t, double *log_w)
{
  const pseudo_args o = {.d = d, .min_weight = min_weight, .f = f, .noise = noise, .t = t};
  double sums[2];
  laplace_sums(n, 2, pseudo_chunk, &o, sums);
  *log_w = sums[1];
  return sums[0];
}

static double sum_squares(const double *x, long n)
{
  double s = 0.0;
  for (long i = 0; i < n; ++i) s += x[i] * x[i];
  return s;
}

gs_status gs_laplace_vecchia_mode(gs_vecchia *v, const gs_cov_model *p, const gs_laplace_data *d, double *a,
                                  double *f, double *weights, gs_laplace_info *info, char *msg)
{
  gs_status st = gs_laplace_data_check(d, msg);
  if (st != GS_OK) return st;
  const long n = gs_vecchia_size(v);
  double *work = (double *)malloc((size_t)LV_VECTORS * n * sizeof(double));
  if (!work) return gs_set_msg(msg, GS_ERR_NOMEM, "cannot allocate the Vecchia-Laplace vectors");
  double *noise = work + LV_NOISE * n, *t = work + LV_T * n, *u = work + LV_U * n;
  double *a_new = work + LV_A_NEW * n, *f_new = work + LV_F_NEW * n;
  const double variance = p->par[GS_COV_SIGMA2] + p->par[GS_COV_NUGGET];
  const double min_weight = LAPLACE_VECCHIA_MIN_WEIGHT / (variance > 0.0 ? variance : 1.0);
  double loglik_y, logdet = 0.0, log_w = 0.0, terms = 0.0;
  double psi = laplace_start(d, n, a, f, work + LV_A_TRY * n, &loglik_y);
  int converged = 0, steps = 0;
  double last_change = 0.0; /* the first step is halved as needed */
  for (;;) {
    terms = pseudo_data(d, n, min_weight, f, noise, t, &log_w);
    if (isnan(terms)) { /* reported as a mode not found, its log-likelihood -Inf */
      converged = 0;
      break;
    }
    long failed = 0;
    if ((st = gs_vecchia_set_noise(v, noise, msg)) != GS_OK || (st = gs_vecchia_factor(v, p, &logdet, &failed, msg)) != GS_OK)
      break;
    if ((st = gs_vecchia_apply(v, GS_VECCHIA_FORWARD, t, 1, u, msg)) != GS_OK) break;
    if (converged || steps == d->max_iter) break;
    if ((st = gs_vecchia_apply(v, GS_VECCHIA_TRANSPOSE, u, 1, a_new, msg)) != GS_OK) break;
    double change = 0.0;
    for (long i = 0; i < n; ++i) {
      f_new[i] = t[i] - noise[i] * a_new[i];
      change = fmax(change, fabs(f_new[i] - f[i]));
    }
    converged = change <= d->tol * (1.0 + laplace_max_abs(f, n));
    ++steps;
    if (change < last_change) { /* contracting: the full step */
      memcpy(a, a_new, (size_t)n * sizeof(double));
      memcpy(f, f_new, (size_t)n * sizeof(double));
      psi = laplace_objective(d, n, a, f, &loglik_y);
    } else if (!laplace_halving_step(d, n, a, f, a_new, f_new, work + LV_A_TRY * n, work + LV_F_TRY * n, &psi,
                                     &loglik_y)) {
      break; /* no rise: short of the mode, not converged */
    }
    last_change = change;
  }
  if (st == GS_OK) {
    info->loglik = isnan(terms) ? -INFINITY : terms - 0.5 * logdet - 0.5 * sum_squares(u, n);
    info->loglik_y = loglik_y;
    info->logdet = logdet + log_w;
    info->iterations = steps;
    info->converged = converged;
    if (weights)
      for (long i = 0; i < n; ++i) weights[i] = 1.0 / noise[i];
  }
  free(work);
  return st;
}
