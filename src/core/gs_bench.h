/* Device-side benchmarks: random data generated on the GPU, kernels timed
 * with CUDA events after a warm-up; *seconds is the median of `reps` runs. */
#ifndef GS_BENCH_H
#define GS_BENCH_H

#include "gs_common.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A Bessel op (map_ops.h) on n random (x, nu): nu uniform in (0, 20],
 * x log-uniform in [1e-3, 140]. */
gs_status gs_bench_map_gpu(int device, int op, size_t n, int reps, double *seconds, char *msg);
/* The n x n Matérn covariance of n random points in the unit square,
 * range 0.1, generated into device memory. */
gs_status gs_bench_matern_cov_gpu(int device, size_t n, double smoothness, int reps, double *seconds,
                                  char *msg);

/* One Gaussian log-likelihood at n random points in the unit square:
 * seconds[0] covariance generation, [1] Cholesky factorisation, [2] the
 * triangular solve, each the median of `reps` timed runs. */
gs_status gs_bench_gp_loglik_gpu(int device, long n, double range, double smoothness, int reps, double seconds[3],
                                 char *msg);

#ifdef __cplusplus
}
#endif

#endif
