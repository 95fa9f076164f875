/* Kriging's arguments from R, shared by the Gaussian process's glue
 * (r_gp.c) and the Laplace approximation's (r_glmm.c). */
#ifndef GS_R_KRIGE_H
#define GS_R_KRIGE_H

#include "gs_gp.h"
#include "r_util.h"

/* Fills a (all but r) from R: model R's cov_model() of the factor; locs
 * the new locations (m x dim); X0 their design (m x p); W = G^-1 X (n x p);
 * B (p x k); A (p x p); an R error naming an argument of another shape.
 * Returns list(fit = m x k, se = m values, or NULL without want_se), not
 * protected, which a->fit and a->se point into. */
SEXP gs_r_krige_args(SEXP model, SEXP locs, SEXP X0, SEXP W, SEXP B, SEXP A, long n, int k, int want_se,
                     gs_gp_krige_args *a);

#endif
