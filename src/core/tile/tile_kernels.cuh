/* Element-wise kernels over one tile in any of its formats, shared by the
 * factorization and the resident factor's operations. */
#ifndef GS_TILE_KERNELS_CUH
#define GS_TILE_KERNELS_CUH

#include <cuda_runtime.h>

#include "tile_precision.h"

/* A finished tile in device memory is in its format, except FP8: that one
 * is kept widened to FP16 (exactly: an E4M3 value times its tile's scale is
 * an FP16 value), the format the tensor cores multiply, with its FP8 bytes
 * after the FP16 ones, for the copies to and from the host. */
static inline int tile_device_format(int p) { return p == GS_TILE_FP8 ? GS_TILE_FP16 : p; }
static inline void *tile_transfer_ptr(void *slot, int p, size_t count)
{
  return p == GS_TILE_FP8 ? (char *)slot + count * sizeof(uint16_t) : slot;
}

/* dst (format dp, scale ds) = src (format sp, scale ss), count entries; a
 * value that does not fit sets *overflow. */
static __global__ void tile_convert_kernel(const void *src, int sp, float ss, void *dst, int dp, float ds,
                                           size_t count, unsigned char *overflow)
{
  int fits = 1;
  for (size_t k = blockIdx.x * (size_t)blockDim.x + threadIdx.x; k < count; k += (size_t)gridDim.x * blockDim.x)
    fits &= tile_entry_put(dst, dp, ds, k, tile_entry_get(src, sp, ss, k));
  if (!fits) *overflow = 1;
}

static inline cudaError_t tile_convert(const void *src, int sp, float ss, void *dst, int dp, float ds, size_t count,
                                       unsigned char *overflow, cudaStream_t s)
{
  const unsigned blocks = (unsigned)((count + 255) / 256 < 1024 ? (count + 255) / 256 : 1024);
  tile_convert_kernel<<<blocks, 256, 0, s>>>(src, sp, ss, dst, dp, ds, count, overflow);
  return cudaGetLastError();
}

#define TILE_NORM_BLOCKS 120

/* Per block: the sum of squares and the largest absolute value of its share
 * of x (count entries in format p, scale), into part[2 * blockIdx.x + {0, 1}]. */
static __global__ void tile_norm_parts_kernel(const void *x, int p, float scale, size_t count, double *part)
{
  __shared__ double sums[256], bigs[256];
  double s = 0.0, big = 0.0;
  for (size_t k = blockIdx.x * (size_t)blockDim.x + threadIdx.x; k < count; k += (size_t)gridDim.x * blockDim.x) {
    const double v = tile_entry_get(x, p, scale, k);
    s += v * v;
    big = fmax(big, fabs(v));
  }
  sums[threadIdx.x] = s;
  bigs[threadIdx.x] = big;
  __syncthreads();
  for (int w = blockDim.x / 2; w > 0; w /= 2) {
    if (threadIdx.x < w) {
      sums[threadIdx.x] += sums[threadIdx.x + w];
      bigs[threadIdx.x] = fmax(bigs[threadIdx.x], bigs[threadIdx.x + w]);
    }
    __syncthreads();
  }
  if (threadIdx.x == 0) {
    part[2 * blockIdx.x] = sums[0];
    part[2 * blockIdx.x + 1] = bigs[0];
  }
}

/* The block parts in order (so the sums do not depend on timing) into
 * out[0] (sum of squares) and out[1] (largest value). */
static __global__ void tile_norm_total_kernel(const double *part, int parts, double *out)
{
  double s = 0.0, big = 0.0;
  for (int b = 0; b < parts; ++b) {
    s += part[2 * b];
    big = fmax(big, part[2 * b + 1]);
  }
  out[0] = s;
  out[1] = big;
}

/* out[0] = the sum of squares, out[1] = the largest absolute value of x
 * (count entries in format p, scale); part: 2 * TILE_NORM_BLOCKS doubles. */
static inline cudaError_t tile_norm(const void *x, int p, float scale, size_t count, double *part, double *out,
                                    cudaStream_t s)
{
  tile_norm_parts_kernel<<<TILE_NORM_BLOCKS, 256, 0, s>>>(x, p, scale, count, part);
  tile_norm_total_kernel<<<1, 1, 0, s>>>(part, TILE_NORM_BLOCKS, out);
  return cudaGetLastError();
}

#endif
