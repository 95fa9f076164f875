#include <R_ext/Utils.h>

#include "r_util.h"

static void check_interrupt(void *unused)
{
  (void)unused;
  R_CheckUserInterrupt();
}

int gs_r_interrupted(void) { return !R_ToplevelExec(check_interrupt, NULL); }

void gs_r_stop(gs_status status, const char *msg) { Rf_error("gpustats[%d] %s", (int)status, msg); }

int gs_r_int(SEXP x, const char *what)
{
  if (Rf_length(x) != 1) Rf_error("%s must be a single number", what);
  int v = Rf_asInteger(x);
  if (v == NA_INTEGER) Rf_error("%s must not be NA", what);
  return v;
}
