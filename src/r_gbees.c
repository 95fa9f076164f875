/* GBEES for R: an external pointer owns the grid; a user model is either
 * compiled code (expressions) or an R function called from the core through
 * field_from_r. */
#include <stdlib.h>
#include <string.h>

#include "gs_gbees.h"
#include "r_util.h"

/* The R function of a user model: the R side wraps it so that it returns
 * either a numeric n x dim matrix or a character string (the reason it
 * failed), never an R error. Kept alive by the external pointer's
 * protected field. */
typedef struct {
  SEXP fn;
  int dim;
} r_field;

static gs_gbees *gbees_get(SEXP ptr)
{
  return (gs_gbees *)gs_r_handle(ptr, "gs_gbees", "GBEES grid", "the GBEES grid has been released");
}

static void gbees_finalize(SEXP ptr)
{
  gs_gbees *g = (gs_gbees *)R_ExternalPtrAddr(ptr);
  if (g) {
    gs_gbees_free(g);
    R_ClearExternalPtr(ptr);
  }
}

static void field_context_finalize(SEXP ptr)
{
  free(R_ExternalPtrAddr(ptr));
  R_ClearExternalPtr(ptr);
}

static gs_status field_from_r(void *ctx, double t, const double *x, size_t n_points, double *f, char *msg)
{
  r_field *rf = (r_field *)ctx;
  int d = rf->dim;
  SEXP m = PROTECT(Rf_allocMatrix(REALSXP, (int)n_points, d));
  double *mx = REAL(m);
  for (size_t p = 0; p < n_points; p++)
    for (int i = 0; i < d; i++) mx[p + i * n_points] = x[p * d + i];
  SEXP call = PROTECT(Rf_lang3(rf->fn, m, Rf_ScalarReal(t)));
  int failed = 0;
  SEXP out = R_tryEval(call, R_GlobalEnv, &failed);
  /* the wrapper turns R errors into strings, so what escapes it is an interrupt */
  if (failed) {
    UNPROTECT(2);
    return gs_set_msg(msg, GS_ERR_INTERRUPTED, "the model function was interrupted");
  }
  PROTECT(out);
  if (TYPEOF(out) == STRSXP) {
    gs_status st = gs_set_msg(msg, GS_ERR_ARG, "%s", Rf_length(out) > 0 ? CHAR(STRING_ELT(out, 0)) : "model error");
    UNPROTECT(3);
    return st;
  }
  if (TYPEOF(out) != REALSXP || (size_t)XLENGTH(out) != n_points * d) {
    gs_status st =
      gs_set_msg(msg, GS_ERR_ARG, "the model function must return a %d x %d numeric matrix", (int)n_points, d);
    UNPROTECT(3);
    return st;
  }
  const double *fo = REAL(out);
  for (size_t p = 0; p < n_points; p++)
    for (int i = 0; i < d; i++) f[p * d + i] = fo[p + i * n_points];
  UNPROTECT(3);
  return GS_OK;
}

/* model: list(kind, dim, par, autonomous, fn, source, compiled) (validated
 * in R; the source, the field's code or NULL, stays alive in that list while
 * the core reads it; compiled: NULL or the native symbols of the field
 * compiled for the CPU, named gbees_user_velocities and gbees_user_rk4, whose
 * library R keeps loaded). Returns a
 * protected external pointer that owns the callback context of a user
 * model and keeps its function alive; the caller unprotects it. */
