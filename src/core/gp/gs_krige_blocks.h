/* The CPU's kriging loop over blocks of new locations, for any factor of the
 * covariance of the observations that the CPU can solve with: Sigma = G G',
 * G given by its two triangular solves. The Gaussian process's factor (G =
 * L, gp_krige.c) and the Laplace approximation's (G = W^-1/2 L with B = L L',
 * Sigma = K + W^-1, src/core/glmm) share it, so that both build, solve and
 * reduce the cross-covariances the same way, without an n x m matrix. */
#ifndef GS_KRIGE_BLOCKS_H
#define GS_KRIGE_BLOCKS_H

#include "gs_gp.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
  void *ctx;
  const double *locs; /* n x dim: the observed locations, as gs_gp_krige_args' are mapped */
  long n;
  int threads;
  gs_status (*forward)(void *ctx, double *b, int k, char *msg);  /* b = G^-1 b in place, n x k */
  gs_status (*backward)(void *ctx, double *b, int k, char *msg); /* b = G'^-1 b in place, n x k */
  gs_progress_fn progress; /* called between blocks; may be NULL */
} gs_krige_factor;

/* The checks of kriging's arguments against the factor's dimension. */
gs_status gs_krige_check(const gs_gp_krige_args *a, int dim, char *msg);

/* gs_gp_krige's arithmetic (gs_gp.h) with G in place of L: w = G^-1 X and
 * r = G^-1 (Y - X B). Arguments checked
 * (gs_krige_check) by the caller. */
gs_status gs_krige_blocks(const gs_krige_factor *f, const gs_gp_krige_args *a, char *msg);

#ifdef __cplusplus
}
#endif

#endif
