/* Device queries and the lazily created per-device state. */
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "gs_cpu.h"
#include "gs_gpu_ctx.cuh"

#define GS_MAX_GPUS 64

static gs_gpu_ctx contexts[GS_MAX_GPUS];

extern "C" int gs_gpu_count(void)
{
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) {
    cudaGetLastError(); /* no driver or no device: not an error for callers */
    return 0;
  }
  return n;
}

static gs_status check_device(int device, char *msg)
{
  int n = gs_gpu_count();
  if (device < 0 || device >= n)
    return gs_set_msg(msg, n == 0 ? GS_ERR_NO_GPU : GS_ERR_ARG,
                      n == 0 ? "no CUDA device is available" : "GPU %d does not exist (this machine has %d)",
                      device, n);
  return GS_OK;
}

extern "C" gs_status gs_gpu_props_get(int device, gs_gpu_props *p, char *msg)
{
  gs_status st = check_device(device, msg);
  if (st != GS_OK) return st;
  cudaDeviceProp prop;
  size_t free_b = 0, total_b = 0;
  GS_CUDA_TRY(cudaGetDeviceProperties(&prop, device));
  GS_CUDA_TRY(cudaSetDevice(device));
  GS_CUDA_TRY(cudaMemGetInfo(&free_b, &total_b));
  strncpy(p->name, prop.name, sizeof p->name - 1);
  p->name[sizeof p->name - 1] = '\0';
  p->total_memory = (double)total_b;
  p->free_memory = (double)free_b;
  p->cc_major = prop.major;
  p->cc_minor = prop.minor;
  p->multiprocessors = prop.multiProcessorCount;
  GS_CUDA_TRY(cudaDriverGetVersion(&p->driver_version));
  GS_CUDA_TRY(cudaRuntimeGetVersion(&p->runtime_version));
done:
  return st;
}

/* Releases whatever part of a context exists. */
static void context_free(gs_gpu_ctx *c)
{
  if (c->tile) c->tile_release(c->tile);
  if (c->solver_params) cusolverDnDestroyParams(c->solver_params);
  if (c->solver) cusolverDnDestroy(c->solver);
  if (c->blas) cublasDestroy(c->blas);
  if (c->work) cudaFree(c->work);
  for (int k = 0; k < GS_GPU_STAGES; ++k) {
    if (c->stage[k]) cudaFreeHost(c->stage[k]);
    if (c->stage_free[k]) cudaEventDestroy(c->stage_free[k]);
  }
  for (int s = 0; s < GS_GPU_STREAMS; ++s)
    if (c->stream[s]) cudaStreamDestroy(c->stream[s]);
  memset(c, 0, sizeof *c);
}

gs_status gs_gpu_ctx_get(int device, gs_gpu_ctx **ctx, char *msg)
{
  gs_status st = check_device(device, msg);
  if (st != GS_OK) return st;
  if (device >= GS_MAX_GPUS) return gs_set_msg(msg, GS_ERR_ARG, "GPU %d is beyond the %d supported", device, GS_MAX_GPUS);
  gs_gpu_ctx *c = &contexts[device];
  GS_CUDA_TRY(cudaSetDevice(device));
  if (!c->ready) {
    memset(c, 0, sizeof *c);
    c->device = device;
    GS_CUDA_TRY(cudaDeviceGetAttribute(&c->multiprocessors, cudaDevAttrMultiProcessorCount, device));
    for (int s = 0; s < GS_GPU_STREAMS; ++s)
      GS_CUDA_TRY(cudaStreamCreateWithFlags(&c->stream[s], cudaStreamNonBlocking));
    for (int k = 0; k < GS_GPU_STAGES; ++k) {
      GS_CUDA_TRY(cudaHostAlloc(&c->stage[k], GS_GPU_STAGE_BYTES, cudaHostAllocDefault));
      GS_CUDA_TRY(cudaEventCreateWithFlags(&c->stage_free[k], cudaEventDisableTiming));
    }
    c->ready = 1;
  }
  *ctx = c;
done:
  if (st != GS_OK && !c->ready) context_free(c);
  return st;
}

gs_status gs_cublas_status(cublasStatus_t s, const char *what, char *msg)
{
  if (s == CUBLAS_STATUS_SUCCESS) return GS_OK;
  return gs_set_msg(msg, s == CUBLAS_STATUS_ALLOC_FAILED ? GS_ERR_NOMEM : GS_ERR_CUDA, "%s failed (cuBLAS: %s)", what,
                    cublasGetStatusString(s));
}

gs_status gs_cusolver_status(cusolverStatus_t s, const char *what, char *msg)
{
  if (s == CUSOLVER_STATUS_SUCCESS) return GS_OK;
  return gs_set_msg(msg, s == CUSOLVER_STATUS_ALLOC_FAILED ? GS_ERR_NOMEM : GS_ERR_CUDA, "%s failed (cuSOLVER status %d)",
                    what, (int)s);
}

