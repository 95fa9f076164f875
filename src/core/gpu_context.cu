/* Device queries and the lazily created per-device state. */
#include <string.h>

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
    c->ready = 1;
  }
  *ctx = c;
done:
  return st;
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
    if (c->work) cudaFree(c->work);
    for (int s = 0; s < GS_GPU_STREAMS; ++s) cudaStreamDestroy(c->stream[s]);
    memset(c, 0, sizeof *c);
  }
}
