/* The polynomial transforms for R: DCTs, tridiagonal solves, Jones-Worland
 * polynomials and transforms, Legendre-Chebyshev conversions, spherical
 * harmonics. Arguments are validated in R; this layer checks types. */
#include "gs_poly.h"
#include "r_util.h"

static void need_double(SEXP x, const char *what)
{
  if (TYPEOF(x) != REALSXP) Rf_error("%s must be a double vector or matrix", what);
}

SEXP gs_r_poly_have_fftw(void) { return Rf_ScalarLogical(gs_poly_have_fftw()); }

/* x: double matrix (columns transformed); type 2, 3 or 4. */
SEXP gs_r_dct(SEXP x, SEXP type_, SEXP device_, SEXP threads_)
{
  need_double(x, "x");
  const int type = gs_r_int(type_, "type"), device = gs_r_int(device_, "device");
  const int threads = gs_r_int(threads_, "threads");
  const long n = Rf_nrows(x), batch = Rf_ncols(x);
  SEXP out = PROTECT(Rf_allocMatrix(REALSXP, (int)n, (int)batch));
  char msg[GS_MSG_LEN];
  gs_status st = device < 0 ? gs_dct_cpu(type, n, batch, REAL(x), REAL(out), threads, msg)
                            : gs_dct_gpu(device, type, n, batch, REAL(x), REAL(out), msg);
  if (st != GS_OK) gs_r_stop(st, msg);
  UNPROTECT(1);
  return out;
}

/* dl, d, du: length n (one matrix) or n x nrhs (one per system), dl[0] and
 * du[n - 1] unused; b: n x nrhs. Returns the solutions. */
SEXP gs_r_tridiag_solve(SEXP dl, SEXP d, SEXP du, SEXP b, SEXP device_, SEXP threads_)
{
  need_double(dl, "lower");
  need_double(d, "diag");
  need_double(du, "upper");
  need_double(b, "b");
  const int device = gs_r_int(device_, "device"), threads = gs_r_int(threads_, "threads");
  const long n = Rf_nrows(b), nrhs = Rf_ncols(b);
  const int per_system = Rf_xlength(d) != n;
  if (Rf_xlength(d) != (per_system ? n * nrhs : n) || Rf_xlength(dl) != Rf_xlength(d) ||
      Rf_xlength(du) != Rf_xlength(d))
    Rf_error("the diagonals do not match b");
  SEXP out = PROTECT(Rf_duplicate(b));
  gs_tridiag_args a = {.n = n, .nrhs = nrhs, .per_system = per_system, .dl = REAL(dl), .d = REAL(d),
                       .du = REAL(du), .b = REAL(out)};
  char msg[GS_MSG_LEN];
  gs_status st = device < 0 ? gs_tridiag_solve_cpu(&a, threads, msg) : gs_tridiag_solve_gpu(device, &a, msg);
  if (st != GS_OK) gs_r_stop(st, msg);
  UNPROTECT(1);
  return out;
}

/* n, l: integer vectors; r: double; all of one length. */
SEXP gs_r_jw_eval(SEXP n, SEXP l, SEXP r, SEXP norm)
{
  need_double(r, "r");
  if (TYPEOF(n) != INTSXP || TYPEOF(l) != INTSXP) Rf_error("n and l must be integer vectors");
  const long len = Rf_xlength(r);
  if (Rf_xlength(n) != len || Rf_xlength(l) != len) Rf_error("n, l and r differ in length");
  SEXP out = PROTECT(Rf_allocVector(REALSXP, len));
  char msg[GS_MSG_LEN];
  gs_status st = gs_jw_eval(len, INTEGER(n), INTEGER(l), REAL(r), gs_r_int(norm, "norm"), REAL(out), msg);
  if (st != GS_OK) gs_r_stop(st, msg);
  UNPROTECT(1);
  return out;
}

/* x: coefficients (ncoef x ncol, synthesis) or values (nr x ncol, analysis). */
SEXP gs_r_jwt(SEXP x, SEXP l, SEXP ncoef, SEXP nr, SEXP method, SEXP analysis_, SEXP device_, SEXP threads_)
{
  need_double(x, "x");
  const int analysis = Rf_asLogical(analysis_);
  gs_jwt_args a = {.l = gs_r_int(l, "l"), .ncoef = gs_r_int(ncoef, "n"), .nr = gs_r_int(nr, "nr"),
                   .ncol = Rf_ncols(x), .method = gs_r_int(method, "method")};
  if (Rf_nrows(x) != (analysis ? a.nr : a.ncoef)) Rf_error("x has the wrong number of rows");
  SEXP out = PROTECT(Rf_allocMatrix(REALSXP, (int)(analysis ? a.ncoef : a.nr), (int)a.ncol));
  a.coef = analysis ? REAL(out) : REAL(x);
  a.values = analysis ? REAL(x) : REAL(out);
  char msg[GS_MSG_LEN];
  const int threads = gs_r_int(threads_, "threads"), device = gs_r_int(device_, "device");
  gs_status st;
  if (device < 0) st = analysis ? gs_jwt_analysis_cpu(&a, threads, msg) : gs_jwt_synthesis_cpu(&a, threads, msg);
  else st = analysis ? gs_jwt_analysis_gpu(device, &a, msg) : gs_jwt_synthesis_gpu(device, &a, msg);
  if (st != GS_OK) gs_r_stop(st, msg);
  UNPROTECT(1);
  return out;
}

/* x: n x ncol; to_chebyshev: TRUE for Legendre -> Chebyshev; method: a
 * GS_LEGCHEB_* code; device: a GPU id or -1; progress: a progress function
 * or NULL. */