static SEXP model_from_r(SEXP model, gs_gbees_model *mod)
{
  const char *what = "the GBEES model";
  memset(mod, 0, sizeof *mod);
  mod->kind = Rf_asInteger(gs_r_field(model, "kind", what));
  mod->dim = Rf_asInteger(gs_r_field(model, "dim", what));
  SEXP par = gs_r_field(model, "par", what);
  for (int i = 0; i < Rf_length(par) && i < 4; i++) mod->par[i] = REAL(par)[i];
  mod->autonomous = Rf_asLogical(gs_r_field(model, "autonomous", what));
  if (mod->dim < 1 || mod->dim > GS_GBEES_MAX_DIM) Rf_error("GBEES needs 1 to %d dimensions", GS_GBEES_MAX_DIM);
  SEXP fn = gs_r_field(model, "fn", what);
  SEXP ctx_ptr = PROTECT(R_MakeExternalPtr(NULL, R_NilValue, fn));
  R_RegisterCFinalizerEx(ctx_ptr, field_context_finalize, TRUE);
  if (mod->kind == GS_GBEES_CALLBACK) {
    SEXP source = gs_r_field(model, "source", what), compiled = gs_r_field(model, "compiled", what);
    if (TYPEOF(source) == STRSXP && Rf_length(source) == 1) mod->device_source = CHAR(STRING_ELT(source, 0));
    if (compiled != R_NilValue) {
      const char *entries = "the compiled model";
      /* through void (*)(void), the type that converts to any function type without a warning */
      mod->velocities = (gs_gbees_velocities_fn)(void (*)(void))R_ExternalPtrAddrFn(
        gs_r_field(compiled, "gbees_user_velocities", entries));
      mod->rk4 = (gs_gbees_rk4_fn)(void (*)(void))R_ExternalPtrAddrFn(gs_r_field(compiled, "gbees_user_rk4", entries));
    }
  }
  if (Rf_isFunction(fn)) {
    r_field *rf = (r_field *)malloc(sizeof *rf);
    if (!rf) Rf_error("out of memory");
    rf->fn = fn;
    rf->dim = mod->dim;
    R_SetExternalPtrAddr(ctx_ptr, rf);
    mod->field = field_from_r;
    mod->ctx = rf;
  }
  return ctx_ptr;
}

/* grid: list(center, dx, prec, half_width, threshold, cfl, prune_every, t0)
 * (validated in R). */
SEXP gs_r_gbees_new(SEXP model, SEXP grid, SEXP threads, SEXP device, SEXP progress)
{
  gs_r_progress_set(progress);
  gs_gbees_model mod;
  SEXP ctx_ptr = model_from_r(model, &mod);
  const char *what = "the GBEES grid";
  const double *center = REAL(gs_r_field(grid, "center", what)), *dx = REAL(gs_r_field(grid, "dx", what));
  gs_gbees_options opt = {.threshold = Rf_asReal(gs_r_field(grid, "threshold", what)),
                          .cfl = Rf_asReal(gs_r_field(grid, "cfl", what)),
                          .prune_every = Rf_asInteger(gs_r_field(grid, "prune_every", what)),
                          .threads = gs_r_int(threads, "threads"),
                          .device = gs_r_int(device, "device"),
                          .progress = gs_r_progress};
  for (int i = 0; i < mod.dim; i++) {
    opt.center[i] = center[i];
    opt.dx[i] = dx[i];
  }

  char msg[GS_MSG_LEN];
  gs_gbees *g = NULL;
  gs_status st = gs_gbees_create(&mod, &opt, REAL(gs_r_field(grid, "prec", what)),
                                 INTEGER(gs_r_field(grid, "half_width", what)), Rf_asReal(gs_r_field(grid, "t0", what)),
                                 &g, msg);
  if (st != GS_OK) gs_r_stop(st, msg);
  SEXP ptr = PROTECT(R_MakeExternalPtr(g, Rf_install("gs_gbees"), ctx_ptr));
  R_RegisterCFinalizerEx(ptr, gbees_finalize, TRUE);
  UNPROTECT(2);
  return ptr;
}

SEXP gs_r_gbees_propagate(SEXP ptr, SEXP t_end, SEXP progress)
{
  gs_gbees *g = gbees_get(ptr);
  gs_r_progress_set(progress);
  char msg[GS_MSG_LEN];
  gs_status st = gs_gbees_propagate(g, Rf_asReal(t_end), msg);
  if (st != GS_OK) gs_r_stop(st, msg);
  return R_NilValue;
}

SEXP gs_r_gbees_reweight(SEXP ptr, SEXP loglik)
{
  gs_gbees *g = gbees_get(ptr);
  if (TYPEOF(loglik) != REALSXP || (size_t)XLENGTH(loglik) != gs_gbees_cell_count(g))
    Rf_error("one double log-likelihood per cell is needed");
  char msg[GS_MSG_LEN];
  gs_status st = gs_gbees_reweight(g, REAL(loglik), msg);
  if (st != GS_OK) gs_r_stop(st, msg);
  return R_NilValue;
}

