/* The Laplace object shared by laplace.c (storage, covariance) and
 * laplace_mode.c (the Newton iteration), and the steps of that iteration
 * that the Vecchia-Laplace one (laplace_vecchia.c) shares. */
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

/* Observation i's density at eta (its trials 1 and its prior weight 1
 * where the data have none). */
static inline gs_glmm_point laplace_point(const gs_laplace_data *d, long i, double eta)
{
  return gs_glmm_point_eval(d->family, d->y[i], d->trials ? d->trials[i] : 1.0, d->weights ? d->weights[i] : 1.0,
                            d->param, eta);
}

/* The family, its data and the iteration's settings checked. */
gs_status gs_laplace_data_check(const gs_laplace_data *d, char *msg);

/* Sums over the observations on the package's threads: fn adds the
 * `count` (at most LAPLACE_MAX_SUMS) sums of the observations [i0, i1) into
 * sums. The observations go in chunks of a fixed size whose sums are added
 * in order, so that a value does not depend on the number of threads. */
#define LAPLACE_MAX_SUMS 2
typedef void (*laplace_chunk_fn)(const void *ctx, long i0, long i1, double *sums);
void laplace_sums(long n, int count, laplace_chunk_fn fn, const void *ctx, double *sums);

/* -a'f/2 + log p(y | f) (f = K a), and log p(y | f) in *loglik_y; -Inf
 * where a density is not finite (exp overflowed far from the mode). */
double laplace_objective(const gs_laplace_data *d, long n, const double *a, const double *f, double *loglik_y);

double laplace_max_abs(const double *x, long n);

/* The start: the pair (a, f) given, or zero where that is worse (a warm
 * start from a mode under other parameters can land far off), into (a, f);
 * zeros (n) is workspace. Returns the objective there. */
double laplace_start(const gs_laplace_data *d, long n, double *a, double *f, double *zeros, double *loglik_y);

/* From (a, f), along the Newton step to (a_new, f_new): the longest of the
 * steps 1, 1/2, 1/4, ... where the objective rises (within its rounding),
 * into (a, f), with the objective into *psi and log p(y | f) into
 * *loglik_y; a_try and f_try (n each) are workspace. Returns 0 when none
 * does. */
int laplace_halving_step(const gs_laplace_data *d, long n, double *a, double *f, const double *a_new,
                         const double *f_new, double *a_try, double *f_try, double *psi, double *loglik_y);

#endif
