/* matern_cov for R. */
#include "gs_matern.h"
#include "r_util.h"

/* locs1, locs2: double matrices (locs2 may be NULL); params: sigma2, range,
 * smoothness, nugget (already validated in R); progress: as in gs_r_map. */
SEXP gs_r_matern_cov(SEXP locs1, SEXP locs2, SEXP params, SEXP metric, SEXP device_, SEXP threads_,
                     SEXP progress)
{
  gs_r_progress_set(progress);
  const int device = gs_r_int(device_, "device"), threads = gs_r_int(threads_, "threads");
  if (!Rf_isMatrix(locs1) || TYPEOF(locs1) != REALSXP) Rf_error("locs must be a double matrix");
  if (locs2 != R_NilValue && (!Rf_isMatrix(locs2) || TYPEOF(locs2) != REALSXP))
    Rf_error("locs2 must be a double matrix");
  if (TYPEOF(params) != REALSXP || Rf_length(params) != 4) Rf_error("params must hold 4 numbers");
  gs_matern_cov_args a;
  a.locs1 = REAL(locs1);
  a.n1 = Rf_nrows(locs1);
  a.dim = Rf_ncols(locs1);
  a.locs2 = (locs2 == R_NilValue) ? NULL : REAL(locs2);
  a.n2 = (locs2 == R_NilValue) ? a.n1 : Rf_nrows(locs2);
  if (locs2 != R_NilValue && Rf_ncols(locs2) != a.dim) Rf_error("locs and locs2 differ in columns");
  a.metric = gs_r_int(metric, "metric");
  a.sigma2 = REAL(params)[0];
  a.range = REAL(params)[1];
  a.smoothness = REAL(params)[2];
  a.nugget = REAL(params)[3];
  a.lower_only = 0;
  SEXP out = PROTECT(Rf_allocMatrix(REALSXP, (int)a.n1, (int)a.n2));
  a.out = REAL(out);
  char msg[GS_MSG_LEN];
  gs_status st = (device < 0) ? gs_matern_cov_cpu(&a, threads, gs_r_progress, msg)
                              : gs_matern_cov_gpu(device, &a, gs_r_progress, msg);
  if (st != GS_OK) gs_r_stop(st, msg);
  UNPROTECT(1);
  return out;
}
