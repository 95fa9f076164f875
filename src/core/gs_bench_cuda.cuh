/* Helpers of the device-side benchmarks: the event-timed repetition loop
 * (random inputs come from rng_math.h). */
#ifndef GS_BENCH_CUDA_CUH
#define GS_BENCH_CUDA_CUH

#include <stdint.h>
#include <stdlib.h>

#include "gs_gpu_ctx.cuh"
#include "rng_math.h"

/* Runs launch() once to warm up, then `reps` times between CUDA events on
 * stream s; *seconds is the median. launch() returns the launch's cudaError_t. */
template <class Launch>
static gs_status bench_time(cudaStream_t s, int reps, Launch launch, double *seconds, char *msg)
{
  gs_status st = GS_OK;
  cudaEvent_t e0 = NULL, e1 = NULL;
  float *times = (float *)malloc((size_t)reps * sizeof(float));
  if (!times) return gs_set_msg(msg, GS_ERR_NOMEM, "out of host memory");
  GS_CUDA_TRY(cudaEventCreate(&e0));
  GS_CUDA_TRY(cudaEventCreate(&e1));
  GS_CUDA_TRY(launch());
  for (int r = 0; r < reps; ++r) {
    GS_CUDA_TRY(cudaEventRecord(e0, s));
    GS_CUDA_TRY(launch());
    GS_CUDA_TRY(cudaEventRecord(e1, s));
    GS_CUDA_TRY(cudaEventSynchronize(e1));
    GS_CUDA_TRY(cudaEventElapsedTime(&times[r], e0, e1));
  }
  for (int i = 1; i < reps; ++i) /* insertion sort: reps is small */
    for (int j = i; j > 0 && times[j] < times[j - 1]; --j) {
      float t = times[j];
      times[j] = times[j - 1];
      times[j - 1] = t;
    }
  *seconds = 1e-3 * (reps % 2 ? times[reps / 2] : 0.5 * (times[reps / 2 - 1] + times[reps / 2]));
done:
  cudaStreamSynchronize(s);
  if (e0) cudaEventDestroy(e0);
  if (e1) cudaEventDestroy(e1);
  free(times);
  return st;
}

#endif
