/* The batched tridiagonal solve's benchmark (gs_bench_tridiag_gpu): in one
 * call, on the same random systems in device memory, the device-to-device
 * copy of the systems' bytes (the bandwidth a solve that reads and writes
 * each byte once could reach), the package's solver and cuSPARSE's
 * gtsv2StridedBatch, each timed with CUDA events, and the difference of the
 * two solutions. */
#include <math.h>
#include <stdlib.h>

#include <cusparse.h>

#include "gs_bench.h"
#include "gs_bench_cuda.cuh"
#include "poly_cuda.cuh"

/* System j of order n at offset j n of each array: sub- and super-diagonal
 * uniform in (-1, 1) (dl[0] = du[n - 1] = 0, as cuSPARSE requires),
 * diagonal in (2.5, 4) (diagonally dominant), right-hand side in (-1, 1). */
__global__ void tri_bench_fill(long n, long total, double *dl, double *d, double *du, double *b)
{
  for (long t = (long)blockIdx.x * blockDim.x + threadIdx.x; t < total; t += (long)gridDim.x * blockDim.x) {
    const long i = t % n;
    dl[t] = i > 0 ? 2.0 * rng_uniform(31, (uint64_t)t) - 1.0 : 0.0;
    du[t] = i + 1 < n ? 2.0 * rng_uniform(32, (uint64_t)t) - 1.0 : 0.0;
    d[t] = 2.5 + 1.5 * rng_uniform(33, (uint64_t)t);
    b[t] = 2.0 * rng_uniform(34, (uint64_t)t) - 1.0;
  }
}

static cudaError_t cusparse_error(cusparseStatus_t s)
{
  return s == CUSPARSE_STATUS_SUCCESS ? cudaSuccess
         : s == CUSPARSE_STATUS_ALLOC_FAILED ? cudaErrorMemoryAllocation
                                              : cudaErrorUnknown;
}

/* The largest |x - y| relative to the largest |y| (host copies). */
static double max_rel_diff(const double *x, const double *y, size_t len)
{
  double diff = 0.0, scale = 0.0;
  for (size_t i = 0; i < len; ++i) {
    diff = fmax(diff, fabs(x[i] - y[i]));
    scale = fmax(scale, fabs(y[i]));
  }
  return diff / scale;
}

/* out[3]: both solvers once more on fresh right-hand sides, compared. */
static gs_status tri_bench_compare(cusparseHandle_t sp, long n, long count, const double *sys, double *x, double *y,
                                   long *bad, void *buffer, cudaStream_t s, double *out, char *msg)
{
  gs_status st = GS_OK;
  const size_t len = (size_t)n * count, bytes = len * sizeof(double);
  const double *dl = sys, *d = sys + len, *du = sys + 2 * len, *b = sys + 3 * len;
  double *hx = (double *)malloc(bytes), *hy = (double *)malloc(bytes);
  if (!hx || !hy) {
    st = gs_set_msg(msg, GS_ERR_NOMEM, "out of host memory");
    goto done;
  }
  GS_TRY(poly_tridiag_launch(n, count, n, dl, d, du, b, x, bad, s, msg));
  GS_CUDA_TRY(cudaMemcpyAsync(y, b, bytes, cudaMemcpyDeviceToDevice, s));
  GS_CUDA_TRY(cusparse_error(cusparseDgtsv2StridedBatch(sp, (int)n, dl, d, du, y, (int)count, (int)n, buffer)));
  GS_CUDA_TRY(cudaMemcpyAsync(hx, x, bytes, cudaMemcpyDeviceToHost, s));
  GS_CUDA_TRY(cudaMemcpyAsync(hy, y, bytes, cudaMemcpyDeviceToHost, s));
  GS_CUDA_TRY(cudaStreamSynchronize(s));
  out[3] = max_rel_diff(hy, hx, len);
done:
  free(hx);
  free(hy);
  return st;
}

/* Launches per timed repeat: the host's launch overhead overlaps the work
 * queued before, so that the events time the device. */
#define TRI_BENCH_INNER 10

/* The three timings of the same systems, per solve: copy, package,
 * cuSPARSE (in place, each solve taking the previous solution as its
 * right-hand side). */
