/* Helpers shared by the R glue files. */
#ifndef GS_R_UTIL_H
#define GS_R_UTIL_H

#include <R.h>
#include <Rinternals.h>

#include "gs_common.h"
#include "gs_matern.h"

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
/* The object an external pointer owns. An R error (GS_ERR_ARG) when ptr is
 * not an external pointer tagged `tag` (gs_r_new_handle: another object's
 * pointer put in its place would be read as this kind), naming it `what`;
 * or when its object is gone (released, or the object was saved and read
 * back, which keeps a pointer to nothing), saying `gone`. */
void *gs_r_handle(SEXP ptr, const char *tag, const char *what, const char *gone);
/* An external pointer (not protected) that owns p: tagged `tag`, released
 * by `finalize` at garbage collection or at R's exit. */
SEXP gs_r_new_handle(void *p, const char *tag, R_CFinalizer_t finalize);
/* A cache that R keeps in memory but does not write with saveRDS(): a
 * weak reference from `key` (an environment) to `value`, which lives as
 * long as the key does; read back from a file, its value is NULL. */
SEXP gs_r_weak_new(SEXP key, SEXP value);
/* The value of such a reference, or NULL (none, or not read back). */
SEXP gs_r_weak_value(SEXP ref);
/* Drops the value now rather than with the key. */
SEXP gs_r_weak_clear(SEXP ref);
/* An integer argument (device id, thread count, size) from R. */
int gs_r_int(SEXP x, const char *what);

/* Lists cross the boundary by name: the glue reads the element `name` of a
 * list R made with gs_r_field (an R error naming the field and `what` the
 * list is when it has none), and hands R lists made with Rf_mkNamed and
 * filled with gs_r_set_field, so that neither side depends on the order of
 * the other's elements. */
SEXP gs_r_field(SEXP list, const char *name, const char *what);
/* Sets the element `name` of a list made with Rf_mkNamed to value and
 * returns value, as SET_VECTOR_ELT does. */
SEXP gs_r_set_field(SEXP list, const char *name, SEXP value);
/* A number of a record the glue hands R (the counts and timings of a
 * core's info struct), with the name R reads it by. */
typedef struct {
  const char *name;
  double value;
} gs_r_number;
/* The n numbers as a double vector named by their names, in their order. */
SEXP gs_r_numbers(const gs_r_number *numbers, int n);

/* The covariance model of R's cov_model(): list(family, metric, params),
 * the family and metric as codes of the tables R reads at load, the
 * parameters a double vector named as in GS_COV_PARAMS (read by name). */
gs_cov_model gs_r_cov_model(SEXP model);

#endif
