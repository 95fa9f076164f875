/* Device-side benchmark hooks for inst/bench. */
#include "gs_bench.h"
#include "r_util.h"

SEXP gs_r_bench_map(SEXP op, SEXP n, SEXP reps, SEXP device)
{
  double seconds = 0.0, nn = Rf_asReal(n);
  char msg[GS_MSG_LEN];
  if (!(nn >= 1)) Rf_error("n must be at least 1");
  gs_status st = gs_bench_map_gpu(gs_r_int(device, "device"), gs_r_int(op, "op"), (size_t)nn,
                                  gs_r_int(reps, "reps"), &seconds, msg);
  if (st != GS_OK) gs_r_stop(st, msg);
  return Rf_ScalarReal(seconds);
}

SEXP gs_r_bench_matern_cov(SEXP n, SEXP smoothness, SEXP reps, SEXP device)
{
  double seconds = 0.0, nn = Rf_asReal(n);
  char msg[GS_MSG_LEN];
  if (!(nn >= 1)) Rf_error("n must be at least 1");
  gs_status st = gs_bench_matern_cov_gpu(gs_r_int(device, "device"), (size_t)nn, Rf_asReal(smoothness),
                                         gs_r_int(reps, "reps"), &seconds, msg);
  if (st != GS_OK) gs_r_stop(st, msg);
  return Rf_ScalarReal(seconds);
}

/* c(copy, package, cusparse) seconds per solve, the solutions' relative
 * difference and the systems' bytes: gs_bench_tridiag_gpu's out. */
SEXP gs_r_bench_tridiag(SEXP n, SEXP count, SEXP reps, SEXP device)
{
  SEXP out = PROTECT(Rf_allocVector(REALSXP, 5));
  char msg[GS_MSG_LEN];
  gs_status st = gs_bench_tridiag_gpu(gs_r_int(device, "device"), (long)Rf_asReal(n), (long)Rf_asReal(count),
                                      gs_r_int(reps, "reps"), REAL(out), msg);
  if (st != GS_OK) gs_r_stop(st, msg);
  UNPROTECT(1);
  return out;
}

/* c(synthesis, analysis, synthesis copies, analysis copies) seconds and the
 * round trip's error: gs_bench_sht_gpu's out. */
SEXP gs_r_bench_sht(SEXP lmax, SEXP reps, SEXP device)
{
  SEXP out = PROTECT(Rf_allocVector(REALSXP, 5));
  char msg[GS_MSG_LEN];
  gs_status st = gs_bench_sht_gpu(gs_r_int(device, "device"), gs_r_int(lmax, "lmax"), gs_r_int(reps, "reps"),
                                  REAL(out), msg);
  if (st != GS_OK) gs_r_stop(st, msg);
  UNPROTECT(1);
  return out;
}
