/* tile_chol for R: an external pointer owns the tiles of the factor. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gs_bench.h"
#include "gs_tile.h"
#include "tile_plan.h"
#include "r_util.h"

/* A factor lives outside R's heap: an object saved and read back (saveRDS,
 * save, a saved workspace) holds an external pointer to nothing. */
static gs_tile_matrix *tile_get(SEXP ptr)
{
  return (gs_tile_matrix *)gs_r_handle(ptr, "gs_tile_matrix", "tile_chol factor",
                                       "the factor of this tile_chol object is not in memory: a factor does not survive "
                                       "saving (saveRDS(), save(), a saved workspace) or the end of the R session; run "
                                       "tile_chol() on the matrix again to recompute it");
}

static void tile_finalize(SEXP ptr)
{
  gs_tile_matrix *m = (gs_tile_matrix *)R_ExternalPtrAddr(ptr);
  if (m) {
    gs_tile_matrix_free(m);
    R_ClearExternalPtr(ptr);
  }
}

/* The numbers of a factorization's info, named as R's tile_chol() reports
 * them in its element info. */
static SEXP tile_info_numbers(const gs_tile_info *info)
{
  const gs_r_number numbers[] = {
    {.name = "seconds", .value = info->seconds},
    {.name = "host_seconds", .value = info->host_seconds},
    {.name = "bytes_to_gpu", .value = info->bytes_to_device},
    {.name = "bytes_from_gpu", .value = info->bytes_to_host},
    {.name = "tile_loads", .value = (double)info->tile_loads},
    {.name = "cache_tiles", .value = (double)info->cache_tiles},
    {.name = "workers", .value = (double)info->workers},
    {.name = "attempts", .value = (double)info->attempts},
  };
  return gs_r_numbers(numbers, (int)(sizeof numbers / sizeof numbers[0]));
}

/* device_: -1 (the CPU), or the GPUs to factor on, the first holding the
 * factor's bookkeeping; memory: bytes each device's cache may use (0: all
 * free memory).
 * a: a square double matrix, or NULL with locs and model (R's cov_model(),
 * validated in R) for a Matérn covariance;
 * tile <= 0 chooses the tile size; accuracy > 0: mixed precision, with FP8
 * tiles allowed when fp8 is TRUE. Returns
 * list(ptr, logdet, info, trace, tile, precision) with info the numbers of
 * gs_tile_info (tile_info_numbers), trace a matrix with GS_TILE_TRACE_COLS
 * columns (NULL without a trace) and precision the gs_tile_precision of
 * every tile, in gs_tile_index order. */
