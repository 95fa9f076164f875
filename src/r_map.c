/* Element-wise functions (bessel_k, bessel_k_deriv, matern, the stable
 * d/p/q/r) for R. */
#include <R_ext/Random.h>

#include "gs_cpu.h"
#include "gs_map.h"
#include "r_util.h"

/* A 64-bit stream key from R's generator, so that set.seed() fixes it. */
static uint64_t r_stream_seed(void)
{
  GetRNGstate();
  uint64_t hi = (uint64_t)(unif_rand() * 4294967296.0), lo = (uint64_t)(unif_rand() * 4294967296.0);
  PutRNGstate();
  return hi << 32 | lo;
}

/* gs_r_map(op, inputs, device, threads, progress, flags, n, each): inputs is
 * a list of double vectors, recycled to the longest (or to n when n >= 0, as
 * the parameters of a random op are); each (a double vector, one count >= 1
 * per input) makes every value of an input serve that many elements in
 * turn; device < 0 runs on the CPU; progress is an R function of the
 * fraction done, or NULL. Returns the result and, as attribute
 * "nan_produced", whether a NaN came from non-NaN inputs. */
SEXP gs_r_map(SEXP op_, SEXP inputs, SEXP device_, SEXP threads_, SEXP progress, SEXP flags_,
              SEXP n_, SEXP each_)
{
  gs_r_progress_set(progress);
  const int op = gs_r_int(op_, "op"), device = gs_r_int(device_, "device");
  const int threads = gs_r_int(threads_, "threads"), flags = gs_r_int(flags_, "flags");
  const double n_out = Rf_asReal(n_);
  if (op < 0 || op >= GS_OP_COUNT) Rf_error("unknown operation");
  const int arity = gs_op_arity(op);
  if (TYPEOF(inputs) != VECSXP || Rf_length(inputs) != arity) Rf_error("expected %d inputs", arity);
  if (TYPEOF(each_) != REALSXP || Rf_length(each_) != arity) Rf_error("expected %d counts", arity);
  gs_map_args a;
  a.op = op;
  a.flags = flags;
  a.seed = op == GS_OP_STABLE_R ? r_stream_seed() : 0;
  a.n = 0;
  for (int k = 0; k < arity; ++k) {
    SEXP v = VECTOR_ELT(inputs, k);
    if (TYPEOF(v) != REALSXP) Rf_error("input %d is not a double vector", k + 1);
    a.in[k] = REAL(v);
    a.len[k] = (size_t)XLENGTH(v);
    if (!(REAL(each_)[k] >= 1.0)) Rf_error("count %d is not >= 1", k + 1);
    a.each[k] = (size_t)REAL(each_)[k];
    if (a.len[k] == 0) return Rf_allocVector(REALSXP, 0);
    if (a.len[k] * a.each[k] > a.n) a.n = a.len[k] * a.each[k];
  }
  if (n_out >= 0) a.n = (size_t)n_out;
  SEXP out = PROTECT(Rf_allocVector(REALSXP, (R_xlen_t)a.n));
  a.out = REAL(out);
  char msg[GS_MSG_LEN];
  gs_status st = (device < 0) ? gs_map_cpu(&a, threads, gs_r_progress, msg)
                              : gs_map_gpu(device, &a, gs_r_progress, msg);
  if (st != GS_OK) gs_r_stop(st, msg);
  Rf_setAttrib(out, Rf_install("nan_produced"),
               Rf_ScalarLogical(gs_map_nan_produced(&a, threads)));
  UNPROTECT(1);
  return out;
}
