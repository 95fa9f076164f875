#include <R_ext/Utils.h>

#include "r_util.h"

/* Set at the start of every .Call that takes a callback; only read during it,
 * while the caller keeps the function protected. */
static SEXP progress_fn = NULL;
static double progress_done;

void gs_r_progress_set(SEXP fn) { progress_fn = (fn == R_NilValue) ? NULL : fn; }

static void progress_report(void *unused)
{
  (void)unused;
  if (progress_fn) {
    SEXP call = PROTECT(Rf_lang2(progress_fn, Rf_ScalarReal(progress_done)));
    Rf_eval(call, R_GlobalEnv);
    UNPROTECT(1);
  }
  R_CheckUserInterrupt();
}

int gs_r_progress(double done)
{
  progress_done = done;
  return !R_ToplevelExec(progress_report, NULL);
}

void gs_r_stop(gs_status status, const char *msg) { Rf_error("gpustats[%d] %s", (int)status, msg); }

void *gs_r_handle(SEXP ptr, const char *what)
{
  if (TYPEOF(ptr) != EXTPTRSXP) Rf_error("not a %s", what);
  void *p = R_ExternalPtrAddr(ptr);
  if (!p) Rf_error("the %s has been released", what);
  return p;
}

int gs_r_int(SEXP x, const char *what)
{
  if (Rf_length(x) != 1) Rf_error("%s must be a single number", what);
  int v = Rf_asInteger(x);
  if (v == NA_INTEGER) Rf_error("%s must not be NA", what);
  return v;
}
