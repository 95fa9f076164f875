/* The Vecchia-Laplace iteration (gs_laplace_vecchia.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gs_laplace_vecchia.h"
#include "laplace_internal.h"

/* The weights returned for kriging stay above 1e-12 per unit of the
 * field's variance, so that the pseudo-variances 1 / W are finite where a
 * probability or a mean underflows far out in a tail (such an observation
 * tells nothing about the field, to within that). */
#define LAPLACE_VECCHIA_MIN_WEIGHT 1e-12

enum { LV_W, LV_STEP, LV_U, LV_A_NEW, LV_F_NEW, LV_A_TRY, LV_F_TRY, LV_VECTORS };

typedef struct {
  const gs_laplace_data *d;
  const double *f, *a;
  double *w, *r;
} weights_args;

/* W into w and the gradient of the objective, d log p / d f - a, into r;
 * the sum NaN where a density, its derivative or W is not finite. */
static void weights_chunk(const void *ctx, long i0, long i1, double *sums)
{
  const weights_args *o = (const weights_args *)ctx;
  for (long i = i0; i < i1; ++i) {
    const gs_glmm_point p = laplace_point(o->d, i, o->d->eta0[i] + o->f[i]);
    if (!(isfinite(p.logp) && isfinite(p.grad) && isfinite(p.weight))) {
      sums[0] = NAN;
      return;
    }
    o->w[i] = p.weight;
    o->r[i] = p.grad - o->a[i];
  }
}

/* a = Q f = W'(W f); u is workspace. */
static gs_status precision_times(gs_vecchia *v, const double *f, double *u, double *a, char *msg)
{
  gs_status st = gs_vecchia_apply(v, GS_VECCHIA_FORWARD, f, 1, u, msg);
  return st == GS_OK ? gs_vecchia_apply(v, GS_VECCHIA_TRANSPOSE, u, 1, a, msg) : st;
}

gs_status gs_laplace_vecchia_mode(gs_vecchia *v, const gs_cov_model *p, const gs_laplace_data *d, double *a,
                                  double *f, double *weights, gs_laplace_info *info, char *msg)
{
  gs_status st = gs_laplace_data_check(d, msg);
  if (st != GS_OK) return st;
  const long n = gs_vecchia_size(v);
  double *work = (double *)malloc((size_t)LV_VECTORS * n * sizeof(double));
  if (!work) return gs_set_msg(msg, GS_ERR_NOMEM, "cannot allocate the Vecchia-Laplace vectors");
  double *w = work + LV_W * n, *step = work + LV_STEP * n, *u = work + LV_U * n;
  double *a_new = work + LV_A_NEW * n, *f_new = work + LV_F_NEW * n;
  double logdet_k = 0.0, logdet_a = 0.0, loglik_y = 0.0, psi = -INFINITY;
  long failed = 0;
  int converged = 0, steps = 0, finite = 1;
  /* the prior's factor; the start's a from its f */
  if ((st = gs_vecchia_set_noise(v, NULL, msg)) != GS_OK || (st = gs_vecchia_factor(v, p, &logdet_k, &failed, msg)) != GS_OK ||
      (st = precision_times(v, f, u, a, msg)) != GS_OK)
    goto done;
  psi = laplace_start(d, n, a, f, work + LV_A_TRY * n, &loglik_y);
  for (;;) {
    const weights_args o = {.d = d, .f = f, .a = a, .w = w, .r = step};
    double nan_flag;
    laplace_sums(n, 1, weights_chunk, &o, &nan_flag);
    if (isnan(nan_flag)) { /* reported as a mode not found, its log-likelihood -Inf */
      finite = converged = 0;
      break;
    }
    if ((st = gs_vecchia_ic0(v, w, &logdet_a, msg)) != GS_OK) goto done;
    if (converged || steps == d->max_iter) break;
    if ((st = gs_vecchia_ic0_solve(v, step, step, msg)) != GS_OK) goto done;
    double change = 0.0;
    for (long i = 0; i < n; ++i) {
      f_new[i] = f[i] + step[i];
      change = fmax(change, fabs(step[i]));
    }
    if ((st = precision_times(v, f_new, u, a_new, msg)) != GS_OK) goto done;
    converged = change <= d->tol * (1.0 + laplace_max_abs(f, n));
    ++steps;
    if (!laplace_halving_step(d, n, a, f, a_new, f_new, work + LV_A_TRY * n, work + LV_F_TRY * n, &psi, &loglik_y))
      break; /* no rise: short of the mode, not converged */
  }
  /* log q(y) = psi + log |Q| / 2 - log |Q + W| / 2, log |Q| = -log |Sigma_V| */
  info->loglik = finite ? psi - 0.5 * logdet_k - 0.5 * logdet_a : -INFINITY;
  info->loglik_y = loglik_y;
  info->logdet = logdet_a + logdet_k;
  info->iterations = steps;
  info->converged = converged;
  if (weights) {
    const double variance = p->par[GS_COV_SIGMA2] + p->par[GS_COV_NUGGET];
    const double least = LAPLACE_VECCHIA_MIN_WEIGHT / (variance > 0.0 ? variance : 1.0);
    for (long i = 0; i < n; ++i) weights[i] = finite ? fmax(w[i], least) : NAN;
  }
done:
  free(work);
  return st;
}
