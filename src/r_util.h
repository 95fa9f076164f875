/* Helpers shared by the R glue files. */
#ifndef GS_R_UTIL_H
#define GS_R_UTIL_H

#include <R.h>
#include <Rinternals.h>

#include "gs_common.h"
#include "gs_gp.h"

/* Progress callback for the core: reports to the R function set by
 * gs_r_progress_set (a cli progress bar, or NULL for none) and checks for a
 * user interrupt; never longjmps out of the core. */
int gs_r_progress(double done);
/* The R function of one argument (fraction done) that gs_r_progress calls
 * during the current .Call, or R_NilValue. */
void gs_r_progress_set(SEXP fn);
/* Raises the R error for a failed core call: a condition of class
 * gpustats_status with the status code, which the R side (gs_call) turns
 * into the classed condition of the status's kind. */
void gs_r_stop(gs_status status, const char *msg);
/* The object an external pointer owns; an R error when ptr is not an
 * external pointer or its object has been released. `what` names it. */
void *gs_r_handle(SEXP ptr, const char *what);
/* An integer argument (device id, thread count, size) from R. */
int gs_r_int(SEXP x, const char *what);

/* The covariance parameters c(sigma2, range, smoothness, nugget) of the R side. */
gs_matern_params gs_r_matern_params(SEXP params);

#endif
