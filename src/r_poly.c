/* The polynomial transforms for R: DCTs, tridiagonal solves, Jones-Worland
 * polynomials and transforms, Legendre-Chebyshev conversions, spherical
 * harmonics. Arguments are validated in R; this layer checks types. */
#include <math.h>
#include <string.h>

#include "gs_cpu.h"
#include "gs_poly.h"
#include "r_util.h"

static void need_double(SEXP x, const char *what)
{
  if (TYPEOF(x) != REALSXP) Rf_error("%s must be a double vector or matrix", what);
}

SEXP gs_r_poly_have_fftw(void) { return Rf_ScalarLogical(gs_poly_have_fftw()); }

/* TRUE when every element of x (double) is finite: one pass and no
 * temporary, where any(!is.finite(x)) allocates a logical vector as long as
 * x (an analysis at degree 4095 reads 268 MB of values). */
SEXP gs_r_all_finite(SEXP x, SEXP threads_)
{
  need_double(x, "x");
  const double *v = REAL(x);
  const R_xlen_t n = XLENGTH(x);
  const int nt = gs_cpu_threads_for(gs_r_int(threads_, "threads"), (double)n * sizeof(double) / GS_CPU_BYTES_PER_WORK);
  int bad = 0;
#pragma omp parallel for num_threads(nt) reduction(| : bad) schedule(static)
  for (R_xlen_t i = 0; i < n; ++i) bad |= !isfinite(v[i]);
  return Rf_ScalarLogical(!bad);
}

/* A new double array d1 x d2, or d1 x d2 x d3 where d3 > 1 or three, so that
 * R receives the transform's result without copying it to give it dim(). */
static SEXP alloc_array(long d1, long d2, long d3, int three)
{
  three = three || d3 > 1;
  SEXP out = PROTECT(Rf_allocVector(REALSXP, (R_xlen_t)d1 * d2 * d3));
  SEXP dim = PROTECT(Rf_allocVector(INTSXP, three ? 3 : 2));
  INTEGER(dim)[0] = (int)d1, INTEGER(dim)[1] = (int)d2;
  if (three) INTEGER(dim)[2] = (int)d3;
  Rf_setAttrib(out, R_DimSymbol, dim);
  UNPROTECT(2);
  return out;
}

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

/* One diagonal of the systems as the core reads it, n rows per system:
 * x holds len = n - (first != 0 || last_zero) values per system, which go to
 * rows first .. first + len - 1 (the sub-diagonal starts at row 1, the
 * super-diagonal leaves row n - 1 at 0), or a single value for every entry.
 * Where x already has that layout (the diagonal) it is read in place.
 * NULL where its length fits neither. */
static const double *band_rows(SEXP x, long n, long systems, long first, int last_zero)
{
  const long len = n - first - (last_zero ? 1 : 0);
  const R_xlen_t given = XLENGTH(x);
  if (given != 1 && given != (R_xlen_t)len * systems) return NULL;
  if (given != 1 && len == n) return REAL(x);
  double *rows = (double *)R_alloc((size_t)n * systems, sizeof(double));
  const double *v = REAL(x);
  for (long j = 0; j < systems; ++j) {
    double *r = rows + (size_t)j * n;
    for (long i = 0; i < n; ++i) r[i] = 0.0;
    for (long i = 0; i < len; ++i) r[first + i] = given == 1 ? v[0] : v[(size_t)j * len + i];
  }
  return rows;
}

/* lower, diag, upper: n - 1, n and n - 1 values per system, or a single
 * value each; one system (per_system FALSE) or one per column of b (a
 * vector: one column). Returns the solutions in the shape of b (a matrix
 * keeps its attributes). */
