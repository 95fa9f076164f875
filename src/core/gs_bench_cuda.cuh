/* Helpers of the device-side benchmarks: a counter-based uniform generator
 * and the event-timed repetition loop. */
#ifndef GS_BENCH_CUDA_CUH
#define GS_BENCH_CUDA_CUH

#include <stdint.h>
#include <stdlib.h>

#include "gs_gpu_ctx.cuh"

/* splitmix64 of (i, seed) mapped to (0, 1): every thread draws independently. */
__host__ __device__ static inline double bench_uniform(uint64_t i, uint64_t seed)
{
  uint64_t z = i * 0x9E3779B97F4A7C15ull + seed * 0xD1B54A32D192ED03ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z ^= z >> 31;
  return ((double)(z >> 11) + 0.5) * 0x1p-53;
}

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
