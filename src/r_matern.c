/* matern_cov for R. */
#include "gs_matern.h"
#include "r_util.h"

/* locs1, locs2: double matrices (locs2 may be NULL); model: R's cov_model()
 * (gs_r_cov_model); progress: as in gs_r_map. */
SEXP gs_r_matern_cov(SEXP locs1, SEXP locs2, SEXP model, SEXP device_, SEXP threads_, SEXP progress)
{
  gs_r_progress_set(progress);
  const int device = gs_r_int(device_, "device"), threads = gs_r_int(threads_, "threads");
  if (!Rf_isMatrix(locs1) || TYPEOF(locs1) != REALSXP) Rf_error("locs must be a double matrix");
  if (locs2 != R_NilValue && (!Rf_isMatrix(locs2) || TYPEOF(locs2) != REALSXP))
    Rf_error("locs2 must be a double matrix");
  if (locs2 != R_NilValue && Rf_ncols(locs2) != Rf_ncols(locs1)) Rf_error("locs and locs2 differ in columns");
  const long n1 = Rf_nrows(locs1), n2 = (locs2 == R_NilValue) ? n1 : Rf_nrows(locs2);
  SEXP out = PROTECT(Rf_allocMatrix(REALSXP, (int)n1, (int)n2));
  const gs_matern_cov_args a = {.locs1 = REAL(locs1),
                                .n1 = n1,
                                .locs2 = (locs2 == R_NilValue) ? NULL : REAL(locs2),
                                .n2 = n2,
                                .dim = Rf_ncols(locs1),
                                .model = gs_r_cov_model(model),
                                .lower_only = 0,
                                .out = REAL(out)};
  char msg[GS_MSG_LEN];
  gs_status st = (device < 0) ? gs_matern_cov_cpu(&a, threads, gs_r_progress, msg)
                              : gs_matern_cov_gpu(device, &a, gs_r_progress, msg);
  if (st != GS_OK) gs_r_stop(st, msg);
  UNPROTECT(1);
  return out;
}

/* The rule of model (R's cov_model()) for locations with `dim` columns:
 * NULL, or list(problem, message), the code of gs_cov_model_problem and
 * the rule it breaks (gs_cov_model_check). */
SEXP gs_r_cov_model_check(SEXP model, SEXP dim)
{
  char msg[GS_MSG_LEN];
  const gs_cov_model m = gs_r_cov_model(model);
  const int d = gs_r_int(dim, "dim"), problem = gs_cov_model_problem(&m, d);
  if (problem == GS_COV_OK) return R_NilValue;
  gs_cov_model_check(&m, d, msg);
  const char *names[] = {"problem", "message", ""};
  SEXP out = PROTECT(Rf_mkNamed(VECSXP, names));
  SET_VECTOR_ELT(out, 0, Rf_ScalarInteger(problem));
  SET_VECTOR_ELT(out, 1, Rf_mkString(msg));
  UNPROTECT(1);
  return out;
}