SEXP gs_r_tridiag_solve(SEXP lower, SEXP diag, SEXP upper, SEXP b, SEXP per_system_, SEXP device_,
                        SEXP threads_)
{
  need_double(lower, "lower");
  need_double(diag, "diag");
  need_double(upper, "upper");
  need_double(b, "b");
  const int device = gs_r_int(device_, "device"), threads = gs_r_int(threads_, "threads");
  const int matrix = Rf_isMatrix(b), per_system = Rf_asLogical(per_system_) == TRUE;
  const long n = matrix ? Rf_nrows(b) : (long)XLENGTH(b), nrhs = matrix ? Rf_ncols(b) : 1;
  const long systems = per_system ? nrhs : 1;
  const double *dl = band_rows(lower, n, systems, 1, 0), *d = band_rows(diag, n, systems, 0, 0),
               *du = band_rows(upper, n, systems, 0, 1);
  if (!dl || !d || !du) Rf_error("the diagonals do not match b");
  SEXP out = PROTECT(Rf_allocVector(REALSXP, XLENGTH(b)));
  memcpy(REAL(out), REAL(b), (size_t)XLENGTH(b) * sizeof(double));
  if (matrix) DUPLICATE_ATTRIB(out, b);
  gs_tridiag_args a = {.n = n, .nrhs = nrhs, .per_system = per_system, .dl = dl, .d = d, .du = du,
                       .b = REAL(out)};
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

/* ---- Jones-Worland plans: an external pointer owns a gs_jwt_plan --------------- */

static void jwt_plan_finalize(SEXP ptr)
{
  gs_jwt_plan *p = (gs_jwt_plan *)R_ExternalPtrAddr(ptr);
  if (p) {
    gs_jwt_plan_free(p);
    R_ClearExternalPtr(ptr);
  }
}

/* A plan lives outside R's heap: one saved and read back (saveRDS(), save(),
 * a saved workspace) holds an external pointer to nothing. */
static gs_jwt_plan *jwt_plan_get(SEXP ptr)
{
  return (gs_jwt_plan *)gs_r_handle(ptr, "gs_jwt_plan", "Jones-Worland plan",
                                    "this Jones-Worland plan is not in memory: a plan does not survive saving "
                                    "(saveRDS(), save(), a saved workspace) or the end of the R session; make it "
                                    "again with jwt_plan()");
}

/* The plan for degrees lmin .. lmax; device: a GPU id or -1. */
SEXP gs_r_jwt_plan_new(SEXP lmin, SEXP lmax, SEXP ncoef, SEXP nr, SEXP method, SEXP device, SEXP threads)
{
  const gs_jwt_plan_args a = {.lmin = gs_r_int(lmin, "lmin"), .lmax = gs_r_int(lmax, "lmax"),
                              .ncoef = gs_r_int(ncoef, "n"), .nr = gs_r_int(nr, "nr"),
                              .method = gs_r_int(method, "method"), .device = gs_r_int(device, "device")};
  gs_jwt_plan *p = NULL;
  char msg[GS_MSG_LEN];
  gs_status st = gs_jwt_plan_create(&a, gs_r_int(threads, "threads"), &p, msg);
  if (st != GS_OK) gs_r_stop(st, msg);
  return gs_r_new_handle(p, "gs_jwt_plan", jwt_plan_finalize);
}

/* list(lmin, lmax, n, nr, method, device, bytes) of the plan, as the core holds it. */
SEXP gs_r_jwt_plan_info(SEXP ptr)
{
  const gs_jwt_plan *p = jwt_plan_get(ptr);
  const gs_jwt_plan_args a = gs_jwt_plan_get_args(p);
  const char *names[] = {"lmin", "lmax", "n", "nr", "method", "device", "bytes", ""};
  SEXP out = PROTECT(Rf_mkNamed(VECSXP, names));
  gs_r_set_field(out, "lmin", Rf_ScalarInteger(a.lmin));
  gs_r_set_field(out, "lmax", Rf_ScalarInteger(a.lmax));
  gs_r_set_field(out, "n", Rf_ScalarInteger((int)a.ncoef));
  gs_r_set_field(out, "nr", Rf_ScalarInteger((int)a.nr));
  gs_r_set_field(out, "method", Rf_ScalarInteger(a.method));
  gs_r_set_field(out, "device", Rf_ScalarInteger(a.device));
  gs_r_set_field(out, "bytes", Rf_ScalarReal((double)gs_jwt_plan_bytes(p)));
  UNPROTECT(1);
  return out;
}

/* The working memory of a call on ncol columns in all, in bytes. */
SEXP gs_r_jwt_plan_work_bytes(SEXP ptr, SEXP ncol, SEXP analysis)
{
  return Rf_ScalarReal((double)gs_jwt_plan_work_bytes(jwt_plan_get(ptr), (long)Rf_asReal(ncol), Rf_asLogical(analysis)));
}

/* Releases the plan's memory (device memory included) now rather than at garbage collection. */
SEXP gs_r_jwt_plan_free(SEXP ptr)
{
  jwt_plan_finalize(ptr);
  return R_NilValue;
}

/* Runs p on a list of double matrices (or vectors), one per degree
 * lmin .. lmax, with the rows of its input each (checked in R), into *res:
 * a list of the results, unprotected on return (the callers return it
 * without allocating). */
static gs_status jwt_plan_run(gs_jwt_plan *p, SEXP x, int analysis, int threads, SEXP *res, char *msg)
{
  const gs_jwt_plan_args a = gs_jwt_plan_get_args(p);
  const int nl = a.lmax - a.lmin + 1;
  const long rows = analysis ? a.nr : a.ncoef, out_rows = analysis ? a.ncoef : a.nr;
  if (TYPEOF(x) != VECSXP || Rf_xlength(x) != nl) Rf_error("x must be a list with an element per degree");
  long *ncol = (long *)R_alloc(nl, sizeof(long));
  const double **in = (const double **)R_alloc(nl, sizeof(double *));
  double **out = (double **)R_alloc(nl, sizeof(double *));
  *res = PROTECT(Rf_allocVector(VECSXP, nl));
  for (int k = 0; k < nl; ++k) {
    SEXP e = VECTOR_ELT(x, k);
    need_double(e, "each element");
    if (Rf_xlength(e) % rows) Rf_error("element %d has the wrong number of rows", k + 1);
    ncol[k] = (long)(Rf_xlength(e) / rows);
    SET_VECTOR_ELT(*res, k, Rf_allocMatrix(REALSXP, (int)out_rows, (int)ncol[k]));
    in[k] = REAL(e);
    out[k] = REAL(VECTOR_ELT(*res, k));
  }
  const gs_jwt_data d = {.analysis = analysis, .ncol = ncol, .in = in, .out = out};
  gs_status st = gs_jwt_plan_execute(p, &d, threads, gs_r_progress, msg);
  UNPROTECT(1);
  return st;
}

/* x: a list per degree of the plan; progress: a progress function or NULL. */
SEXP gs_r_jwt_plan_execute(SEXP ptr, SEXP x, SEXP analysis, SEXP threads, SEXP progress)
{
  gs_jwt_plan *p = jwt_plan_get(ptr);
  char msg[GS_MSG_LEN];
  SEXP res = R_NilValue;
  gs_r_progress_set(progress);
  gs_status st = jwt_plan_run(p, x, Rf_asLogical(analysis), gs_r_int(threads, "threads"), &res, msg);
  if (st != GS_OK) gs_r_stop(st, msg);
  return res;
}

/* One degree l: x is coefficients (ncoef x ncol, synthesis) or values (nr x
 * ncol, analysis), through a plan made and released in this call. */
SEXP gs_r_jwt(SEXP x, SEXP l, SEXP ncoef, SEXP nr, SEXP method, SEXP analysis_, SEXP device_, SEXP threads_)
{
  need_double(x, "x");
  const int degree = gs_r_int(l, "l"), threads = gs_r_int(threads_, "threads");
  const gs_jwt_plan_args a = {.lmin = degree, .lmax = degree, .ncoef = gs_r_int(ncoef, "n"), .nr = gs_r_int(nr, "nr"),
                              .method = gs_r_int(method, "method"), .device = gs_r_int(device_, "device")};
  const int analysis = Rf_asLogical(analysis_);
  if (Rf_nrows(x) != (analysis ? a.nr : a.ncoef)) Rf_error("x has the wrong number of rows");
  gs_jwt_plan *p = NULL;
  char msg[GS_MSG_LEN];
  gs_status st = gs_jwt_plan_create(&a, threads, &p, msg);
  if (st != GS_OK) gs_r_stop(st, msg);
  SEXP ptr = PROTECT(gs_r_new_handle(p, "gs_jwt_plan", jwt_plan_finalize)); /* released below, or by R after an R error */
  SEXP one = PROTECT(Rf_allocVector(VECSXP, 1));
  SET_VECTOR_ELT(one, 0, x);
  SEXP res = R_NilValue;
  gs_r_progress_set(R_NilValue);
  st = jwt_plan_run(p, one, analysis, threads, &res, msg);
  jwt_plan_finalize(ptr);
  if (st != GS_OK) gs_r_stop(st, msg);
  UNPROTECT(2);
  return VECTOR_ELT(res, 0);
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

/* list(x = nodes, w = weights, x_lo = the nodes' low parts) of the n-point
 * Gauss-Legendre rule; progress: a progress function or NULL. */
SEXP gs_r_gauss_legendre(SEXP n_, SEXP threads_, SEXP progress)
{
  const int n = gs_r_int(n_, "n");
  const char *names[] = {"x", "w", "x_lo", ""};
  SEXP out = PROTECT(Rf_mkNamed(VECSXP, names));
  SEXP x = gs_r_set_field(out, "x", Rf_allocVector(REALSXP, n));
  SEXP w = gs_r_set_field(out, "w", Rf_allocVector(REALSXP, n));
  SEXP x_lo = gs_r_set_field(out, "x_lo", Rf_allocVector(REALSXP, n));
  gs_r_progress_set(progress);
  char msg[GS_MSG_LEN];
  gs_status st = gs_gauss_legendre(n, REAL(x), REAL(x_lo), REAL(w), gs_r_int(threads_, "threads"), gs_r_progress, msg);
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
  SEXP values, cos_part, sin_part, out;
  long nfield;
  if (analysis) {
    values = data;
    need_double(values, "values");
    nfield = Rf_xlength(values) / (nlat * nlon);
    if (Rf_xlength(values) != nlat * nlon * nfield) Rf_error("values do not match the grid");
    const char *names[] = {"cos", "sin", ""};
    out = PROTECT(Rf_mkNamed(VECSXP, names));
    cos_part = gs_r_set_field(out, "cos", alloc_array(lmax + 1, lmax + 1, nfield, 1));
    sin_part = gs_r_set_field(out, "sin", alloc_array(lmax + 1, lmax + 1, nfield, 1));
  } else {
    cos_part = gs_r_field(data, "cos", "coef");
    sin_part = gs_r_field(data, "sin", "coef");
    need_double(cos_part, "coef");
    need_double(sin_part, "coef");
    nfield = Rf_xlength(cos_part) / L2;
    if (Rf_xlength(cos_part) != L2 * nfield || Rf_xlength(sin_part) != L2 * nfield)
      Rf_error("coef does not match lmax");
    out = PROTECT(alloc_array(nlat, nlon, nfield, 0));
    values = out;
  }
  gs_sht_args a = {.lmax = lmax, .nlat = nlat, .nlon = nlon, .nfield = nfield, .x = REAL(x),
                   .w = REAL(w), .x_lo = Rf_isNull(x_lo) ? NULL : REAL(x_lo), .values = REAL(values),
                   .cos_part = REAL(cos_part), .sin_part = REAL(sin_part)};
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
