/* Helpers shared by the R glue files, and the routines through which R reads
 * the runtime policy of the core: threads, host memory. */
#include <R_ext/Utils.h>
#include <stdio.h>
#include <string.h>

#include "gs_cpu.h"
#include "r_util.h"

/* Set at the start of every .Call that takes a callback; only read during it,
 * while the caller keeps the function protected. */
static SEXP progress_fn = NULL;
static double progress_done;

void gs_r_progress_set(SEXP fn) { progress_fn = (fn == R_NilValue) ? NULL : fn; }

/* The callback runs with interrupts suspended: an interrupt that arrived in
 * the middle of its R code (a cli progress bar half drawn) would leave the
 * bar in a state that its on.exit() handler then fails on. The interrupt
 * waits until the callback is done and is taken by R_CheckUserInterrupt. */
static void progress_report(void *unused)
{
  (void)unused;
  if (progress_fn) {
    SEXP update = PROTECT(Rf_lang2(progress_fn, Rf_ScalarReal(progress_done)));
    SEXP call = PROTECT(Rf_lang2(Rf_install("suspendInterrupts"), update));
    Rf_eval(call, R_BaseEnv);
    UNPROTECT(2);
  }
  R_CheckUserInterrupt();
}

int gs_r_progress(double done)
{
  progress_done = done;
  return !R_ToplevelExec(progress_report, NULL);
}

/* An error condition of class gpustats_status carrying the status code; R's
 * gs_call() turns it into the condition of the status's kind. */
void gs_r_stop(gs_status status, const char *msg)
{
  const char *names[] = {"message", "call", "status", ""};
  SEXP cond = PROTECT(Rf_mkNamed(VECSXP, names));
  gs_r_set_field(cond, "message", Rf_mkString(msg));
  gs_r_set_field(cond, "status", Rf_ScalarInteger((int)status));
  SEXP cls = PROTECT(Rf_allocVector(STRSXP, 3));
  SET_STRING_ELT(cls, 0, Rf_mkChar("gpustats_status"));
  SET_STRING_ELT(cls, 1, Rf_mkChar("error"));
  SET_STRING_ELT(cls, 2, Rf_mkChar("condition"));
  Rf_setAttrib(cond, R_ClassSymbol, cls);
  SEXP call = PROTECT(Rf_lang2(Rf_install("stop"), cond));
  Rf_eval(call, R_BaseEnv);
  UNPROTECT(3); /* not reached: stop() does not return */
}

void *gs_r_handle(SEXP ptr, const char *tag, const char *what, const char *gone)
{
  char msg[GS_MSG_LEN];
  if (TYPEOF(ptr) != EXTPTRSXP || R_ExternalPtrTag(ptr) != Rf_install(tag)) {
    snprintf(msg, sizeof msg, "not a %s: another object is in its place", what);
    gs_r_stop(GS_ERR_ARG, msg);
  }
  void *p = R_ExternalPtrAddr(ptr);
  if (!p) gs_r_stop(GS_ERR_ARG, gone);
  return p;
}

SEXP gs_r_new_handle(void *p, const char *tag, R_CFinalizer_t finalize)
{
  SEXP ptr = PROTECT(R_MakeExternalPtr(p, Rf_install(tag), R_NilValue));
  R_RegisterCFinalizerEx(ptr, finalize, TRUE);
  UNPROTECT(1);
  return ptr;
}

SEXP gs_r_weak_new(SEXP key, SEXP value)
{
  if (TYPEOF(key) != ENVSXP) Rf_error("the key of a weak reference must be an environment");
  return R_MakeWeakRef(key, value, R_NilValue, FALSE);
}

SEXP gs_r_weak_value(SEXP ref) { return TYPEOF(ref) == WEAKREFSXP ? R_WeakRefValue(ref) : R_NilValue; }

SEXP gs_r_weak_clear(SEXP ref)
{
  if (TYPEOF(ref) == WEAKREFSXP) R_RunWeakRefFinalizer(ref); /* no finalizer: clears key and value */
  return R_NilValue;
}

