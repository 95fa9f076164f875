/* The Laplace object shared by laplace.c (storage, covariance) and
 * laplace_mode.c (the Newton iteration). */
#ifndef LAPLACE_INTERNAL_H
#define LAPLACE_INTERNAL_H

#include "gs_laplace.h"

/* Vectors of n the Newton iteration works in (laplace_mode.c). */
enum { LAPLACE_SQRT_W, LAPLACE_B_RHS, LAPLACE_SOLVE, LAPLACE_A_NEW, LAPLACE_F_NEW, LAPLACE_A_TRY, LAPLACE_F_TRY,
       LAPLACE_VECTORS };

struct gs_laplace {
  long n;
  int dim, threads;
  double *locs;   /* n x dim */
  double *k;      /* n x n: the covariance K, lower triangle */
  double *b;      /* n x n: B = I + W^1/2 K W^1/2, then its Cholesky factor, lower triangle */
  double *work;   /* LAPLACE_VECTORS x n */
  int has_covariance;
  int has_mode;   /* b holds B's factor and work[LAPLACE_SQRT_W] W^1/2 at a mode */
};

#endif