SEXP gs_r_tile_chol(SEXP a, SEXP locs, SEXP model, SEXP tile, SEXP device_, SEXP memory,
                    SEXP accuracy, SEXP fp8, SEXP threads, SEXP trace, SEXP progress)
{
  gs_r_progress_set(progress);
  if (TYPEOF(device_) != INTSXP || Rf_length(device_) < 1) Rf_error("device must be a non-empty integer vector");
  const int device = INTEGER(device_)[0];
  gs_tile_source src;
  memset(&src, 0, sizeof src);
  long n;
  if (a != R_NilValue) {
    if (!Rf_isMatrix(a) || TYPEOF(a) != REALSXP || Rf_nrows(a) != Rf_ncols(a)) Rf_error("A must be a square double matrix");
    n = Rf_nrows(a);
    src.a = REAL(a);
    src.lda = n;
  } else {
    if (!Rf_isMatrix(locs) || TYPEOF(locs) != REALSXP) Rf_error("locs must be a double matrix");
    n = Rf_nrows(locs);
    src.locs = REAL(locs);
    src.dim = Rf_ncols(locs);
    src.model = gs_r_cov_model(model);
  }
  gs_tile_matrix *m = NULL;
  gs_tile_info info;
  char msg[GS_MSG_LEN];
  if (src.a) {
    gs_status st = gs_tile_source_check(&src, n, gs_r_int(threads, "threads"), msg);
    if (st != GS_OK) gs_r_stop(st, msg);
  }
  memset(&info, 0, sizeof info);
  gs_tile_options opt = {.threads = gs_r_int(threads, "threads"),
                         .progress = gs_r_progress,
                         .trace = gs_r_int(trace, "trace"),
                         .accuracy = Rf_asReal(accuracy),
                         .gpus = INTEGER(device_),
                         .ngpus = Rf_length(device_),
                         .fp8 = Rf_asLogical(fp8) == TRUE};
  int nb = gs_r_int(tile, "tile");
  if (nb <= 0) nb = gs_tile_default_size(n, device);
  if (nb > n) nb = (int)n;
  const double cache_bytes = Rf_asReal(memory);
  if (device >= 0 && cache_bytes > 0) { /* a cap on the device cache, in bytes */
    const double slots = floor(cache_bytes / (8.0 * nb * nb));
    if (slots < 3)
      gs_r_stop(GS_ERR_ARG, "memory must hold at least three tiles (24 tile^2 bytes)");
    opt.cache_tiles = slots > 1e9 ? 1000000000 : (int)slots;
  }
  gs_status st = gs_tile_matrix_create(n, nb, device >= 0, &m, msg);
  if (st == GS_OK) st = gs_tile_chol(device, m, &src, &opt, &info, msg);
  if (st != GS_OK) {
    gs_tile_matrix_free(m);
    free(info.trace);
    gs_r_stop(st, msg);
  }
  SEXP ptr = PROTECT(gs_r_new_handle(m, "gs_tile_matrix", tile_finalize));
  const char *names[] = {"ptr", "logdet", "info", "trace", "tile", "precision", ""};
  SEXP out = PROTECT(Rf_mkNamed(VECSXP, names));
  gs_r_set_field(out, "ptr", ptr);
  gs_r_set_field(out, "logdet", Rf_ScalarReal(info.logdet));
  gs_r_set_field(out, "info", tile_info_numbers(&info));
  if (info.trace) { /* row-major in the core, column-major in R */
    SEXP tr = gs_r_set_field(out, "trace", Rf_allocMatrix(REALSXP, (int)info.trace_rows, GS_TILE_TRACE_COLS));
    for (long r = 0; r < info.trace_rows; ++r)
      for (int c = 0; c < GS_TILE_TRACE_COLS; ++c)
        REAL(tr)[r + c * info.trace_rows] = info.trace[r * GS_TILE_TRACE_COLS + c];
    free(info.trace);
  }
  gs_r_set_field(out, "tile", Rf_ScalarInteger(m->nb));
  const long ntiles = gs_tile_count(m->nt);
  SEXP prec = gs_r_set_field(out, "precision", Rf_allocVector(INTSXP, (R_xlen_t)ntiles));
  for (long t = 0; t < ntiles; ++t) INTEGER(prec)[t] = m->precision[t];
  UNPROTECT(2);
  return out;
}

/* Releases the tiles now rather than at garbage collection. */
SEXP gs_r_tile_free(SEXP ptr)
{
  tile_finalize(ptr);
  return R_NilValue;
}

/* what: 1 = L^-1 b, 2 = L'^-1 b, 3 = A^-1 b, for b a double vector or matrix with n rows. */
SEXP gs_r_tile_solve(SEXP ptr, SEXP what, SEXP b, SEXP threads)
{
  const gs_tile_matrix *m = tile_get(ptr);
  if (TYPEOF(b) != REALSXP) Rf_error("b must be double");
  const R_xlen_t len = XLENGTH(b);
  if (len % m->n != 0) Rf_error("b must have as many rows as the matrix");
  SEXP out = PROTECT(Rf_duplicate(b));
  char msg[GS_MSG_LEN];
  gs_status st = gs_tile_solve(m, gs_r_int(what, "what"), REAL(out), (long)(len / m->n), gs_r_int(threads, "threads"), msg);
  if (st != GS_OK) gs_r_stop(st, msg);
  UNPROTECT(1);
  return out;
}