static void measurement_finalize(SEXP ptr)
{
  gs_gbees_measurement *h = (gs_gbees_measurement *)R_ExternalPtrAddr(ptr);
  if (h) {
    gs_gbees_measurement_free(h);
    R_ClearExternalPtr(ptr);
  }
}

/* A Gaussian measurement prepared for the grids of `device` with `dim`
 * states (validated in R): the states `index` (1-based) or NULL; the lower
 * Cholesky factor L of the noise covariance; a user's function as source
 * text (for a GPU) and as the native symbol of gbees_user_loglik (for the
 * CPU, its library kept loaded by R), or NULL. */
SEXP gs_r_gbees_measurement_new(SEXP index, SEXP L, SEXP source, SEXP compiled, SEXP dim, SEXP device)
{
  int m = Rf_nrows(L);
  if (TYPEOF(L) != REALSXP || !Rf_isMatrix(L) || Rf_ncols(L) != m || m > GS_GBEES_MAX_DIM ||
      (index != R_NilValue && (TYPEOF(index) != INTSXP || Rf_length(index) != m)))
    Rf_error("a measurement needs an m x m double factor and NULL or m integer indices, m <= %d", GS_GBEES_MAX_DIM);
  int zero_based[GS_GBEES_MAX_DIM];
  for (int j = 0; index != R_NilValue && j < m; j++) zero_based[j] = INTEGER(index)[j] - 1;
  gs_gbees_measurement_spec spec = {
    .dim = gs_r_int(dim, "dim"),
    .m = m,
    .index = index == R_NilValue ? NULL : zero_based,
    .L = REAL(L),
    .device_source = TYPEOF(source) == STRSXP && Rf_length(source) == 1 ? CHAR(STRING_ELT(source, 0)) : NULL,
    /* through void (*)(void), the type that converts to any function type without a warning */
    .loglik = TYPEOF(compiled) == EXTPTRSXP ? (gs_gbees_loglik_fn)(void (*)(void))R_ExternalPtrAddrFn(compiled) : NULL,
    .device = gs_r_int(device, "device"),
  };
  char msg[GS_MSG_LEN];
  gs_gbees_measurement *h = NULL;
  gs_status st = gs_gbees_measurement_create(&spec, &h, msg);
  if (st != GS_OK) gs_r_stop(st, msg);
  /* the protected field keeps the compiled symbol (and its library) referenced */
  SEXP ptr = PROTECT(R_MakeExternalPtr(h, Rf_install("gs_gbees_measurement"), compiled));
  R_RegisterCFinalizerEx(ptr, measurement_finalize, TRUE);
  UNPROTECT(1);
  return ptr;
}

/* Bayes' rule on the grid for the observation y at `time` of a measurement
 * from gs_r_gbees_measurement_new. */
SEXP gs_r_gbees_measure(SEXP ptr, SEXP measurement, SEXP time, SEXP y)
{
  gs_gbees *g = gbees_get(ptr);
  gs_gbees_measurement *h = (gs_gbees_measurement *)gs_r_handle(measurement, "gs_gbees_measurement", "GBEES measurement",
                                                                "the GBEES measurement has been released");
  if (TYPEOF(y) != REALSXP) Rf_error("the observation must be doubles");
  char msg[GS_MSG_LEN];
  gs_status st = gs_gbees_measure(g, h, Rf_asReal(time), Rf_length(y), REAL(y), msg);
  if (st != GS_OK) gs_r_stop(st, msg);
  return R_NilValue;
}

