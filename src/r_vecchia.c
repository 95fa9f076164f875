/* The Vecchia approximation for R: ordering and neighbours, and an external
 * pointer that owns a gs_vecchia. R indices are 1-based with NA; the core's
 * are 0-based with -1. */
#include <stdlib.h>

#include "r_vecchia.h"

gs_vecchia *gs_r_vecchia_get(SEXP ptr)
{
  return (gs_vecchia *)gs_r_handle(ptr, "gs_vecchia", "Vecchia object", "the Vecchia object has been released");
}

static void vecchia_finalize(SEXP ptr)
{
  gs_vecchia *v = (gs_vecchia *)R_ExternalPtrAddr(ptr);
  if (v) {
    gs_vecchia_free(v);
    R_ClearExternalPtr(ptr);
  }
}

static void check_locs(SEXP locs)
{
  if (!Rf_isMatrix(locs) || TYPEOF(locs) != REALSXP) Rf_error("locs must be a double matrix");
}

/* The maxmin order of the rows of locs, 1-based: exact, or to within a
 * factor of 2 in distance (exact = FALSE). */
SEXP gs_r_vecchia_maxmin(SEXP locs, SEXP exact, SEXP progress)
{
  check_locs(locs);
  const long n = Rf_nrows(locs);
  long *order = (long *)R_alloc(n, sizeof(long));
  char msg[GS_MSG_LEN];
  gs_r_progress_set(progress);
  gs_status st = (Rf_asLogical(exact) ? gs_vecchia_maxmin : gs_vecchia_maxmin_approx)(
      REAL(locs), n, Rf_ncols(locs), order, gs_r_progress, msg);
  if (st != GS_OK) gs_r_stop(st, msg);
  SEXP out = PROTECT(Rf_allocVector(INTSXP, n));
  int *one_based = INTEGER(out);
  for (long i = 0; i < n; ++i) one_based[i] = (int)order[i] + 1;
  UNPROTECT(1);
  return out;
}

/* The n x (m + 1) neighbour array of locs (rows in Vecchia order), 1-based,
 * NA-padded; attribute "duplicate": the first row whose nearest earlier
 * neighbour is at distance 0 and that neighbour (1-based), or NULL. */
SEXP gs_r_vecchia_neighbors(SEXP locs, SEXP m, SEXP threads, SEXP progress)
{
  check_locs(locs);
  const long n = Rf_nrows(locs);
  const int mm = gs_r_int(m, "m");
  SEXP out = PROTECT(Rf_allocMatrix(INTSXP, (int)n, mm + 1));
  int *nn = INTEGER(out);
  char msg[GS_MSG_LEN];
  gs_r_progress_set(progress);
  long dup[2];
  gs_status st = gs_vecchia_neighbors(REAL(locs), n, Rf_ncols(locs), mm, gs_r_int(threads, "threads"), nn, dup,
                                      gs_r_progress, msg);
  if (st != GS_OK) gs_r_stop(st, msg);
  for (R_xlen_t k = 0; k < XLENGTH(out); ++k) nn[k] = (nn[k] < 0) ? NA_INTEGER : nn[k] + 1;
  if (dup[0] >= 0) {
    SEXP d = PROTECT(Rf_allocVector(INTSXP, 2));
    INTEGER(d)[0] = (int)dup[0] + 1;
    INTEGER(d)[1] = (int)dup[1] + 1;
    Rf_setAttrib(out, Rf_install("duplicate"), d);
    UNPROTECT(1);
  }
  UNPROTECT(1);
  return out;
}

/* The blocks of the grouped approximation for the neighbour array nn (as
 * gs_r_vecchia_neighbors returns it): the block of each row, 1-based. The
 * core takes the rows 0-based and row-major: one copy does both, freed on
 * return (memory from R_alloc would wait for the next garbage collection). */
