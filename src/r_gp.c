/* Gaussian-process objects for R: an external pointer owns a gs_gp. */
#include "gs_bench.h"
#include "gs_gp.h"
#include "r_krige.h"
#include "r_util.h"

static gs_gp *gp_get(SEXP ptr)
{
  return (gs_gp *)gs_r_handle(ptr, "gs_gp", "Gaussian-process object", "the Gaussian-process object has been released");
}

static void gp_finalize(SEXP ptr)
{
  gs_gp *gp = (gs_gp *)R_ExternalPtrAddr(ptr);
  if (gp) {
    gs_gp_free(gp);
    R_ClearExternalPtr(ptr);
  }
}

/* tiles: 1 to factor with the tile Cholesky even when the matrix fits;
 * accuracy > 0: the tile Cholesky in mixed precision. */
SEXP gs_r_gp_new(SEXP locs, SEXP device, SEXP threads, SEXP tiles, SEXP accuracy)
{
  if (!Rf_isMatrix(locs) || TYPEOF(locs) != REALSXP) Rf_error("locs must be a double matrix");
  gs_gp *gp = NULL;
  char msg[GS_MSG_LEN];
  gs_status st = gs_gp_create(gs_r_int(device, "device"), REAL(locs), Rf_nrows(locs), Rf_ncols(locs),
                              gs_r_int(threads, "threads"),
                              gs_r_int(tiles, "tiles") ? GS_GP_BACKEND_TILES : GS_GP_BACKEND_AUTO, Rf_asReal(accuracy),
                              gs_r_progress, &gp, msg);
  if (st != GS_OK) gs_r_stop(st, msg);
  return gs_r_new_handle(gp, "gs_gp", gp_finalize);
}

/* New locations for the object (a double matrix of its n x dim). */
SEXP gs_r_gp_set_locations(SEXP ptr, SEXP locs)
{
  gs_gp *gp = gp_get(ptr);
  if (!Rf_isMatrix(locs) || TYPEOF(locs) != REALSXP || Rf_nrows(locs) != gs_gp_size(gp))
    Rf_error("locs must be a double matrix with a row per location of the object");
  char msg[GS_MSG_LEN];
  gs_status st = gs_gp_set_locations(gp, REAL(locs), msg);
  if (st != GS_OK) gs_r_stop(st, msg);
  return R_NilValue;
}

SEXP gs_r_gp_tiled(SEXP ptr) { return Rf_ScalarLogical(gs_gp_tiled(gp_get(ptr))); }

SEXP gs_r_gp_attempts(SEXP ptr) { return Rf_ScalarInteger(gs_gp_attempts(gp_get(ptr))); }

/* Releases the memory (device memory included) now rather than at garbage collection. */
SEXP gs_r_gp_free(SEXP ptr)
{
  gp_finalize(ptr);
  return R_NilValue;
}

/* model: R's cov_model() (gs_r_cov_model); progress: an R function of the
 * fraction done (a progress bar), or NULL; the factorization checks for
 * interrupts either way. Returns log |Sigma|. */
SEXP gs_r_gp_factor(SEXP ptr, SEXP model, SEXP progress)
{
  gs_gp *gp = gp_get(ptr);
  const gs_cov_model p = gs_r_cov_model(model);
  double logdet = 0.0;
  long minor = 0;
  char msg[GS_MSG_LEN];
  gs_r_progress_set(progress);
  gs_status st = gs_gp_factor(gp, &p, &logdet, &minor, msg);
  if (st != GS_OK) gs_r_stop(st, msg);
  return Rf_ScalarReal(logdet);
}

/* what: 0 = L^-1 b, 1 = L b, 2 = Sigma^-1 b, for b a double vector or matrix with n rows. */
SEXP gs_r_gp_apply(SEXP ptr, SEXP what, SEXP b)
{
  gs_gp *gp = gp_get(ptr);
  if (TYPEOF(b) != REALSXP) Rf_error("b must be double");
  const R_xlen_t len = XLENGTH(b);
  const long n = gs_gp_size(gp);
  if (n == 0 || len % n != 0) Rf_error("b must have as many rows as there are locations");
  SEXP out = PROTECT(Rf_duplicate(b));
  char msg[GS_MSG_LEN];
  gs_status st = gs_gp_apply(gp, gs_r_int(what, "what"), REAL(b), (int)(len / n), REAL(out), msg);
  if (st != GS_OK) gs_r_stop(st, msg);
  UNPROTECT(1);
  return out;
}

/* A double matrix argument of the given shape (a dimension < 0: any); an
 * R error naming it otherwise. */
static const double *krige_matrix(SEXP x, const char *what, long rows, long cols)
{
  if (!Rf_isMatrix(x) || TYPEOF(x) != REALSXP || (rows >= 0 && Rf_nrows(x) != rows) || (cols >= 0 && Rf_ncols(x) != cols))
    Rf_error("%s must be a double matrix of the shape kriging takes", what);
  return REAL(x);
}

