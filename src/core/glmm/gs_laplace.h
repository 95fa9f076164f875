/* The Laplace approximation of a generalized linear mixed model with a
 * Gaussian latent field: responses y_i with a density p(y_i | eta_i) of a
 * family (glmm_family_math.h), linear predictor eta = eta0 + f, eta0 the
 * offset and the trend, f ~ N(0, K) a Matérn field (its nugget, if any, an
 * independent part of f). The field is integrated out around the mode of
 * its posterior:
 *   log p(y) ~ log q(y) = -a'f/2 + log p(y | f) - log |B| / 2,
 *   f = K a the mode, B = I + W^1/2 K W^1/2, W = -d^2 log p / d f^2 at f,
 * found by Newton's iteration in the stable form of Rasmussen and Williams
 * (2006, Gaussian Processes for Machine Learning, algorithms 3.1 and 5.1):
 * B has eigenvalues >= 1, so it is factored safely even where K is
 * numerically singular (long ranges, high smoothness) or W is tiny (rare
 * events), where K + W^-1 would not be. One object per data set holds the
 * locations, K and B's factor (two n x n matrices), so that a fit allocates
 * once and builds K once per covariance parameters (a step in the trend
 * reuses it). Dense, on the CPU. */
#ifndef GS_LAPLACE_H
#define GS_LAPLACE_H

#include "glmm_family_math.h"
#include "gs_common.h"
#include "gs_gp.h"
#include "gs_matern.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct gs_laplace gs_laplace;

/* locs: n x dim, column-major, copied. GS_ERR_NOMEM when the two n x n
 * matrices do not fit in host memory (or n exceeds 32-bit LAPACK). */
gs_status gs_laplace_create(const double *locs, long n, int dim, int threads, gs_laplace **out, char *msg);
void gs_laplace_free(gs_laplace *lp);
long gs_laplace_size(const gs_laplace *lp); /* n */

/* Builds K, the covariance of the model p (its nugget on the diagonal). */
gs_status gs_laplace_set_covariance(gs_laplace *lp, const gs_cov_model *p, char *msg);

typedef struct {
  int family;           /* GS_GLMM_POISSON, ... */
  const double *y;      /* n responses: counts, successes, or positive values (Gamma) */
  const double *trials; /* binomial: n numbers of trials; NULL for the others */
  const double *weights; /* n prior weights > 0 (gs_glmm_point_eval), or NULL for 1 */
  double param;         /* the negative binomial's theta, the Gamma's shape (> 0); ignored by the others */
  const double *eta0;   /* n: the linear predictor without the field */
  int max_iter;         /* Newton steps at most */
  double tol;           /* converged once a Newton step moves f by at most tol (1 + max |f|) */
} gs_laplace_data;

typedef struct {
  double loglik;     /* log q(y), the Laplace approximation of log p(y) */
  double loglik_y;   /* log p(y | f) at the mode */
  double logdet;     /* log |B| at the mode */
  int iterations;    /* Newton steps taken */
  int converged;     /* 0: max_iter steps, or a step that the halvings could not make rise, left it short of the mode */
} gs_laplace_info;

/* The mode of the field and log q(y), with the last K. a (n): on entry a
 * start (f = K a; zeros, or the previous mode's a to warm-start a search),
 * on return the mode's; f (n): the mode. Each Newton step halves until the
 * objective -a'f/2 + log p(y | f) rises; once a step is below tol, it is
 * taken and B factored once more at its end, so that log q(y) is that of
 * the mode to rounding, not to the tolerance (a search's finite
 * differences need it smooth). B's factor stays, at the mode returned,
 * for gs_laplace_forward and gs_laplace_krige. */
gs_status gs_laplace_mode(gs_laplace *lp, const gs_laplace_data *d, double *a, double *f, gs_laplace_info *info,
                          char *msg);

/* The Gaussian approximation of the field's posterior at the last mode
 * (gs_laplace_mode) is that of Gaussian kriging of the working responses
 * z = f + W^-1 a with independent errors of variances W^-1: the
 * observations' covariance is Sigma = K + W^-1 = G G', G = W^-1/2 L with
 * B = L L', and Sigma^-1 z = a. out = G^-1 b = L^-1 W^1/2 b for k columns b
 * (n x k); out may be b. */
gs_status gs_laplace_forward(gs_laplace *lp, const double *b, int k, double *out, char *msg);

/* W (n) at the last mode. */
gs_status gs_laplace_weights(const gs_laplace *lp, double *w, char *msg);

/* Kriging at new locations with that factor (gs_gp_krige's arithmetic,
 * gs_gp.h, G in place of L): args->w = G^-1 X and args->r = G^-1 (Z - X B)
 * for k columns Z of working responses (gs_laplace_forward). With Z the
 * mode's, f + W^-1 a, the predictions are x_0'B + c_0'a and the standard
 * errors those of sigma2 - c_0' Sigma^-1 c_0 + d'A d. progress (may be
 * NULL) is called between blocks and stops the work (GS_ERR_INTERRUPTED). */
gs_status gs_laplace_krige(gs_laplace *lp, const gs_gp_krige_args *args, gs_progress_fn progress, char *msg);

#ifdef __cplusplus
}
#endif

#endif
