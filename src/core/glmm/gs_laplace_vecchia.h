/* The Vecchia-Laplace approximation (Zilber and Katzfuss 2021) of the
 * generalized linear mixed model of gs_laplace.h, for data too large for
 * its dense matrices. At a field f, with W and g minus the second and the
 * first derivative of log p(y | f), the Newton point of the Laplace
 * iteration is the posterior mean of the field given pseudo-data
 * t = f + g / W observed with independent errors of variances D = 1 / W:
 *   f_new = K (K + D)^-1 t = t - D a,   a = (K + D)^-1 t,
 * and at the mode the Laplace approximation is, exactly,
 *   log q(y) = log p(y | f) - log N(t | f, D) + log N(t | 0, K + D).
 * Both use K + D only through its inverse and log-determinant, which the
 * Vecchia approximation of the pseudo-data (gs_vecchia.h, with D as the
 * points' own variances) gives in O(n m^3): a = W'W t, and the last term is
 * a Gaussian Vecchia likelihood. With m = n - 1 nothing is approximated and
 * the result is gs_laplace_mode's. Each step is taken in full while the
 * steps contract (each shorter than the last); the first, and any longer
 * than the one before, is halved until -a'f/2 + log p(y | f) rises, as in
 * gs_laplace_mode. Only the first rule holds near the mode: with m < n - 1
 * that objective's maximum and the iteration's fixed point differ by the
 * approximation's error, and halving towards the one stalls short of the
 * other. */
#ifndef GS_LAPLACE_VECCHIA_H
#define GS_LAPLACE_VECCHIA_H

#include "gs_laplace.h"
#include "gs_vecchia.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The mode and log q(y) for the model p on the Vecchia object v (not
 * grouped, every point observed, on either device), the data d and the
 * vectors a and f (n each) in v's order. On entry (a, f) is a start (zeros,
 * or the last mode's pair to warm-start a search), on return the mode's;
 * weights (n, may be NULL): W at the mode (above the floor that keeps 1 / W
 * finite), so that the pseudo-data are f + a / W with variances 1 / W, the
 * data of kriging the field. v is left factored for K + D at the mode,
 * with D as its points' variances. info->logdet is log |I + W^1/2 K W^1/2| as gs_laplace_mode's,
 * of the approximation. Where a density, its derivative or W is not
 * finite at a point the iteration reaches (a linear predictor that is not
 * finite, exp overflowing), it stops there: info->converged 0 and
 * info->loglik -Inf, for a search to step back from. */
gs_status gs_laplace_vecchia_mode(gs_vecchia *v, const gs_cov_model *p, const gs_laplace_data *d, double *a,
                                  double *f, double *weights, gs_laplace_info *info, char *msg);

#ifdef __cplusplus
}
#endif

#endif
