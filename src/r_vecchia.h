/* The Vecchia object behind an external pointer, for the R glue of the
 * methods built on it (r_glmm.c's Vecchia-Laplace). */
#ifndef R_VECCHIA_H
#define R_VECCHIA_H

#include "gs_vecchia.h"
#include "r_util.h"

/* The object, or an R error where ptr holds none or it has been released. */
gs_vecchia *gs_r_vecchia_get(SEXP ptr);

#endif
