/* The map operations' GPU entry points in a build without CUDA. */
#include "gs_gpu.h"
#include "gs_map.h"
#include "gs_bench.h"

gs_status gs_map_gpu(int device, const gs_map_args *a, gs_progress_fn progress, char *msg)
{
  (void)device, (void)a, (void)progress;
  return gs_gpu_missing(msg);
}

gs_status gs_bench_map_gpu(int device, int op, size_t n, int reps, double *seconds, char *msg)
{
  (void)device, (void)op, (void)n, (void)reps, (void)seconds;
  return gs_gpu_missing(msg);
}
