/* Device-side benchmarks: random data generated on the GPU, kernels timed
 * with CUDA events after a warm-up; *seconds is the median of `reps` runs. */
#ifndef GS_BENCH_H
#define GS_BENCH_H

#include "gs_common.h"
#include "gs_matern.h"

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

/* Cholesky of the Matérn covariance (range 0.1, smoothness 0.5, nugget 0.01)
 * of n random points in the unit square. out: [0] cuSOLVER Xpotrf with the
 * generation of the matrix in device memory, [1] the generation alone, [2]
 * the tile Cholesky with tile size nb and L kept in device memory, [3] the
 * same with L stored to host memory, in seconds, medians of `reps` runs
 * ([0..2] NaN unless cache_tiles = 0; cache_tiles > 0 caps the device's tile
 * slots, < 0 runs only [3] with the slots the device holds); then, of the
 * last run of [3], [4] bytes to the device, [5] to the host, [6] tile slots,
 * [7] tiles loaded or generated; [8] one 8192 x 8192 DGEMM in seconds, the
 * rate a factorization can approach (NaN unless cache_tiles = 0 and
 * n >= 24576). On the GPUs gpus[0..ngpus-1]: with more than one, only [3],
 * the tile rows dealt cyclically to them, and [4..7] summed over them. */
gs_status gs_bench_tile_chol_gpu(const int *gpus, int ngpus, long n, int nb, int cache_tiles, int reps, double out[9],
                                  char *msg);

/* Mixed precision (FP8 tiles allowed with fp8) against FP64 on the model's
 * covariance of the n x dim locations locs (which the caller orders):
 * gs_tile_chol's time, the precision map, the generation and any rerun with
 * promoted tiles included, the factor stored to host memory allocated once.
 * out: [0] FP64 seconds, [1] mixed seconds (medians of `reps` runs), [2]
 * seconds of the precision map alone (the pass over the tiles' norms),
 * [3..6] tiles in FP64, FP32, FP16 and FP8 (of the last run), [7] and [8]
 * the log-determinants in FP64 and mixed precision, [9] the runs of the
 * mixed factorization (info.attempts). */
gs_status gs_bench_tile_chol_mixed_gpu(int device, const double *locs, long n, int dim, const gs_cov_model *model,
                                       int nb, double accuracy, int fp8, int reps, double out[10], char *msg);

/* Batched tridiagonal solves of `count` random diagonally dominant systems
 * of order n, one matrix per system (sub- and super-diagonal uniform in
 * (-1, 1), diagonal in (2.5, 4), right-hand side in (-1, 1)), generated in
 * device memory. out: seconds per operation, medians of `reps` timed runs
 * of 10 operations each: [0] cudaMemcpy device to device of the systems'
 * bytes (three diagonals and the right-hand side, 32 n count bytes), [1]
 * the package's solver (gs_tridiag_solve_gpu's kernel), [2]
 * cusparseDgtsv2StridedBatch; [3] the largest difference between the two
 * solvers' solutions relative to the package's largest entry; [4] the
 * systems' bytes. */
gs_status gs_bench_tridiag_gpu(int device, long n, long count, int reps, double out[5], char *msg);

/* Spherical-harmonic synthesis and analysis of one field on the Gauss grid
 * of degree lmax (lmax + 1 x 2 lmax + 2 points), random coefficients. out:
 * seconds, medians of `reps`: [0] synthesis and [1] analysis with the data
 * on the device (cuFFT and the Legendre sums), [2] and [3] the host copies
 * of sht_synthesis() and sht_analysis() (coefficients up and values down,
 * values up and coefficients down); [4] the round trip's relative L2
 * error. */
gs_status gs_bench_sht_gpu(int device, int lmax, int reps, double out[5], char *msg);

#ifdef __cplusplus
}
#endif

#endif