SEXP gs_r_vecchia_group(SEXP nn, SEXP threads, SEXP progress)
{
  if (!Rf_isMatrix(nn) || TYPEOF(nn) != INTSXP) Rf_error("nn must be an integer matrix");
  const long n = Rf_nrows(nn);
  const int mp1 = Rf_ncols(nn), *src = INTEGER(nn), nthreads = gs_r_int(threads, "threads");
  SEXP out = PROTECT(Rf_allocVector(INTSXP, n));
  int *rows = (int *)malloc((size_t)XLENGTH(nn) * sizeof(int));
  if (!rows) gs_r_stop(GS_ERR_NOMEM, "cannot allocate a copy of the neighbour array");
  for (int j = 0; j < mp1; ++j)
    for (long i = 0; i < n; ++i) {
      const int e = src[i + (R_xlen_t)j * n];
      rows[i * mp1 + j] = (e == NA_INTEGER) ? -1 : e - 1;
    }
  char msg[GS_MSG_LEN];
  gs_r_progress_set(progress);
  gs_status st = gs_vecchia_group(rows, n, mp1, nthreads, INTEGER(out), gs_r_progress, msg);
  free(rows);
  if (st != GS_OK) gs_r_stop(st, msg);
  int *one_based = INTEGER(out);
  for (long i = 0; i < n; ++i) one_based[i] += 1;
  UNPROTECT(1);
  return out;
}

/* The k nearest rows of locs to each row of query: an nrow(query) x k
 * integer matrix, 1-based. */
SEXP gs_r_vecchia_nearest(SEXP locs, SEXP query, SEXP k, SEXP threads, SEXP progress)
{
  check_locs(locs);
  check_locs(query);
  if (Rf_ncols(query) != Rf_ncols(locs)) Rf_error("locs and query must have the same columns");
  const int kk = gs_r_int(k, "k"), nq = Rf_nrows(query);
  SEXP out = PROTECT(Rf_allocMatrix(INTSXP, nq, kk));
  int *nn = INTEGER(out);
  char msg[GS_MSG_LEN];
  gs_r_progress_set(progress);
  gs_status st = gs_vecchia_nearest(REAL(locs), Rf_nrows(locs), Rf_ncols(locs), REAL(query), nq, kk,
                                    gs_r_int(threads, "threads"), nn, gs_r_progress, msg);
  if (st != GS_OK) gs_r_stop(st, msg);
  for (R_xlen_t j = 0; j < XLENGTH(out); ++j) nn[j] += 1;
  UNPROTECT(1);
  return out;
}

/* latent: the first point (1-based) without the nugget, n + 1 for none;
 * blocks: NULL, or the block of each point (1-based) for the grouped
 * likelihood; halo: NULL, or a logical per point (gs_vecchia_args). The
 * core reads nn and blocks 1-based (NA below 1: missing) into its own
 * arrays, so no copy of them is made here. */
SEXP gs_r_vecchia_new(SEXP locs, SEXP nn, SEXP latent, SEXP blocks, SEXP halo, SEXP device, SEXP threads)
{
  check_locs(locs);
  if (!Rf_isMatrix(nn) || TYPEOF(nn) != INTSXP || Rf_nrows(nn) != Rf_nrows(locs))
    Rf_error("nn must be an integer matrix with a row per location");
  if (!Rf_isNull(blocks) && (TYPEOF(blocks) != INTSXP || XLENGTH(blocks) != Rf_nrows(nn)))
    Rf_error("blocks must be an integer vector with a value per location");
  if (!Rf_isNull(halo) && (TYPEOF(halo) != LGLSXP || XLENGTH(halo) != Rf_nrows(nn)))
    Rf_error("halo must be a logical vector with a value per location");
  unsigned char *flags = NULL;
  if (!Rf_isNull(halo)) {
    flags = (unsigned char *)R_alloc((size_t)XLENGTH(halo), 1);
    const int *h = LOGICAL(halo);
    for (R_xlen_t i = 0; i < XLENGTH(halo); ++i) flags[i] = h[i] == TRUE;
  }
  const gs_vecchia_args a = {
    .device = gs_r_int(device, "device"), .locs = REAL(locs), .n = Rf_nrows(locs),
    .latent = (long)gs_r_int(latent, "latent") - 1, .dim = Rf_ncols(locs),
    .nn = INTEGER(nn), .m = Rf_ncols(nn) - 1, .block = Rf_isNull(blocks) ? NULL : INTEGER(blocks), .base = 1,
    .halo = flags,
    .threads = gs_r_int(threads, "threads"), .progress = gs_r_progress,
  };
  gs_vecchia *v = NULL;
  char msg[GS_MSG_LEN];
  gs_status st = gs_vecchia_create(&a, &v, msg);
  if (st != GS_OK) gs_r_stop(st, msg);
  return gs_r_new_handle(v, "gs_vecchia", vecchia_finalize);
}

