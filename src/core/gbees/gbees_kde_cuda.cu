/* Gaussian kernel sums on a GPU: the sorted sources (gbees_kde.c) are
 * uploaded once; a warp takes a group of up to GBEES_KDE_GROUP consecutive
 * evaluation points (in box order, so neighbours; gbees_kde_groups) and
 * walks the boxes once for the region that holds them (gbees_kde_math.h).
 * The lanes split each run of sources, reading neighbouring sources, and each
 * lane tests its sources against every point of the group, so that a source
 * read from memory serves the whole group. (With a warp a point, each source
 * read once per point, a Lorenz '96 grid of 7.6e7 cells, where a point's
 * cut-off ball holds all of the grid, did not give 2e4 sums in six minutes
 * on an H200.) A point's sum is its lanes' parts added in a fixed
 * order. Groups run in batches sized so that one takes about
 * GBEES_KDE_GPU_BATCH_SECONDS, with progress reported (and interrupts seen)
 * between them. */
#include <stdint.h>
#include <stdlib.h>

#include "gbees_internal.h"
#include "gbees_kde_math.h"
#include "gs_cpu.h"
#include "gs_gpu_ctx.cuh"

#define GBEES_KDE_GPU_THREADS 128
#define GBEES_KDE_GPU_WARPS (GBEES_KDE_GPU_THREADS / 32)
#define GBEES_KDE_GPU_BATCH_SECONDS 0.2
#define GBEES_KDE_GPU_FIRST_BATCH 1024

/* The sources as a kernel argument, with device pointers; one instance per
 * dimension, so that a source's coordinates stay in registers. */
template <int DIM>
__global__ void gbees_kde_kernel(gbees_kde_sources s, const double *eval, const int64_t *group, size_t first,
                                 size_t count, double *out)
{
  __shared__ double staged[GBEES_KDE_GPU_WARPS][GBEES_KDE_GROUP * DIM];
  const int lane = (int)(threadIdx.x % 32);
  size_t g = first + (size_t)blockIdx.x * GBEES_KDE_GPU_WARPS + threadIdx.x / 32;
  if (g >= first + count) return;
  int64_t begin = group[g];
  int m = (int)(group[g + 1] - begin);
  double *y = staged[threadIdx.x / 32];
  for (int k = lane; k < m * DIM; k += 32) y[k] = eval[begin * DIM + k];
  __syncwarp();
  double lo[DIM], hi[DIM], part[GBEES_KDE_GROUP], r2 = s.radius * s.radius;
  for (int i = 0; i < DIM; i++) {
    lo[i] = hi[i] = y[i];
    for (int q = 1; q < m; q++) lo[i] = fmin(lo[i], y[q * DIM + i]), hi[i] = fmax(hi[i], y[q * DIM + i]);
  }
#pragma unroll
  for (int q = 0; q < GBEES_KDE_GROUP; q++) part[q] = 0.0;
  gbees_kde_walk w;
  int64_t run, run_end;
  gbees_kde_walk_start(&w, &s, lo, hi);
  while (gbees_kde_walk_next(&w, &run, &run_end)) {
    for (int64_t j = run + lane; j < run_end; j += 32) {
      double z[DIM], wj = s.w ? s.w[j] : 1.0;
      for (int i = 0; i < DIM; i++) z[i] = s.z[j * DIM + i];
#pragma unroll
      for (int q = 0; q < GBEES_KDE_GROUP; q++) {
        if (q < m) {
          double d2 = gbees_kde_dist2(DIM, y + q * DIM, z);
          if (d2 <= r2) part[q] += wj * exp(-0.5 * d2);
        }
      }
    }
  }
#pragma unroll
  for (int q = 0; q < GBEES_KDE_GROUP; q++) {
    if (q < m) {
      double v = part[q];
      for (int offset = 16; offset > 0; offset /= 2) v += __shfl_xor_sync(0xffffffffu, v, offset);
      if (lane == 0) out[begin + q] = v;
    }
  }
}

typedef void (*kde_kernel_fn)(gbees_kde_sources, const double *, const int64_t *, size_t, size_t, double *);

static const kde_kernel_fn kde_kernels[] = {gbees_kde_kernel<1>, gbees_kde_kernel<2>, gbees_kde_kernel<3>,
                                            gbees_kde_kernel<4>, gbees_kde_kernel<5>, gbees_kde_kernel<6>,
                                            gbees_kde_kernel<7>, gbees_kde_kernel<8>};
