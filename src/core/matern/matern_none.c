/* The Matern matrices' GPU entry points in a build without CUDA. */
#include "gs_gpu.h"
#include "gs_matern.h"
#include "gs_bench.h"

gs_status gs_matern_cov_gpu(int device, const gs_matern_cov_args *a, gs_progress_fn progress,
                            char *msg)
{
  (void)device, (void)a, (void)progress;
  return gs_gpu_missing(msg);
}

gs_status gs_bench_matern_cov_gpu(int device, size_t n, double smoothness, int reps, double *seconds,
                                  char *msg)
{
  (void)device, (void)n, (void)smoothness, (void)reps, (void)seconds;
  return gs_gpu_missing(msg);
}