/* Releases the memory (device memory included) now rather than at garbage collection. */
SEXP gs_r_vecchia_free(SEXP ptr)
{
  vecchia_finalize(ptr);
  return R_NilValue;
}

/* model: R's cov_model() (gs_r_cov_model). Returns log |Sigma_V|. */
SEXP gs_r_vecchia_factor(SEXP ptr, SEXP model, SEXP progress)
{
  gs_vecchia *v = gs_r_vecchia_get(ptr);
  const gs_cov_model p = gs_r_cov_model(model);
  double logdet = 0.0;
  long failed = 0;
  char msg[GS_MSG_LEN];
  gs_r_progress_set(progress);
  gs_status st = gs_vecchia_factor(v, &p, &logdet, &failed, msg);
  if (st != GS_OK) gs_r_stop(st, msg);
  return Rf_ScalarReal(logdet);
}

/* noise: NULL, or a double vector of the points' own variances, in the
 * object's order (gs_vecchia_set_noise). */
SEXP gs_r_vecchia_set_noise(SEXP ptr, SEXP noise)
{
  gs_vecchia *v = gs_r_vecchia_get(ptr);
  if (!Rf_isNull(noise) && (TYPEOF(noise) != REALSXP || XLENGTH(noise) != gs_vecchia_size(v)))
    Rf_error("noise must be a double vector with a value per location");
  char msg[GS_MSG_LEN];
  gs_status st = gs_vecchia_set_noise(v, Rf_isNull(noise) ? NULL : REAL(noise), msg);
  if (st != GS_OK) gs_r_stop(st, msg);
  return R_NilValue;
}

/* what: 0 = W b, 1 = W^-1 b, for b a double vector or matrix with n rows. */
SEXP gs_r_vecchia_apply(SEXP ptr, SEXP what, SEXP b)
{
  gs_vecchia *v = gs_r_vecchia_get(ptr);
  if (TYPEOF(b) != REALSXP) Rf_error("b must be double");
  const R_xlen_t len = XLENGTH(b);
  const long n = gs_vecchia_size(v);
  if (len % n != 0) Rf_error("b must have as many rows as there are locations");
  SEXP out = PROTECT(Rf_duplicate(b));
  char msg[GS_MSG_LEN];
  gs_status st = gs_vecchia_apply(v, gs_r_int(what, "what"), REAL(b), (int)(len / n), REAL(out), msg);
  if (st != GS_OK) gs_r_stop(st, msg);
  UNPROTECT(1);
  return out;
}

/* The sums of gs_vecchia_grad_info for y, X (a double matrix with n rows and
 * p >= 0 columns) and the derivative bits `deriv`. */
