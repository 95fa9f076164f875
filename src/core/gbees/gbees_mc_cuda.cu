/* The Monte Carlo reference of GBEES on a GPU: each state integrated by
 * Runge-Kutta steps of the built-in field or a user's compiled one. */
#include <stdlib.h>

#include "gbees_gpu.cuh"

/* ---- Monte Carlo ----------------------------------------------------------- */

__global__ static void monte_carlo_rk4(const __grid_constant__ gs_gbees_model m, double *x, size_t n, long n_steps,
                                       double h)
{
  GRID_STRIDE(p, (int64_t)n) gbees_builtin_rk4(m.kind, m.par, m.dim, x + p * m.dim, n_steps, h);
}

struct gbees_gpu_mc {
  gs_gpu_ctx *ctx;
  gs_gbees_model model;
  gbees_field_module *field; /* a user's field, compiled for this device; NULL for a built-in one */
  double *x;                 /* the states, on the device */
  size_t n;
  int blocks;
};

extern "C" gs_status gbees_gpu_mc_start(int device, const gs_gbees_model *model, const double *x, size_t n,
                                        gbees_gpu_mc **out, char *msg)
{
  gs_status st = GS_OK;
  size_t bytes = n * model->dim * sizeof(double);
  gbees_gpu_mc *mc = (gbees_gpu_mc *)calloc(1, sizeof *mc);
  if (!mc) return gs_set_msg(msg, GS_ERR_NOMEM, "out of host memory");
  mc->model = *model;
  mc->n = n;
  mc->blocks = (int)((n + GBEES_THREADS - 1) / GBEES_THREADS);
  GS_TRY(gs_gpu_ctx_get(device, &mc->ctx, msg));
  if (model->kind == GS_GBEES_CALLBACK) GS_TRY(gbees_field_compile(model, device, &mc->field, msg));
  GS_CUDA_TRY(cudaMalloc(&mc->x, bytes));
  GS_CUDA_TRY(cudaMemcpyAsync(mc->x, x, bytes, cudaMemcpyHostToDevice, mc->ctx->stream[0]));
  /* before the caller may reuse x */
  GS_CUDA_TRY(cudaStreamSynchronize(mc->ctx->stream[0]));
  *out = mc;
  mc = NULL;
done:
  gbees_gpu_mc_free(mc);
  return st;
}

extern "C" gs_status gbees_gpu_mc_advance(gbees_gpu_mc *mc, double t0, long first, long count, double h, char *msg)
{
  gs_status st = GS_OK;
  cudaStream_t s = mc->ctx->stream[0];
  GS_CUDA_TRY(cudaSetDevice(mc->ctx->device));
  if (mc->field) {
    GS_CUDA_TRY(gbees_field_rk4(mc->field, s, mc->blocks, GBEES_THREADS, mc->x, (long long)mc->n, first, count, t0,
                                h));
  } else {
    monte_carlo_rk4<<<mc->blocks, GBEES_THREADS, 0, s>>>(mc->model, mc->x, mc->n, count, h);
    GS_CUDA_TRY(cudaGetLastError());
  }
  /* the batch is done when this returns, so that the caller can time it and look for an interrupt */
  GS_CUDA_TRY(cudaStreamSynchronize(s));
done:
  return st;
}

extern "C" gs_status gbees_gpu_mc_finish(gbees_gpu_mc *mc, double *x, char *msg)
{
  gs_status st = GS_OK;
  cudaStream_t s = mc->ctx->stream[0];
  GS_CUDA_TRY(cudaSetDevice(mc->ctx->device));
  GS_CUDA_TRY(cudaMemcpyAsync(x, mc->x, mc->n * mc->model.dim * sizeof(double), cudaMemcpyDeviceToHost, s));
  GS_CUDA_TRY(cudaStreamSynchronize(s));
done:
  return st;
}

extern "C" void gbees_gpu_mc_free(gbees_gpu_mc *mc)
{
  if (!mc) return;
  if (mc->ctx) cudaSetDevice(mc->ctx->device);
  cudaFree(mc->x);
  gbees_field_free(mc->field);
  free(mc);
}
