/* Helpers of the device-side benchmarks: the event-timed repetition loop
 * (random inputs come from rng_math.h). */
#ifndef GS_BENCH_CUDA_CUH
#define GS_BENCH_CUDA_CUH

#include <stdint.h>
#include <stdlib.h>

#include "gs_cpu.h"
#include "gs_gpu_ctx.cuh"
#include "rng_math.h"

/* The median of x[0..n) (sorted in place; n is small). */
static inline double bench_median(double *x, int n)
{
  for (int i = 1; i < n; ++i)
    for (int j = i; j > 0 && x[j] < x[j - 1]; --j) {
      double t = x[j];
      x[j] = x[j - 1];
      x[j - 1] = t;
    }
  return (n % 2) ? x[n / 2] : 0.5 * (x[n / 2 - 1] + x[n / 2]);
}

/* Runs launch() once to warm up, then `reps` times between CUDA events on
 * stream s; *seconds is the median. launch() returns the launch's cudaError_t. */
template <class Launch>
static gs_status bench_time(cudaStream_t s, int reps, Launch launch, double *seconds, char *msg)
{
  gs_status st = GS_OK;
  cudaEvent_t e0 = NULL, e1 = NULL;
  double *times = (double *)malloc((size_t)reps * sizeof(double));
  if (!times) return gs_set_msg(msg, GS_ERR_NOMEM, "out of host memory");
  GS_CUDA_TRY(cudaEventCreate(&e0));
  GS_CUDA_TRY(cudaEventCreate(&e1));
  GS_CUDA_TRY(launch());
  for (int r = 0; r < reps; ++r) {
    float ms = 0.0f;
    GS_CUDA_TRY(cudaEventRecord(e0, s));
    GS_CUDA_TRY(launch());
    GS_CUDA_TRY(cudaEventRecord(e1, s));
    GS_CUDA_TRY(cudaEventSynchronize(e1));
    GS_CUDA_TRY(cudaEventElapsedTime(&ms, e0, e1));
    times[r] = 1e-3 * ms;
  }
  *seconds = bench_median(times, reps);
done:
  cudaStreamSynchronize(s);
  if (e0) cudaEventDestroy(e0);
  if (e1) cudaEventDestroy(e1);
  free(times);
  return st;
}

/* For work that synchronizes with the host itself: run() (returning a
 * gs_status) once to warm up, then `reps` times on the wall clock; *seconds
 * is the median. reps <= 32. */
template <class Run>
static gs_status bench_wall_time(int reps, Run run, double *seconds, char *msg)
{
  gs_status st = GS_OK;
  double times[32];
  if (reps < 1 || reps > 32) return gs_set_msg(msg, GS_ERR_ARG, "reps must be in 1..32");
  for (int r = -1; r < reps; ++r) {
    GS_CUDA_TRY(cudaDeviceSynchronize());
    const double t0 = gs_wall_seconds();
    GS_TRY(run());
    if (r >= 0) times[r] = gs_wall_seconds() - t0;
  }
  *seconds = bench_median(times, reps);
done:
  return st;
}

#endif