/* list(keys = integer matrix cells x dim, prob) */
SEXP gs_r_gbees_cells(SEXP ptr)
{
  gs_gbees *g = gbees_get(ptr);
  size_t n = gs_gbees_cell_count(g);
  int d = gs_gbees_dim(g);
  int32_t *rowwise = (int32_t *)R_alloc(n * d + 1, sizeof(int32_t));
  const char *names[] = {"keys", "prob", ""};
  SEXP out = PROTECT(Rf_mkNamed(VECSXP, names));
  SEXP keys = gs_r_set_field(out, "keys", Rf_allocMatrix(INTSXP, (int)n, d));
  SEXP prob = gs_r_set_field(out, "prob", Rf_allocVector(REALSXP, (R_xlen_t)n));
  char msg[GS_MSG_LEN];
  gs_status st = gs_gbees_cells(g, rowwise, REAL(prob), msg);
  if (st != GS_OK) gs_r_stop(st, msg);
  int *k = INTEGER(keys);
  for (size_t c = 0; c < n; c++)
    for (int i = 0; i < d; i++) k[c + i * n] = rowwise[c * d + i];
  UNPROTECT(1);
  return out;
}

/* list(values = the counts and mass balances of gs_gbees_info, named as R
 * reads them, phase_seconds = the seconds of each phase, named as
 * GS_GBEES_PHASES) */
SEXP gs_r_gbees_info(SEXP ptr)
{
  gs_gbees_info info;
  gs_gbees_get_info(gbees_get(ptr), &info);
  const gs_r_number values[] = {
    {.name = "time", .value = info.time},
    {.name = "cells", .value = (double)info.cells},
    {.name = "peak_cells", .value = (double)info.peak_cells},
    {.name = "steps", .value = (double)info.steps},
    {.name = "cell_updates", .value = info.cell_updates},
    {.name = "memory_bytes", .value = info.memory_bytes},
    {.name = "peak_memory_bytes", .value = info.peak_memory_bytes},
    {.name = "mass_error", .value = info.mass_error},
    {.name = "clipped_mass", .value = info.clipped_mass},
    {.name = "pruned_mass", .value = info.pruned_mass},
  };
  static const char *phase_names[] = {
#define GS_GBEES_PHASE_NAME(code, name) name,
      GS_GBEES_PHASES(GS_GBEES_PHASE_NAME)
#undef GS_GBEES_PHASE_NAME
  };
  gs_r_number phases[GS_GBEES_PHASE_COUNT];
  for (int k = 0; k < GS_GBEES_PHASE_COUNT; k++)
    phases[k] = (gs_r_number){.name = phase_names[k], .value = info.phase_seconds[k]};
  const char *names[] = {"values", "phase_seconds", ""};
  SEXP out = PROTECT(Rf_mkNamed(VECSXP, names));
  gs_r_set_field(out, "values", gs_r_numbers(values, (int)(sizeof values / sizeof values[0])));
  gs_r_set_field(out, "phase_seconds", gs_r_numbers(phases, GS_GBEES_PHASE_COUNT));
  UNPROTECT(1);
  return out;
}

/* The rows of m (an integer or double matrix with d columns, column-major)
 * times the d x d matrix t (R_NilValue: as they are), as n rows of d
 * (R_alloc'ed): whitened coordinates made in one pass from a grid's integer
 * keys, where R's own products of tens of millions of rows make several
 * copies. */
static double *transformed_rows(SEXP m, SEXP t, int d, const char *what)
{
  if ((TYPEOF(m) != REALSXP && TYPEOF(m) != INTSXP) || !Rf_isMatrix(m) || Rf_ncols(m) != d)
    Rf_error("%s must be a numeric matrix with %d columns", what, d);
  if (t != R_NilValue && (TYPEOF(t) != REALSXP || !Rf_isMatrix(t) || Rf_nrows(t) != d || Rf_ncols(t) != d))
    Rf_error("the transform must be a %d x %d double matrix", d, d);
  size_t n = (size_t)Rf_nrows(m);
  double *rowwise = (double *)R_alloc(n * d + 1, sizeof(double));
  const double *pt = t == R_NilValue ? NULL : REAL(t), *real = TYPEOF(m) == REALSXP ? REAL(m) : NULL;
  const int *whole = real ? NULL : INTEGER(m);
  for (size_t p = 0; p < n; p++) {
    double x[GS_GBEES_MAX_DIM];
    for (int i = 0; i < d; i++) x[i] = real ? real[p + i * n] : (double)whole[p + i * n];
    for (int j = 0; j < d; j++) {
      double z = pt ? 0.0 : x[j];
      for (int i = 0; pt && i < d; i++) z += x[i] * pt[i + j * d];
      rowwise[p * d + j] = z;
    }
  }
  return rowwise;
}