gs_status gs_gpu_ctx_solvers(gs_gpu_ctx *c, char *msg)
{
  if (c->solver_params) return GS_OK;
  if (!c->blas && (cublasCreate(&c->blas) != CUBLAS_STATUS_SUCCESS ||
                   cublasSetStream(c->blas, c->stream[0]) != CUBLAS_STATUS_SUCCESS))
    return gs_set_msg(msg, GS_ERR_CUDA, "cannot create a cuBLAS handle on GPU %d", c->device);
  if (!c->solver && (cusolverDnCreate(&c->solver) != CUSOLVER_STATUS_SUCCESS ||
                     cusolverDnSetStream(c->solver, c->stream[0]) != CUSOLVER_STATUS_SUCCESS))
    return gs_set_msg(msg, GS_ERR_CUDA, "cannot create a cuSOLVER handle on GPU %d", c->device);
  if (cusolverDnCreateParams(&c->solver_params) != CUSOLVER_STATUS_SUCCESS) {
    c->solver_params = NULL;
    return gs_set_msg(msg, GS_ERR_CUDA, "cannot create cuSOLVER parameters on GPU %d", c->device);
  }
  return GS_OK;
}

gs_status gs_gpu_ctx_workspace(gs_gpu_ctx *c, size_t bytes, void **p, char *msg)
{
  gs_status st = GS_OK;
  if (bytes > c->work_bytes) {
    if (c->work) cudaFree(c->work);
    c->work = NULL;
    c->work_bytes = 0;
    GS_CUDA_TRY(cudaMalloc(&c->work, bytes));
    c->work_bytes = bytes;
  }
  *p = c->work;
done:
  return st;
}

void gs_gpu_ctx_workspace_release(gs_gpu_ctx *c)
{
  if (c->work) cudaFree(c->work);
  c->work = NULL;
  c->work_bytes = 0;
}

gs_status gs_gpu_ctx_free_memory(gs_gpu_ctx *c, size_t *free_bytes, char *msg)
{
  gs_status st = GS_OK;
  size_t total = 0;
  GS_CUDA_TRY(cudaMemGetInfo(free_bytes, &total));
  *free_bytes += c->work_bytes; /* the workspace is ours to reuse or grow */
done:
  return st;
}

extern "C" void gs_gpu_release_all(void)
{
  for (int d = 0; d < GS_MAX_GPUS; ++d) {
    gs_gpu_ctx *c = &contexts[d];
    if (!c->ready) continue;
    cudaSetDevice(d);
    cudaDeviceSynchronize();
    context_free(c);
  }
}

/* memcpy on all cores: one thread cannot keep up with the bus, and the first
 * touch of freshly allocated R memory is paid in parallel too. */
static void parallel_memcpy(void *dst, const void *src, size_t bytes)
{
  const size_t block = (size_t)1 << 20;
  const long long nblocks = (long long)((bytes + block - 1) / block);
#pragma omp parallel for schedule(static) num_threads(gs_cpu_threads_for(0, bytes / GS_CPU_BYTES_PER_WORK))
  for (long long b = 0; b < nblocks; ++b) {
    size_t off = (size_t)b * block, len = bytes - off < block ? bytes - off : block;
    memcpy((char *)dst + off, (const char *)src + off, len);
  }
}

gs_status gs_gpu_copy_to_device(gs_gpu_ctx *c, void *dst, const void *src, size_t bytes, int stream,
                                char *msg)
{
  gs_status st = GS_OK;
  cudaStream_t s = c->stream[stream];
  for (size_t off = 0, k = 0; off < bytes; off += GS_GPU_STAGE_BYTES, k = (k + 1) % GS_GPU_STAGES) {
    size_t len = bytes - off < GS_GPU_STAGE_BYTES ? bytes - off : GS_GPU_STAGE_BYTES;
    GS_CUDA_TRY(cudaEventSynchronize(c->stage_free[k])); /* its previous upload is done */
    parallel_memcpy(c->stage[k], (const char *)src + off, len);
    GS_CUDA_TRY(cudaMemcpyAsync((char *)dst + off, c->stage[k], len, cudaMemcpyHostToDevice, s));
    GS_CUDA_TRY(cudaEventRecord(c->stage_free[k], s));
  }
done:
  return st;
}

gs_status gs_gpu_copy_to_host(gs_gpu_ctx *c, void *dst, const void *src, size_t bytes, int stream,
                              char *msg)
{
  gs_status st = GS_OK;
  cudaStream_t s = c->stream[stream];
  const size_t pieces = (bytes + GS_GPU_STAGE_BYTES - 1) / GS_GPU_STAGE_BYTES;
  /* the download of piece p + 1 runs while piece p is copied out */
  for (size_t p = 0; p <= pieces; ++p) {
    if (p < pieces) {
      size_t k = p % GS_GPU_STAGES, off = p * GS_GPU_STAGE_BYTES;
      size_t len = bytes - off < GS_GPU_STAGE_BYTES ? bytes - off : GS_GPU_STAGE_BYTES;
      GS_CUDA_TRY(cudaEventSynchronize(c->stage_free[k]));
      GS_CUDA_TRY(cudaMemcpyAsync(c->stage[k], (const char *)src + off, len, cudaMemcpyDeviceToHost, s));
      GS_CUDA_TRY(cudaEventRecord(c->stage_free[k], s));
    }
    if (p > 0) {
      size_t q = p - 1, k = q % GS_GPU_STAGES, off = q * GS_GPU_STAGE_BYTES;
      size_t len = bytes - off < GS_GPU_STAGE_BYTES ? bytes - off : GS_GPU_STAGE_BYTES;
      GS_CUDA_TRY(cudaEventSynchronize(c->stage_free[k]));
      parallel_memcpy((char *)dst + off, c->stage[k], len);
    }
  }
done:
  return st;
}