static gs_status tri_bench_time(cusparseHandle_t sp, long n, long count, int reps, double *sys, double *copy, double *x,
                                double *y, long *bad, void *buffer, cudaStream_t s, double *out, char *msg)
{
  gs_status st = GS_OK;
  const size_t len = (size_t)n * count;
  const double *dl = sys, *d = sys + len, *du = sys + 2 * len, *b = sys + 3 * len;
  GS_TRY(bench_time(s, reps, [&] {
    cudaError_t e = cudaSuccess;
    for (int i = 0; i < TRI_BENCH_INNER && e == cudaSuccess; ++i)
      e = cudaMemcpyAsync(copy, sys, 4 * len * sizeof(double), cudaMemcpyDeviceToDevice, s);
    return e;
  }, &out[0], msg));
  GS_TRY(bench_time(s, reps, [&] {
    gs_status r = GS_OK;
    for (int i = 0; i < TRI_BENCH_INNER && r == GS_OK; ++i) r = poly_tridiag_launch(n, count, n, dl, d, du, b, x, bad, s, msg);
    return r == GS_OK ? cudaSuccess : cudaErrorUnknown;
  }, &out[1], msg));
  GS_CUDA_TRY(cudaMemcpyAsync(y, b, len * sizeof(double), cudaMemcpyDeviceToDevice, s));
  GS_TRY(bench_time(s, reps, [&] {
    cudaError_t e = cudaSuccess;
    for (int i = 0; i < TRI_BENCH_INNER && e == cudaSuccess; ++i)
      e = cusparse_error(cusparseDgtsv2StridedBatch(sp, (int)n, dl, d, du, y, (int)count, (int)n, buffer));
    return e;
  }, &out[2], msg));
  for (int k = 0; k < 3; ++k) out[k] /= TRI_BENCH_INNER;
done:
  return st;
}

extern "C" gs_status gs_bench_tridiag_gpu(int device, long n, long count, int reps, double out[5], char *msg)
{
  gs_status st = GS_OK;
  gs_gpu_ctx *c = NULL;
  cusparseHandle_t sp = NULL;
  double *sys = NULL, *copy = NULL, *x = NULL, *y = NULL;
  long *bad = NULL;
  void *buffer = NULL;
  size_t buffer_bytes = 0;
  const size_t len = (size_t)n * count;
  if (n < 2 || count < 1 || reps < 1 || len > 2147483647UL)
    return gs_set_msg(msg, GS_ERR_ARG, "the tridiagonal benchmark needs n >= 2, count >= 1, reps >= 1 and n count < 2^31");
  GS_TRY(gs_gpu_ctx_get(device, &c, msg));
  gs_gpu_ctx_workspace_release(c);
  {
    cudaStream_t s = c->stream[0];
    GS_CUDA_TRY(cudaMalloc(&sys, 4 * len * sizeof(double)));
    GS_CUDA_TRY(cudaMalloc(&copy, 4 * len * sizeof(double)));
    GS_CUDA_TRY(cudaMalloc(&x, len * sizeof(double)));
    GS_CUDA_TRY(cudaMalloc(&y, len * sizeof(double)));
    GS_CUDA_TRY(cudaMalloc(&bad, sizeof(long)));
    GS_CUDA_TRY(cudaMemsetAsync(bad, 0x7f, sizeof(long), s)); /* no system failed */
    tri_bench_fill<<<4096, 256, 0, s>>>(n, (long)len, sys, sys + len, sys + 2 * len, sys + 3 * len);
    GS_CUDA_TRY(cudaGetLastError());
    GS_CUDA_TRY(cusparse_error(cusparseCreate(&sp)));
    GS_CUDA_TRY(cusparse_error(cusparseSetStream(sp, s)));
    GS_CUDA_TRY(cusparse_error(cusparseDgtsv2StridedBatch_bufferSizeExt(
        sp, (int)n, sys, sys + len, sys + 2 * len, sys + 3 * len, (int)count, (int)n, &buffer_bytes)));
    GS_CUDA_TRY(cudaMalloc(&buffer, buffer_bytes > 0 ? buffer_bytes : 1));
    GS_TRY(tri_bench_time(sp, n, count, reps, sys, copy, x, y, bad, buffer, s, out, msg));
    GS_TRY(tri_bench_compare(sp, n, count, sys, x, y, bad, buffer, s, out, msg));
    out[4] = 4.0 * (double)len * sizeof(double);
  }
done:
  if (c) cudaStreamSynchronize(c->stream[0]);
  if (sp) cusparseDestroy(sp);
  cudaFree(sys);
  cudaFree(copy);
  cudaFree(x);
  cudaFree(y);
  cudaFree(bad);
  cudaFree(buffer);
  return st;
}