SEXP gs_r_leg_cheb(SEXP x, SEXP to_chebyshev, SEXP method, SEXP device_, SEXP threads_, SEXP progress)
{
  need_double(x, "x");
  gs_r_progress_set(progress);
  const long n = Rf_nrows(x), ncol = Rf_ncols(x);
  SEXP out = PROTECT(Rf_allocMatrix(REALSXP, (int)n, (int)ncol));
  gs_legcheb_args a = {.n = n, .ncol = ncol, .to_chebyshev = Rf_asLogical(to_chebyshev),
                       .method = gs_r_int(method, "method"), .in = REAL(x), .out = REAL(out)};
  char msg[GS_MSG_LEN];
  const int device = gs_r_int(device_, "device"), threads = gs_r_int(threads_, "threads");
  gs_status st = device < 0 ? gs_legcheb_cpu(&a, threads, gs_r_progress, msg)
                            : gs_legcheb_gpu(device, &a, threads, gs_r_progress, msg);
  if (st != GS_OK) gs_r_stop(st, msg);
  UNPROTECT(1);
  return out;
}

/* The rank of the fast method's Hankel factor for size n, parity 0 or 1. */
SEXP gs_r_legcheb_rank(SEXP n, SEXP to_chebyshev, SEXP parity)
{
  return Rf_ScalarInteger(gs_legcheb_rank(gs_r_int(n, "n"), Rf_asLogical(to_chebyshev), gs_r_int(parity, "parity")));
}

/* list(x = nodes, w = weights) of the n-point Gauss-Legendre rule. */
SEXP gs_r_gauss_legendre(SEXP n_)
{
  const int n = gs_r_int(n_, "n");
  const char *names[] = {"x", "w", "x_lo", ""};
  SEXP out = PROTECT(Rf_mkNamed(VECSXP, names));
  for (int k = 0; k < 3; ++k) SET_VECTOR_ELT(out, k, Rf_allocVector(REALSXP, n));
  char msg[GS_MSG_LEN];
  gs_status st = gs_gauss_legendre(n, REAL(VECTOR_ELT(out, 0)), REAL(VECTOR_ELT(out, 2)), REAL(VECTOR_ELT(out, 1)), msg);
  if (st != GS_OK) gs_r_stop(st, msg);
  UNPROTECT(1);
  return out;
}

/* Analysis: values (nlat x nlon x nfield) -> list(cos, sin), each
 * (lmax + 1)^2 x nfield; synthesis: list(cos, sin) -> values. x, w: the
 * grid's colatitude cosines and weights. */
SEXP gs_r_sht(SEXP data, SEXP x, SEXP x_lo, SEXP w, SEXP lmax_, SEXP nlon_, SEXP analysis_, SEXP device_,
              SEXP threads_, SEXP progress)
{
  need_double(x, "x");
  need_double(w, "w");
  if (!Rf_isNull(x_lo)) need_double(x_lo, "x_lo");
  gs_r_progress_set(progress);
  const int lmax = gs_r_int(lmax_, "lmax"), analysis = Rf_asLogical(analysis_);
  const long L2 = (long)(lmax + 1) * (lmax + 1), nlat = Rf_xlength(x), nlon = gs_r_int(nlon_, "nlon");
  if (Rf_xlength(w) != nlat || (!Rf_isNull(x_lo) && Rf_xlength(x_lo) != nlat)) Rf_error("x, x_lo and w differ in length");
  SEXP values = analysis ? data : R_NilValue, cs = analysis ? R_NilValue : data;
  if (analysis) need_double(values, "values");
  else if (TYPEOF(cs) != VECSXP || Rf_length(cs) != 2) Rf_error("coef must be a list of two arrays");
  const long nfield = analysis ? Rf_xlength(values) / (nlat * nlon) : Rf_xlength(VECTOR_ELT(cs, 0)) / L2;
  if (analysis && Rf_xlength(values) != nlat * nlon * nfield) Rf_error("values do not match the grid");
  SEXP out;
  if (analysis) {
    const char *names[] = {"cos", "sin", ""};
    out = PROTECT(Rf_mkNamed(VECSXP, names));
    SET_VECTOR_ELT(out, 0, Rf_allocVector(REALSXP, L2 * nfield));
    SET_VECTOR_ELT(out, 1, Rf_allocVector(REALSXP, L2 * nfield));
    cs = out;
  } else {
    for (int k = 0; k < 2; ++k) {
      need_double(VECTOR_ELT(cs, k), "coef");
      if (Rf_xlength(VECTOR_ELT(cs, k)) != L2 * nfield) Rf_error("coef does not match lmax");
    }
    out = PROTECT(Rf_allocVector(REALSXP, nlat * nlon * nfield));
    values = out;
  }
  gs_sht_args a = {.lmax = lmax, .nlat = nlat, .nlon = nlon, .nfield = nfield, .x = REAL(x), .w = REAL(w),
                   .x_lo = Rf_isNull(x_lo) ? NULL : REAL(x_lo),
                   .values = REAL(values), .cos_part = REAL(VECTOR_ELT(cs, 0)), .sin_part = REAL(VECTOR_ELT(cs, 1))};
  char msg[GS_MSG_LEN];
  const int threads = gs_r_int(threads_, "threads"), device = gs_r_int(device_, "device");
  gs_status st;
  if (device < 0)
    st = analysis ? gs_sht_analysis_cpu(&a, threads, gs_r_progress, msg)
                  : gs_sht_synthesis_cpu(&a, threads, gs_r_progress, msg);
  else
    st = analysis ? gs_sht_analysis_gpu(device, &a, gs_r_progress, msg)
                  : gs_sht_synthesis_gpu(device, &a, gs_r_progress, msg);
  if (st != GS_OK) gs_r_stop(st, msg);
  UNPROTECT(1);
  return out;
}
