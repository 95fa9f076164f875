/* Laplace objects for R (generalized linear mixed models): an external
 * pointer owns a gs_laplace. */
#include <string.h>

#include "gs_laplace.h"
#include "gs_laplace_vecchia.h"
#include "r_krige.h"
#include "r_util.h"
#include "r_vecchia.h"

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

/* The data of a mode for n points: family, a code of the glmm_family
 * table; trials: NULL but for the binomial; weights: the prior weights, or
 * NULL; param: theta or shape. */
static gs_laplace_data laplace_data(long n, SEXP family, SEXP y, SEXP trials, SEXP weights, SEXP param, SEXP eta0,
                                    SEXP max_iter, SEXP tol)
{
  return (gs_laplace_data){.family = gs_r_int(family, "family"),
                           .y = laplace_vector(y, n, "y"),
                           .trials = Rf_isNull(trials) ? NULL : laplace_vector(trials, n, "trials"),
                           .weights = Rf_isNull(weights) ? NULL : laplace_vector(weights, n, "weights"),
                           .param = Rf_asReal(param),
                           .eta0 = laplace_vector(eta0, n, "eta0"),
                           .max_iter = gs_r_int(max_iter, "max_iter"),
                           .tol = Rf_asReal(tol)};
}

/* list(loglik, loglik_y, logdet, iterations, converged, a, f, W) with a
 * copy of `a` (the start, as a double vector of n) and f allocated. */
static SEXP mode_result(SEXP a, long n)
{
  const char *names[] = {"loglik", "loglik_y", "logdet", "iterations", "converged", "a", "f", "W", ""};
  SEXP out = PROTECT(Rf_mkNamed(VECSXP, names));
  SEXP mode_a = gs_r_set_field(out, "a", Rf_duplicate(PROTECT(Rf_coerceVector(a, REALSXP))));
  laplace_vector(mode_a, n, "a");
  gs_r_set_field(out, "f", Rf_allocVector(REALSXP, n));
  UNPROTECT(2);
  return out;
}

static void set_info(SEXP out, const gs_laplace_info *info)
{
  gs_r_set_field(out, "loglik", Rf_ScalarReal(info->loglik));
  gs_r_set_field(out, "loglik_y", Rf_ScalarReal(info->loglik_y));
  gs_r_set_field(out, "logdet", Rf_ScalarReal(info->logdet));
  gs_r_set_field(out, "iterations", Rf_ScalarInteger(info->iterations));
  gs_r_set_field(out, "converged", Rf_ScalarLogical(info->converged));
}

/* a: the start (see gs_laplace_mode). Returns list(loglik, loglik_y,
 * logdet, iterations, converged, a, f, W: the weights at the mode). */
SEXP gs_r_laplace_mode(SEXP ptr, SEXP family, SEXP y, SEXP trials, SEXP weights, SEXP param, SEXP eta0, SEXP a,
                       SEXP max_iter, SEXP tol)
{
  gs_laplace *lp = laplace_get(ptr);
  const long n = gs_laplace_size(lp);
  const gs_laplace_data d = laplace_data(n, family, y, trials, weights, param, eta0, max_iter, tol);
  SEXP out = PROTECT(mode_result(a, n));
  gs_laplace_info info;
  char msg[GS_MSG_LEN];
  gs_status st =
      gs_laplace_mode(lp, &d, REAL(gs_r_field(out, "a", "mode")), REAL(gs_r_field(out, "f", "mode")), &info, msg);
  if (st == GS_OK) st = gs_laplace_weights(lp, REAL(gs_r_set_field(out, "W", Rf_allocVector(REALSXP, n))), msg);
  if (st != GS_OK) gs_r_stop(st, msg);
  set_info(out, &info);
  UNPROTECT(1);
  return out;
}

/* The Vecchia-Laplace mode on the Vecchia object vptr (data in its order)
 * for the model of R's cov_model(); f: the start (see
 * gs_laplace_vecchia_mode, which computes a from it). Returns
 * gs_r_laplace_mode's list, W the weights of the pseudo-data. */
SEXP gs_r_laplace_vecchia_mode(SEXP vptr, SEXP model, SEXP family, SEXP y, SEXP trials, SEXP weights, SEXP param,
                               SEXP eta0, SEXP f, SEXP max_iter, SEXP tol)
{
  gs_vecchia *v = gs_r_vecchia_get(vptr);
  const long n = gs_vecchia_size(v);
  const gs_cov_model p = gs_r_cov_model(model);
  const gs_laplace_data d = laplace_data(n, family, y, trials, weights, param, eta0, max_iter, tol);
  SEXP out = PROTECT(mode_result(f, n)); /* a's slot: n doubles the core overwrites */
  double *mode_f = REAL(gs_r_field(out, "f", "mode"));
  memcpy(mode_f, laplace_vector(f, n, "f"), (size_t)n * sizeof(double));
  gs_laplace_info info;
  char msg[GS_MSG_LEN];
  gs_r_progress_set(R_NilValue); /* no bar; the factorizations still take interrupts */
  double *mode_w = REAL(gs_r_set_field(out, "W", Rf_allocVector(REALSXP, n)));
  gs_status st = gs_laplace_vecchia_mode(v, &p, &d, REAL(gs_r_field(out, "a", "mode")), mode_f, mode_w, &info, msg);
  if (st != GS_OK) gs_r_stop(st, msg);
  set_info(out, &info);
  UNPROTECT(1);
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
