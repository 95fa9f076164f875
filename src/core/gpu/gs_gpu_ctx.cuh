/* Per-device state shared by the CUDA backends: created on first use, reused
 * by every call, released when the package unloads. */
#ifndef GS_GPU_CTX_CUH
#define GS_GPU_CTX_CUH

#include <cublasLt.h>
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cusolverDn.h>

#include "gs_gpu.h"
#include "gs_host_pages.h"

#define GS_GPU_STREAMS 2

/* Pinned host buffers through which data moves between R's (pageable)
 * memory and the device: pageable copies run at a fraction of the bus speed. */
#define GS_GPU_STAGES 2
#define GS_GPU_STAGE_BYTES ((size_t)64 << 20)

typedef struct {
  int device;
  int ready;
  int multiprocessors;
  cudaStream_t stream[GS_GPU_STREAMS];
  void *work; /* reusable device workspace */
  size_t work_bytes;
  void *stage[GS_GPU_STAGES];            /* pinned, GS_GPU_STAGE_BYTES each */
  cudaEvent_t stage_free[GS_GPU_STAGES]; /* recorded when a stage's copy is done */
  cublasHandle_t blas;                   /* created by gs_gpu_ctx_solvers, on stream[0] */
  cusolverDnHandle_t solver;
  cusolverDnParams_t solver_params;
  /* The tile Cholesky's own per-device resources (its streams and handles,
   * tile_run.cuh), opaque here: created by the tile module on first use and
   * released with the context by the function it leaves in tile_release. */
  void *tile;
  void (*tile_release)(void *tile);
} gs_gpu_ctx;

/* Makes `device` current and returns its state, creating it if needed. */
gs_status gs_gpu_ctx_get(int device, gs_gpu_ctx **ctx, char *msg);
/* Creates the cuBLAS and cuSOLVER handles of ctx on first use (milliseconds
 * each, so once per device, not per call). */
gs_status gs_gpu_ctx_solvers(gs_gpu_ctx *ctx, char *msg);
/* At least `bytes` of device workspace; the previous contents are lost. The
 * tile Cholesky keeps its tile cache there for the next factorization of
 * the same size, so work that allocates memory of its own releases it. */
gs_status gs_gpu_ctx_workspace(gs_gpu_ctx *ctx, size_t bytes, void **p, char *msg);
/* Frees the workspace, for work that needs the room (a whole matrix). */
void gs_gpu_ctx_workspace_release(gs_gpu_ctx *ctx);
/* Free device memory in bytes, after releasing the workspace if it would
 * otherwise be counted as used. */
gs_status gs_gpu_ctx_free_memory(gs_gpu_ctx *ctx, size_t *free_bytes, char *msg);

/* Host <-> device copies through the pinned stages, on stream[stream]; the
 * host side is copied on all cores. Both return once
 * the source may be reused; copy_to_host returns with the data in place. */
gs_status gs_gpu_copy_to_device(gs_gpu_ctx *ctx, void *dst, const void *src, size_t bytes, int stream,
                                char *msg);
gs_status gs_gpu_copy_to_host(gs_gpu_ctx *ctx, void *dst, const void *src, size_t bytes, int stream,
                              char *msg);

/* A copy between [offset, offset + bytes) of h and device memory, on
 * `stream`: the range page-locked first, the copy split at its pieces'
 * ends (gs_host_pages.h). */
cudaError_t gs_host_pages_copy(gs_host_pages *h, size_t offset, void *device, size_t bytes, cudaMemcpyKind kind,
                               cudaStream_t stream);

/* A cuBLAS or cuSOLVER call's status as a gs_status: GS_OK, out of memory,
 * or a failure that names the call (`what`) and the status. */
gs_status gs_cublas_status(cublasStatus_t s, const char *what, char *msg);
gs_status gs_cusolver_status(cusolverStatus_t s, const char *what, char *msg);

/* Turns a failed CUDA call into a gs_status with its message and jumps to the
 * function's cleanup label `done`; `st` and `msg` must be in scope. */
#define GS_CUDA_TRY(call)                                                                \
  do {                                                                                   \
    cudaError_t gs_err_ = (call);                                                        \
    if (gs_err_ != cudaSuccess) {                                                        \
      st = gs_set_msg(msg, gs_err_ == cudaErrorMemoryAllocation ? GS_ERR_NOMEM : GS_ERR_CUDA, \
                      "%s (%s)", cudaGetErrorString(gs_err_), #call);                    \
      goto done;                                                                         \
    }                                                                                    \
  } while (0)

#define GS_TRY(expr)            \
  do {                          \
    st = (expr);                \
    if (st != GS_OK) goto done; \
  } while (0)

#endif