int gs_r_int(SEXP x, const char *what)
{
  if (Rf_length(x) != 1) Rf_error("%s must be a single number", what);
  int v = Rf_asInteger(x);
  if (v == NA_INTEGER) Rf_error("%s must not be NA", what);
  return v;
}

/* Raises the condition of `status` with message `msg`, as a failed core call
 * would: the path by which every core status reaches R. */
SEXP gs_r_status_raise(SEXP status, SEXP msg)
{
  const int s = gs_r_int(status, "status");
  if (s < 0 || s >= GS_STATUS_COUNT) Rf_error("unknown status %d", s);
  if (!Rf_isString(msg) || Rf_length(msg) != 1) Rf_error("msg must be a single string");
  gs_r_stop((gs_status)s, CHAR(STRING_ELT(msg, 0)));
  return R_NilValue;
}

/* Records the gpustats.threads option (validated by R) in the core and
 * returns the threads a call may use with it. */
SEXP gs_r_cpu_threads(SEXP threads)
{
  const int requested = gs_r_int(threads, "threads");
  gs_cpu_set_request(requested);
  return Rf_ScalarInteger(gs_cpu_threads(requested));
}

/* Refuses (a memory condition) `bytes` of host memory for `what` when they
 * exceed the memory available now. */
SEXP gs_r_host_memory_check(SEXP bytes, SEXP what)
{
  if (!Rf_isString(what) || Rf_length(what) != 1) Rf_error("what must be a single string");
  char msg[GS_MSG_LEN];
  gs_status st = gs_host_memory_check(Rf_asReal(bytes), CHAR(STRING_ELT(what, 0)), msg);
  if (st != GS_OK) gs_r_stop(st, msg);
  return R_NilValue;
}

/* The position of `name` among the names of x (a vector or list), or an R
 * error that says what x is. */
static R_xlen_t named_index(SEXP x, const char *name, const char *what)
{
  SEXP names = Rf_getAttrib(x, R_NamesSymbol);
  for (R_xlen_t k = 0; k < XLENGTH(x) && names != R_NilValue; ++k)
    if (strcmp(CHAR(STRING_ELT(names, k)), name) == 0) return k;
  Rf_error("no element '%s' in %s", name, what);
  return -1; /* not reached */
}

SEXP gs_r_field(SEXP list, const char *name, const char *what)
{
  if (TYPEOF(list) != VECSXP) Rf_error("%s must be a list", what);
  return VECTOR_ELT(list, named_index(list, name, what));
}

SEXP gs_r_set_field(SEXP list, const char *name, SEXP value)
{
  return SET_VECTOR_ELT(list, named_index(list, name, "a list made for R"), value);
}

SEXP gs_r_numbers(const gs_r_number *numbers, int n)
{
  SEXP out = PROTECT(Rf_allocVector(REALSXP, n));
  SEXP names = PROTECT(Rf_allocVector(STRSXP, n));
  for (int k = 0; k < n; ++k) {
    REAL(out)[k] = numbers[k].value;
    SET_STRING_ELT(names, k, Rf_mkChar(numbers[k].name));
  }
  Rf_setAttrib(out, R_NamesSymbol, names);
  UNPROTECT(2);
  return out;
}

gs_cov_model gs_r_cov_model(SEXP model)
{
  const char *what = "the covariance model";
  SEXP params = gs_r_field(model, "params", what);
  if (TYPEOF(params) != REALSXP || XLENGTH(params) != GS_COV_NPAR)
    Rf_error("the covariance parameters must be %d doubles", GS_COV_NPAR);
  gs_cov_model m = {.family = gs_r_int(gs_r_field(model, "family", what), "family"),
                    .metric = gs_r_int(gs_r_field(model, "metric", what), "metric"),
                    .par = {0}};
#define COV_PARAM_NAME(code, name) name,
  static const char *const names[] = {GS_COV_PARAMS(COV_PARAM_NAME)};
#undef COV_PARAM_NAME
  for (int k = 0; k < GS_COV_NPAR; ++k)
    m.par[k] = REAL(params)[named_index(params, names[k], "the covariance parameters")];
  return m;
}
