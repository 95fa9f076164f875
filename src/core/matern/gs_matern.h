/* Matérn covariance matrices between two sets of locations. */
#ifndef GS_MATERN_H
#define GS_MATERN_H

#include "gs_common.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
  const double *locs1; /* n1 x dim, column-major */
  long n1;
  const double *locs2; /* n2 x dim; NULL: locs1 against itself (symmetric) */
  long n2;
  int dim;
  int metric;          /* MATERN_EUCLIDEAN or MATERN_GREAT_CIRCLE */
  double sigma2, range, smoothness, nugget; /* nugget: diagonal of the symmetric case */
  int lower_only;      /* symmetric case: leave the strict upper triangle unwritten */
  double *out;         /* n1 x n2, column-major */
} gs_matern_cov_args;

/* The lower triangle of the n x n covariance of locs with itself (locs may
 * be NULL where a device kernel is given its locations apart), into out. */
static inline gs_matern_cov_args gs_matern_cov_self(const double *locs, long n, int dim, int metric, double sigma2,
                                                    double range, double smoothness, double nugget, double *out)
{
  const gs_matern_cov_args a = {.locs1 = locs,
                                .n1 = n,
                                .locs2 = NULL,
                                .n2 = 0,
                                .dim = dim,
                                .metric = metric,
                                .sigma2 = sigma2,
                                .range = range,
                                .smoothness = smoothness,
                                .nugget = nugget,
                                .lower_only = 1,
                                .out = out};
  return a;
}

gs_status gs_matern_cov_cpu(const gs_matern_cov_args *a, int threads, gs_progress_fn progress,
                            char *msg);
gs_status gs_matern_cov_gpu(int device, const gs_matern_cov_args *a, gs_progress_fn progress,
                            char *msg);

#ifdef __cplusplus
}
#endif

#endif
