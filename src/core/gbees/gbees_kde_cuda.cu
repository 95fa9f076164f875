/* Gaussian kernel sums on a GPU: the sorted sources (gbees_kde.c) are
 * uploaded once, then one thread per evaluation point runs gbees_kde_sum,
 * the CPU's arithmetic in the CPU's order, over batches of points sized so
 * that one takes about GBEES_KDE_GPU_BATCH_SECONDS, with progress reported
 * (and interrupts seen) between them. */
#include <stdint.h>
#include <stdlib.h>

#include "gbees_internal.h"
#include "gbees_kde_math.h"
#include "gs_cpu.h"
#include "gs_gpu_ctx.cuh"

#define GBEES_KDE_GPU_THREADS 128
#define GBEES_KDE_GPU_BATCH_SECONDS 0.2
#define GBEES_KDE_GPU_FIRST_BATCH 4096

/* The sources as a kernel argument, with device pointers. */
__global__ void gbees_kde_kernel(gbees_kde_sources s, const double *eval, size_t first, size_t count, double *out)
{
  size_t p = first + (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (p < first + count) out[p] = gbees_kde_sum(&s, eval + p * s.dim);
}

typedef struct {
  double *z, *w, *eval, *out;
  int64_t *key;
} kde_device;

static void kde_device_free(kde_device *d)
{
  cudaFree(d->z), cudaFree(d->w), cudaFree(d->eval), cudaFree(d->out), cudaFree(d->key);
}

static gs_status upload(gs_gpu_ctx *ctx, const gbees_kde_sources *s, const double *eval, size_t n_eval,
                        kde_device *d, char *msg)
{
  gs_status st = GS_OK;
  size_t n = (size_t)s->n, dim = (size_t)s->dim;
  GS_CUDA_TRY(cudaMalloc(&d->z, n * dim * sizeof(double) + 1));
  GS_CUDA_TRY(cudaMalloc(&d->w, n * sizeof(double) + 1));
  GS_CUDA_TRY(cudaMalloc(&d->key, n * sizeof(int64_t) + 1));
  GS_CUDA_TRY(cudaMalloc(&d->eval, n_eval * dim * sizeof(double)));
  GS_CUDA_TRY(cudaMalloc(&d->out, n_eval * sizeof(double)));
  GS_TRY(gs_gpu_copy_to_device(ctx, d->z, s->z, n * dim * sizeof(double), 0, msg));
  GS_TRY(gs_gpu_copy_to_device(ctx, d->w, s->w, n * sizeof(double), 0, msg));
  GS_TRY(gs_gpu_copy_to_device(ctx, d->key, s->key, n * sizeof(int64_t), 0, msg));
  GS_TRY(gs_gpu_copy_to_device(ctx, d->eval, eval, n_eval * dim * sizeof(double), 0, msg));
done:
  return st;
}

static gs_status batches(gs_gpu_ctx *ctx, const gbees_kde_sources *s, const kde_device *d, size_t n_eval,
                         gs_progress_fn progress, char *msg)
{
  gs_status st = GS_OK;
  gbees_kde_sources on_device = *s;
  on_device.z = d->z, on_device.w = d->w, on_device.key = d->key;
  size_t done = 0, batch = GBEES_KDE_GPU_FIRST_BATCH;
  while (done < n_eval) {
    size_t count = batch < n_eval - done ? batch : n_eval - done;
    unsigned blocks = (unsigned)((count + GBEES_KDE_GPU_THREADS - 1) / GBEES_KDE_GPU_THREADS);
    double start = gs_wall_seconds();
    gbees_kde_kernel<<<blocks, GBEES_KDE_GPU_THREADS, 0, ctx->stream[0]>>>(on_device, d->eval, done, count, d->out);
    GS_CUDA_TRY(cudaGetLastError());
    GS_CUDA_TRY(cudaStreamSynchronize(ctx->stream[0]));
    done += count;
    double took = gs_wall_seconds() - start;
    batch = gs_batch_resize(batch, took, GBEES_KDE_GPU_BATCH_SECONDS, GBEES_KDE_GPU_THREADS);
    if (progress && progress((double)done / (double)n_eval)) return gs_interrupted(msg);
  }
done:
  return st;
}

extern "C" gs_status gbees_gpu_kernel_sums(int device, const gbees_kde_sources *s, const double *eval,
                                           size_t n_eval, gs_progress_fn progress, double *out, char *msg)
{
  gs_status st = GS_OK;
  gs_gpu_ctx *ctx = NULL;
  kde_device d = {NULL, NULL, NULL, NULL, NULL};
  GS_TRY(gs_gpu_ctx_get(device, &ctx, msg));
  GS_TRY(upload(ctx, s, eval, n_eval, &d, msg));
  GS_TRY(batches(ctx, s, &d, n_eval, progress, msg));
  GS_TRY(gs_gpu_copy_to_host(ctx, out, d.out, n_eval * sizeof(double), 0, msg));
done:
  kde_device_free(&d);
  return st;
}