static_assert(sizeof kde_kernels / sizeof kde_kernels[0] == GS_GBEES_MAX_DIM, "one kernel instance per dimension");

typedef struct {
  double *z, *w, *eval, *out;
  int64_t *key, *group;
} kde_device;

static void kde_device_free(kde_device *d)
{
  cudaFree(d->z), cudaFree(d->w), cudaFree(d->eval), cudaFree(d->out), cudaFree(d->key), cudaFree(d->group);
}

static gs_status upload(gs_gpu_ctx *ctx, const gbees_kde_sources *s, const double *eval, const int64_t *group,
                        size_t groups, kde_device *d, char *msg)
{
  gs_status st = GS_OK;
  size_t n = (size_t)s->n, dim = (size_t)s->dim, n_eval = (size_t)group[groups];
  GS_CUDA_TRY(cudaMalloc(&d->z, n * dim * sizeof(double) + 1));
  GS_CUDA_TRY(cudaMalloc(&d->w, n * sizeof(double) + 1));
  GS_CUDA_TRY(cudaMalloc(&d->key, n * sizeof(int64_t) + 1));
  GS_CUDA_TRY(cudaMalloc(&d->eval, n_eval * dim * sizeof(double)));
  GS_CUDA_TRY(cudaMalloc(&d->out, n_eval * sizeof(double)));
  GS_CUDA_TRY(cudaMalloc(&d->group, (groups + 1) * sizeof(int64_t)));
  GS_TRY(gs_gpu_copy_to_device(ctx, d->z, s->z, n * dim * sizeof(double), 0, msg));
  GS_TRY(gs_gpu_copy_to_device(ctx, d->w, s->w, n * sizeof(double), 0, msg));
  GS_TRY(gs_gpu_copy_to_device(ctx, d->key, s->key, n * sizeof(int64_t), 0, msg));
  GS_TRY(gs_gpu_copy_to_device(ctx, d->eval, eval, n_eval * dim * sizeof(double), 0, msg));
  GS_TRY(gs_gpu_copy_to_device(ctx, d->group, group, (groups + 1) * sizeof(int64_t), 0, msg));
done:
  return st;
}

static gs_status batches(gs_gpu_ctx *ctx, const gbees_kde_sources *s, const kde_device *d, const int64_t *group,
                         size_t groups, gs_progress_fn progress, char *msg)
{
  gs_status st = GS_OK;
  gbees_kde_sources on_device = *s;
  on_device.z = d->z, on_device.w = d->w, on_device.key = d->key;
  size_t done = 0, batch = GBEES_KDE_GPU_FIRST_BATCH;
  while (done < groups) {
    size_t count = batch < groups - done ? batch : groups - done;
    unsigned blocks = (unsigned)((count + GBEES_KDE_GPU_WARPS - 1) / GBEES_KDE_GPU_WARPS);
    double start = gs_wall_seconds();
    kde_kernels[s->dim - 1]<<<blocks, GBEES_KDE_GPU_THREADS, 0, ctx->stream[0]>>>(on_device, d->eval, d->group, done,
                                                                                 count, d->out);
    GS_CUDA_TRY(cudaGetLastError());
    GS_CUDA_TRY(cudaStreamSynchronize(ctx->stream[0]));
    done += count;
    double took = gs_wall_seconds() - start;
    batch = gs_batch_resize(batch, took, GBEES_KDE_GPU_BATCH_SECONDS, GBEES_KDE_GPU_WARPS);
    if (progress && progress((double)group[done] / (double)group[groups])) return gs_interrupted(msg);
  }
done:
  return st;
}

extern "C" gs_status gbees_gpu_kernel_sums(int device, const gbees_kde_sources *s, const double *eval,
                                           const int64_t *group, size_t groups, gs_progress_fn progress, double *out,
                                           char *msg)
{
  gs_status st = GS_OK;
  gs_gpu_ctx *ctx = NULL;
  kde_device d = {NULL, NULL, NULL, NULL, NULL, NULL};
  GS_TRY(gs_gpu_ctx_get(device, &ctx, msg));
  GS_TRY(upload(ctx, s, eval, group, groups, &d, msg));
  GS_TRY(batches(ctx, s, &d, group, groups, progress, msg));
  GS_TRY(gs_gpu_copy_to_host(ctx, out, d.out, (size_t)group[groups] * sizeof(double), 0, msg));
done:
  kde_device_free(&d);
  return st;
}
