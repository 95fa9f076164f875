/* The tile Cholesky's per-device streams and handles (tile_device), owned by
 * the tile module and kept on the device's context between factorizations:
 * creating them takes milliseconds, a factorization of a small matrix less. */
#include <stdlib.h>

#include "tile_run.cuh"

static void tile_device_release(void *p)
{
  tile_device *td = (tile_device *)p;
  for (int w = 0; w < GS_TILE_COMPUTE; ++w) {
    if (td->solver[w]) cusolverDnDestroy(td->solver[w]);
    if (td->blas[w]) cublasDestroy(td->blas[w]);
  }
  if (td->lt) cublasLtDestroy(td->lt);
  for (int s = 0; s < GS_TILE_COMPUTE + 2; ++s)
    if (td->stream[s]) cudaStreamDestroy(td->stream[s]);
  free(td);
}

/* Streams, then a cuBLAS and a cuSOLVER handle on each compute stream, then
 * the cuBLASLt handle; the diagonal stream has the highest priority, as the
 * factorization waits on its tiles. */
static gs_status tile_device_create(const gs_gpu_ctx *c, tile_device *td, char *msg)
{
  gs_status st = GS_OK;
  int least = 0, greatest = 0;
  GS_CUDA_TRY(cudaDeviceGetStreamPriorityRange(&least, &greatest));
  for (int s = 0; s < GS_TILE_COMPUTE + 2; ++s)
    GS_CUDA_TRY(cudaStreamCreateWithPriority(&td->stream[s], cudaStreamNonBlocking,
                                             s == GS_TILE_STREAM_DIAGONAL ? greatest : least));
  for (int w = 0; w < GS_TILE_COMPUTE; ++w) {
    if (cublasCreate(&td->blas[w]) != CUBLAS_STATUS_SUCCESS ||
        cublasSetStream(td->blas[w], td->stream[w]) != CUBLAS_STATUS_SUCCESS)
      return gs_set_msg(msg, GS_ERR_CUDA, "cannot create a cuBLAS handle on GPU %d", c->device);
    if (cusolverDnCreate(&td->solver[w]) != CUSOLVER_STATUS_SUCCESS ||
        cusolverDnSetStream(td->solver[w], td->stream[w]) != CUSOLVER_STATUS_SUCCESS)
      return gs_set_msg(msg, GS_ERR_CUDA, "cannot create a cuSOLVER handle on GPU %d", c->device);
  }
  if (cublasLtCreate(&td->lt) != CUBLAS_STATUS_SUCCESS)
    return gs_set_msg(msg, GS_ERR_CUDA, "cannot create a cuBLASLt handle on GPU %d", c->device);
done:
  return st;
}

gs_status tile_device_get(gs_gpu_ctx *c, tile_device **td, char *msg)
{
  gs_status st = gs_gpu_ctx_solvers(c, msg); /* the shared cuSOLVER parameters */
  if (st != GS_OK) return st;
  if (!c->tile) {
    tile_device *made = (tile_device *)calloc(1, sizeof *made);
    if (!made) return gs_set_msg(msg, GS_ERR_NOMEM, "out of host memory");
    if ((st = tile_device_create(c, made, msg)) != GS_OK) {
      tile_device_release(made);
      return st;
    }
    c->tile = made;
    c->tile_release = tile_device_release;
  }
  *td = (tile_device *)c->tile;
  return GS_OK;
}