SEXP gs_r_krige_args(SEXP model, SEXP locs, SEXP X0, SEXP W, SEXP B, SEXP A, long n, int k, int want_se,
                     gs_gp_krige_args *a)
{
  krige_matrix(locs, "locs", -1, -1);
  krige_matrix(W, "W", n, -1);
  const long m = Rf_nrows(locs);
  const int p = Rf_ncols(W);
  *a = (gs_gp_krige_args){.model = gs_r_cov_model(model),
                          .locs = REAL(locs),
                          .m = m,
                          .dim = Rf_ncols(locs),
                          .x0 = krige_matrix(X0, "X0", m, p),
                          .p = p,
                          .w = REAL(W),
                          .k = k,
                          .beta = krige_matrix(B, "B", p, k),
                          .a = krige_matrix(A, "A", p, p)};
  const char *names[] = {"fit", "se", ""};
  SEXP out = PROTECT(Rf_mkNamed(VECSXP, names));
  a->fit = REAL(gs_r_set_field(out, "fit", Rf_allocMatrix(REALSXP, (int)m, k)));
  if (want_se) a->se = REAL(gs_r_set_field(out, "se", Rf_allocVector(REALSXP, m)));
  UNPROTECT(1);
  return out;
}

/* Kriging with the last factor (gs_gp_krige): R = L^-1 (Y - X B) (n x k),
 * the rest as gs_r_krige_args takes them; progress as for gs_r_gp_factor. */
SEXP gs_r_gp_krige(SEXP ptr, SEXP model, SEXP locs, SEXP X0, SEXP W, SEXP R, SEXP B, SEXP A, SEXP se, SEXP progress)
{
  gs_gp *gp = gp_get(ptr);
  const long n = gs_gp_size(gp);
  krige_matrix(R, "R", n, -1);
  gs_gp_krige_args a;
  SEXP out = PROTECT(gs_r_krige_args(model, locs, X0, W, B, A, n, Rf_ncols(R), Rf_asLogical(se) == TRUE, &a));
  a.r = REAL(R);
  char msg[GS_MSG_LEN];
  gs_r_progress_set(progress);
  gs_status st = gs_gp_krige(gp, &a, msg);
  if (st != GS_OK) gs_r_stop(st, msg);
  UNPROTECT(1);
  return out;
}

/* v, a double vector, with every element NA. */
static SEXP all_na(SEXP v)
{
  for (R_xlen_t j = 0; j < XLENGTH(v); ++j) REAL(v)[j] = NA_REAL;
  return v;
}

/* The derivatives of gs_gp_derivatives with the last factor (that of
 * model, R's cov_model()): deriv its bits, X a double matrix with n rows (no columns: P is
 * Sigma^-1), U a double matrix with n rows, info TRUE for the information.
 * Returns list(trace, quad, info): GS_COV_NPAR, GS_COV_NPAR and GS_COV_NPAR^2 (or NULL) values in the
 * order of the parameters, NA where a parameter was not asked for. */
SEXP gs_r_gp_derivatives(SEXP ptr, SEXP model, SEXP deriv, SEXP X, SEXP U, SEXP info, SEXP progress)
{
  gs_gp *gp = gp_get(ptr);
  const long n = gs_gp_size(gp);
  if (!Rf_isMatrix(X) || TYPEOF(X) != REALSXP || Rf_nrows(X) != n) Rf_error("X must be a double matrix with n rows");
  if (!Rf_isMatrix(U) || TYPEOF(U) != REALSXP || Rf_nrows(U) != n) Rf_error("U must be a double matrix with n rows");
  const int want_info = Rf_asLogical(info) == TRUE;
  const char *names[] = {"trace", "quad", "info", ""};
  SEXP out = PROTECT(Rf_mkNamed(VECSXP, names));
  SEXP trace = gs_r_set_field(out, "trace", all_na(Rf_allocVector(REALSXP, GS_COV_NPAR)));
  SEXP quad = gs_r_set_field(out, "quad", all_na(Rf_allocVector(REALSXP, GS_COV_NPAR)));
  SEXP fisher = want_info ? gs_r_set_field(out, "info", all_na(Rf_allocMatrix(REALSXP, GS_COV_NPAR, GS_COV_NPAR))) : R_NilValue;
  const gs_gp_deriv_args a = {.model = gs_r_cov_model(model),
                              .deriv = gs_r_int(deriv, "deriv"),
                              .x = Rf_ncols(X) ? REAL(X) : NULL,
                              .p = Rf_ncols(X),
                              .u = Rf_ncols(U) ? REAL(U) : NULL,
                              .k = Rf_ncols(U),
                              .trace = REAL(trace),
                              .quad = REAL(quad),
                              .info = want_info ? REAL(fisher) : NULL};
  char msg[GS_MSG_LEN];
  gs_r_progress_set(progress);
  gs_status st = gs_gp_derivatives(gp, &a, msg);
  if (st != GS_OK) gs_r_stop(st, msg);
  UNPROTECT(1);
  return out;
}

SEXP gs_r_bench_gp_loglik(SEXP n, SEXP range, SEXP smoothness, SEXP reps, SEXP device)
{
  SEXP out = PROTECT(Rf_allocVector(REALSXP, 3));
  char msg[GS_MSG_LEN];
  gs_status st = gs_bench_gp_loglik_gpu(gs_r_int(device, "device"), (long)Rf_asReal(n), Rf_asReal(range),
                                        Rf_asReal(smoothness), gs_r_int(reps, "reps"), REAL(out), msg);
  if (st != GS_OK) gs_r_stop(st, msg);
  UNPROTECT(1);
  return out;
}