/* The upper triangular factor R = L', as base::chol returns it. */
SEXP gs_r_tile_upper(SEXP ptr, SEXP threads)
{
  const gs_tile_matrix *m = tile_get(ptr);
  SEXP out = PROTECT(Rf_allocMatrix(REALSXP, (int)m->n, (int)m->n));
  gs_tile_upper(m, REAL(out), gs_r_int(threads, "threads"));
  UNPROTECT(1);
  return out;
}

/* The cache plan of device `owner` of `owners` for a factorization with nt
 * tile rows and `slots` device tile slots, one row per op: its kind
 * (tile_op_kind), i, j, k (a load: the loaded tile's i and j, k = -1), its
 * worker and the column whose section holds it. */
SEXP gs_r_tile_plan(SEXP nt, SEXP slots, SEXP owners, SEXP owner)
{
  tile_plan p;
  char msg[GS_MSG_LEN];
  /* the worker count labels the ops; it changes neither their order nor the loads */
  gs_status st = tile_plan_build(gs_r_int(nt, "nt"), 4, gs_r_int(slots, "slots"), gs_r_int(owners, "owners"),
                                 gs_r_int(owner, "owner"), &p, msg);
  if (st != GS_OK) gs_r_stop(st, msg);
  SEXP out = PROTECT(Rf_allocMatrix(INTSXP, (int)p.nops, 6));
  int *v = INTEGER(out), column = 0;
  for (long q = 0; q < p.nops; ++q) {
    const tile_op *op = &p.ops[q];
    int i = op->i, j = op->j, k = op->k;
    while (q >= p.column_end[column]) ++column;
    if (op->kind == TILE_OP_LOAD) {
      gs_tile_coords(op->tile[0], &i, &j);
      k = -1;
    }
    const int row[6] = {op->kind, i, j, k, op->worker, column};
    for (int c = 0; c < 6; ++c) v[q + c * p.nops] = row[c];
  }
  tile_plan_free(&p);
  UNPROTECT(1);
  return out;
}

SEXP gs_r_bench_tile_chol(SEXP n, SEXP tile, SEXP cache_tiles, SEXP reps, SEXP device)
{
  SEXP out = PROTECT(Rf_allocVector(REALSXP, 9));
  char msg[GS_MSG_LEN];
  if (TYPEOF(device) != INTSXP || Rf_length(device) < 1) Rf_error("device must be a non-empty integer vector");
  gs_status st = gs_bench_tile_chol_gpu(INTEGER(device), Rf_length(device), (long)Rf_asReal(n), gs_r_int(tile, "tile"),
                                        gs_r_int(cache_tiles, "cache_tiles"), gs_r_int(reps, "reps"), REAL(out), msg);
  if (st != GS_OK) gs_r_stop(st, msg);
  UNPROTECT(1);
  return out;
}

/* Mixed precision against FP64 on the Matérn covariance of locs (2 columns)
 * with model R's cov_model(): gs_bench_tile_chol_mixed_gpu's out. */
SEXP gs_r_bench_tile_chol_mixed(SEXP locs, SEXP model, SEXP tile, SEXP accuracy, SEXP fp8, SEXP reps, SEXP device)
{
  if (!Rf_isMatrix(locs) || TYPEOF(locs) != REALSXP) Rf_error("locs must be a double matrix");
  const gs_cov_model m = gs_r_cov_model(model);
  SEXP out = PROTECT(Rf_allocVector(REALSXP, 10));
  char msg[GS_MSG_LEN];
  gs_status st = gs_bench_tile_chol_mixed_gpu(gs_r_int(device, "device"), REAL(locs), Rf_nrows(locs), Rf_ncols(locs),
                                              &m, gs_r_int(tile, "tile"), Rf_asReal(accuracy),
                                              Rf_asLogical(fp8) == TRUE, gs_r_int(reps, "reps"), REAL(out), msg);
  if (st != GS_OK) gs_r_stop(st, msg);
  UNPROTECT(1);
  return out;
}
