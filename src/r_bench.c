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