/* Advances the states (an n x dim matrix, one per row) from t0 to t1 on the
 * CPU (device < 0) or a GPU, calling progress (an R function of the
 * fraction done, or NULL) between batches of steps. */
SEXP gs_r_gbees_monte_carlo(SEXP model, SEXP x, SEXP t0, SEXP t1, SEXP step, SEXP threads, SEXP device,
                            SEXP progress)
{
  gs_r_progress_set(progress);
  gs_gbees_model mod;
  model_from_r(model, &mod); /* protected until the UNPROTECT below: it keeps the callback alive */
  int d = mod.dim;
  size_t n = (size_t)Rf_nrows(x);
  double *rowwise = transformed_rows(x, R_NilValue, d, "the states");
  char msg[GS_MSG_LEN];
  gs_status st = gs_gbees_monte_carlo(&mod, gs_r_int(threads, "threads"), gs_r_int(device, "device"), rowwise, n,
                                      Rf_asReal(t0), Rf_asReal(t1), Rf_asReal(step), gs_r_progress, msg);
  if (st != GS_OK) gs_r_stop(st, msg);
  SEXP out = PROTECT(Rf_allocMatrix(REALSXP, (int)n, d));
  double *po = REAL(out);
  for (size_t p = 0; p < n; p++)
    for (int i = 0; i < d; i++) po[p + i * n] = rowwise[p * d + i];
  UNPROTECT(2);
  return out;
}

/* Gaussian kernel sums at the rows of eval from the rows of src, both times
 * transform (to whitened coordinates), with weights (NULL: 1) within radius. */
SEXP gs_r_gbees_kernel_sums(SEXP src, SEXP weight, SEXP eval, SEXP transform, SEXP radius, SEXP threads, SEXP device,
                            SEXP progress)
{
  gs_r_progress_set(progress);
  int d = Rf_ncols(src);
  if (d < 1 || d > GS_GBEES_MAX_DIM) Rf_error("kernel sums need 1 to %d dimensions", GS_GBEES_MAX_DIM);
  size_t n_src = (size_t)Rf_nrows(src), n_eval = (size_t)Rf_nrows(eval);
  const double *z = transformed_rows(src, transform, d, "the sources");
  const double *y = transformed_rows(eval, transform, d, "the evaluation points");
  if (weight != R_NilValue && (TYPEOF(weight) != REALSXP || (size_t)XLENGTH(weight) != n_src))
    Rf_error("one double weight per source is needed");
  SEXP out = PROTECT(Rf_allocVector(REALSXP, (R_xlen_t)n_eval));
  char msg[GS_MSG_LEN];
  gs_status st = gs_gbees_kernel_sums(d, z, weight == R_NilValue ? NULL : REAL(weight), n_src, y, n_eval,
                                      Rf_asReal(radius), gs_r_int(threads, "threads"), gs_r_int(device, "device"),
                                      gs_r_progress, REAL(out), msg);
  if (st != GS_OK) gs_r_stop(st, msg);
  UNPROTECT(1);
  return out;
}

/* The C program (gs_gbees_field_program) for the CPU of a field's source
 * (measurement FALSE) or a measurement function's (TRUE). */
SEXP gs_r_gbees_field_program(SEXP source, SEXP dim, SEXP measurement)
{
  if (TYPEOF(source) != STRSXP || Rf_length(source) != 1) Rf_error("the source must be one string");
  const char *entries = Rf_asLogical(measurement) == TRUE ? gs_gbees_measurement_entries : gs_gbees_field_entries;
  char *text = gs_gbees_field_program(CHAR(STRING_ELT(source, 0)), Rf_asInteger(dim), entries);
  if (!text) Rf_error("out of memory");
  SEXP out = PROTECT(Rf_mkString(text));
  free(text);
  UNPROTECT(1);
  return out;
}
