/* Laplace objects for R (generalized linear mixed models): an external
 * pointer owns a gs_laplace. */
#include "gs_laplace.h"
#include "r_krige.h"
#include "r_util.h"

static gs_laplace *laplace_get(SEXP ptr)
{
  return (gs_laplace *)gs_r_handle(ptr, "gs_laplace", "Laplace object", "the Laplace object has been released");
}

static void laplace_finalize(SEXP ptr)
{
  gs_laplace *lp = (gs_laplace *)R_ExternalPtrAddr(ptr);
  if (lp) {
    gs_laplace_free(lp);
    R_ClearExternalPtr(ptr);
  }
}

SEXP gs_r_laplace_new(SEXP locs, SEXP threads)
{
  if (!Rf_isMatrix(locs) || TYPEOF(locs) != REALSXP) Rf_error("locs must be a double matrix");
  gs_laplace *lp = NULL;
  char msg[GS_MSG_LEN];
  gs_status st = gs_laplace_create(REAL(locs), Rf_nrows(locs), Rf_ncols(locs), gs_r_int(threads, "threads"), &lp, msg);
  if (st != GS_OK) gs_r_stop(st, msg);
  return gs_r_new_handle(lp, "gs_laplace", laplace_finalize);
}

/* Releases the memory now rather than at garbage collection. */
SEXP gs_r_laplace_free(SEXP ptr)
{
  laplace_finalize(ptr);
  return R_NilValue;
}

/* model: R's cov_model(). */
SEXP gs_r_laplace_set_covariance(SEXP ptr, SEXP model)
{
  gs_laplace *lp = laplace_get(ptr);
  const gs_cov_model p = gs_r_cov_model(model);
  char msg[GS_MSG_LEN];
  gs_status st = gs_laplace_set_covariance(lp, &p, msg);
  if (st != GS_OK) gs_r_stop(st, msg);
  return R_NilValue;
}

/* A double vector of the object's n, or an R error naming it. */
static const double *laplace_vector(SEXP x, long n, const char *what)
{
  if (TYPEOF(x) != REALSXP || XLENGTH(x) != n) Rf_error("%s must be a double vector with a value per location", what);
  return REAL(x);
}

/* family: a code of the glmm_family table; trials: NULL but for the
 * binomial; weights: the prior weights, or NULL; param: theta or shape;
 * a: the start (see gs_laplace_mode). Returns list(loglik, loglik_y,
 * logdet, iterations, converged, a, f, W: the weights at the mode). */
SEXP gs_r_laplace_mode(SEXP ptr, SEXP family, SEXP y, SEXP trials, SEXP weights, SEXP param, SEXP eta0, SEXP a,
                       SEXP max_iter, SEXP tol)
{
  gs_laplace *lp = laplace_get(ptr);
  const long n = gs_laplace_size(lp);
  const gs_laplace_data d = {.family = gs_r_int(family, "family"),
                             .y = laplace_vector(y, n, "y"),
                             .trials = Rf_isNull(trials) ? NULL : laplace_vector(trials, n, "trials"),
                             .weights = Rf_isNull(weights) ? NULL : laplace_vector(weights, n, "weights"),
                             .param = Rf_asReal(param),
                             .eta0 = laplace_vector(eta0, n, "eta0"),
                             .max_iter = gs_r_int(max_iter, "max_iter"),
                             .tol = Rf_asReal(tol)};
  const char *names[] = {"loglik", "loglik_y", "logdet", "iterations", "converged", "a", "f", "W", ""};
  SEXP out = PROTECT(Rf_mkNamed(VECSXP, names));
  SEXP mode_a = gs_r_set_field(out, "a", Rf_duplicate(PROTECT(Rf_coerceVector(a, REALSXP))));
  laplace_vector(mode_a, n, "a");
  SEXP mode_f = gs_r_set_field(out, "f", Rf_allocVector(REALSXP, n));
  gs_laplace_info info;
  char msg[GS_MSG_LEN];
  gs_status st = gs_laplace_mode(lp, &d, REAL(mode_a), REAL(mode_f), &info, msg);
  if (st == GS_OK) st = gs_laplace_weights(lp, REAL(gs_r_set_field(out, "W", Rf_allocVector(REALSXP, n))), msg);
  if (st != GS_OK) gs_r_stop(st, msg);
  gs_r_set_field(out, "loglik", Rf_ScalarReal(info.loglik));
  gs_r_set_field(out, "loglik_y", Rf_ScalarReal(info.loglik_y));
  gs_r_set_field(out, "logdet", Rf_ScalarReal(info.logdet));
  gs_r_set_field(out, "iterations", Rf_ScalarInteger(info.iterations));
  gs_r_set_field(out, "converged", Rf_ScalarLogical(info.converged));
  UNPROTECT(2);
  return out;
}

/* G^-1 b with the last mode's factor (gs_laplace_forward): b a double
 * matrix with n rows. */
SEXP gs_r_laplace_forward(SEXP ptr, SEXP b)
{
  gs_laplace *lp = laplace_get(ptr);
  const long n = gs_laplace_size(lp);
  if (!Rf_isMatrix(b) || TYPEOF(b) != REALSXP || Rf_nrows(b) != n) Rf_error("b must be a double matrix with n rows");
  SEXP out = PROTECT(Rf_duplicate(b));
  char msg[GS_MSG_LEN];
  gs_status st = gs_laplace_forward(lp, REAL(b), Rf_ncols(b), REAL(out), msg);
  if (st != GS_OK) gs_r_stop(st, msg);
  UNPROTECT(1);
  return out;
}

/* Kriging of the latent field with the last mode's factor
 * (gs_laplace_krige): W = G^-1 X, R = G^-1 (Z - X B) (n x k), the rest as
 * gs_r_krige_args takes them; progress as for gs_r_gp_factor. Returns
 * list(fit = m x k, se). */
SEXP gs_r_laplace_krige(SEXP ptr, SEXP model, SEXP locs, SEXP X0, SEXP W, SEXP R, SEXP B, SEXP A, SEXP se,
                        SEXP progress)
{
  gs_laplace *lp = laplace_get(ptr);
  const long n = gs_laplace_size(lp);
  if (!Rf_isMatrix(R) || TYPEOF(R) != REALSXP || Rf_nrows(R) != n) Rf_error("R must be a double matrix with n rows");
  gs_gp_krige_args args;
  SEXP out = PROTECT(gs_r_krige_args(model, locs, X0, W, B, A, n, Rf_ncols(R), Rf_asLogical(se) == TRUE, &args));
  args.r = REAL(R);
  char msg[GS_MSG_LEN];
  gs_r_progress_set(progress);
  gs_status st = gs_laplace_krige(lp, &args, gs_r_progress, msg);
  if (st != GS_OK) gs_r_stop(st, msg);
  UNPROTECT(1);
  return out;
}
