/* The Vecchia-Laplace approximation of the generalized linear mixed model
 * of gs_laplace.h, for data too large for its dense matrices (Zilber and
 * Katzfuss 2021, in the latent form of Katzfuss and Guinness 2021): the
 * field's prior is its Vecchia approximation, of precision Q = W'W
 * (gs_vecchia.h, in the maxmin order with m neighbours), and
 *   log p(y) ~ log q(y) = log p(y | f) - f'Q f / 2 + log |Q| / 2
 *                         - log |Q + W| / 2
 * at the mode f of the first two terms, W minus the second derivative of
 * log p(y | f) there. Newton's steps solve (Q + W) s = d log p / d f - Q f
 * with the incomplete Cholesky factor of Q + W in the reverse order
 * (gs_vecchia_ic0), whose log-determinant is also the last term's: the
 * gradient is exact, so the iteration finds the mode of the approximate
 * posterior however the factor approximates, and the steps are halved
 * until the objective rises, as in gs_laplace_mode (a = Q f in the role of
 * K^-1 f). O(n m^2) a step. With m = n - 1 nothing is approximated and the
 * result is gs_laplace_mode's. */
#ifndef GS_LAPLACE_VECCHIA_H
#define GS_LAPLACE_VECCHIA_H

#include "gs_laplace.h"
#include "gs_vecchia.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The mode and log q(y) for the model p on the Vecchia object v (not
 * grouped, every point observed, on either device: the factorization runs
 * there, the incomplete Cholesky factor on the CPU), the data d and the
 * vectors a and f (n each) in v's order. On entry f is a start (zeros, or
 * the last mode's to warm-start a search; a is recomputed from it), on
 * return (a, f) is the mode's, a = Q f; weights (n, may be NULL): W at the
 * mode, above a floor that keeps 1 / W finite, so that the field given the
 * data is approximately that given the pseudo-data f + a / W observed with
 * variances 1 / W, the data of kriging it. info->logdet is
 * log |I + W^1/2 K W^1/2| as gs_laplace_mode's, of the approximation.
 * Where a density, its derivative or W is not finite at a point the
 * iteration reaches (a linear predictor that is not finite, exp
 * overflowing), it stops there: info->converged 0 and info->loglik -Inf,
 * for a search to step back from. GS_ERR_NOT_PD where the incomplete
 * factorization breaks down. */
gs_status gs_laplace_vecchia_mode(gs_vecchia *v, const gs_cov_model *p, const gs_laplace_data *d, double *a,
                                  double *f, double *weights, gs_laplace_info *info, char *msg);

#ifdef __cplusplus
}
#endif

#endif