SEXP gs_r_vecchia_grad_info(SEXP ptr, SEXP model, SEXP deriv, SEXP y, SEXP X, SEXP order, SEXP progress)
{
  gs_vecchia *v = gs_r_vecchia_get(ptr);
  const gs_cov_model p = gs_r_cov_model(model);
  const long n = gs_vecchia_size(v);
  if (TYPEOF(y) != REALSXP || XLENGTH(y) != n) Rf_error("y must be a double vector with a value per location");
  if (!Rf_isMatrix(X) || TYPEOF(X) != REALSXP || Rf_nrows(X) != n) Rf_error("X must be a double matrix with n rows");
  if (TYPEOF(order) != INTSXP || XLENGTH(order) != n) Rf_error("order must be an integer vector with n entries");
  const int *ord = INTEGER(order); /* once: INTEGER() is a function call */
  for (long i = 0; i < n; ++i)
    if (ord[i] < 1 || ord[i] > n) Rf_error("order must hold indices from 1 to n");
  const int bits = gs_r_int(deriv, "deriv"), ncov = Rf_ncols(X);
  /* y and X in the object's order, freed by R when the call returns */
  double *yx = (double *)R_alloc((size_t)n * (1 + ncov), sizeof(double));
  gs_vecchia_gather(ord, 1, n, REAL(y), 1, yx);
  if (ncov) gs_vecchia_gather(ord, 1, n, REAL(X), ncov, yx + n);
  SEXP out = PROTECT(Rf_allocVector(REALSXP, gs_vecchia_sums_size(ncov, bits)));
  long failed = 0;
  char msg[GS_MSG_LEN];
  gs_r_progress_set(progress);
  gs_status st = gs_vecchia_grad_info(v, &p, bits, yx, ncov ? yx + n : NULL, ncov, REAL(out), &failed, msg);
  if (st != GS_OK) gs_r_stop(st, msg);
  UNPROTECT(1);
  return out;
}

/* The length of the sums of gs_r_vecchia_grad_info for p covariates and the
 * derivative bits `deriv`. */
SEXP gs_r_vecchia_sums_size(SEXP p, SEXP deriv)
{
  return Rf_ScalarInteger(gs_vecchia_sums_size(gs_r_int(p, "p"), gs_r_int(deriv, "deriv")));
}

/* Piece `which` (1-based) of the points' pieces `piece` (1-based) for the
 * neighbour array nn (1-based, NA-padded: NA is below 1, so the core reads
 * it as it is): list(local, halo) as R's vecchia_partition() uses them. */
SEXP gs_r_vecchia_piece(SEXP nn, SEXP piece, SEXP which)
{
  if (!Rf_isMatrix(nn) || TYPEOF(nn) != INTSXP) Rf_error("nn must be an integer matrix");
  const long n = Rf_nrows(nn);
  if (TYPEOF(piece) != INTSXP || XLENGTH(piece) != n) Rf_error("piece must be an integer vector with a value per row of nn");
  int *local = (int *)R_alloc((size_t)n, sizeof(int));
  unsigned char *halo = (unsigned char *)R_alloc((size_t)n, 1);
  long count = 0;
  char msg[GS_MSG_LEN];
  gs_status st = gs_vecchia_piece_points(INTEGER(nn), n, Rf_ncols(nn), 1, INTEGER(piece), gs_r_int(which, "which"),
                                         &count, local, halo, msg);
  if (st != GS_OK) gs_r_stop(st, msg);
  SEXP out = PROTECT(Rf_allocVector(VECSXP, 2));
  SEXP r_local = SET_VECTOR_ELT(out, 0, Rf_allocVector(INTSXP, count));
  SEXP r_halo = SET_VECTOR_ELT(out, 1, Rf_allocVector(LGLSXP, count));
  for (long r = 0; r < count; ++r) {
    INTEGER(r_local)[r] = local[r] + 1;
    LOGICAL(r_halo)[r] = halo[r];
  }
  SEXP names = PROTECT(Rf_allocVector(STRSXP, 2));
  SET_STRING_ELT(names, 0, Rf_mkChar("local"));
  SET_STRING_ELT(names, 1, Rf_mkChar("halo"));
  Rf_setAttrib(out, R_NamesSymbol, names);
  UNPROTECT(2);
  return out;
}
