/* Helpers shared by the R glue files. */
#ifndef GS_R_UTIL_H
#define GS_R_UTIL_H

#include <R.h>
#include <Rinternals.h>

#include "core/gs_common.h"

/* Interrupt check for the core: safe to call between batches on the main
 * thread; never longjmps out of the core. */
int gs_r_interrupted(void);
/* Raises the R error for a failed core call; the R side turns the
 * "gpustats[<status>]" prefix into a classed condition. */
void gs_r_stop(gs_status status, const char *msg);
/* An integer argument (device id, thread count, size) from R. */
int gs_r_int(SEXP x, const char *what);

#endif
