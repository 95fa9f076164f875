/* Gaussian processes on a GPU: the covariance is generated in device memory
 * (lower triangle), factored by cuSOLVER's 64-bit Xpotrf and solved with
 * cuBLAS; only vectors cross the bus. */
#include <math.h>
#include <stdlib.h>

#include "gp_internal.h"
#include "gs_bench.h"
#include "gs_bench_cuda.cuh"
#include "gs_gpu_ctx.cuh"
#include "gs_matern_cuda.cuh"
#include "gp_gpu.cuh"

extern "C" gs_status gs_gp_gpu_init(gs_gp *gp, char *msg)
{
  gs_status st = GS_OK;
  gs_gp_gpu *g = (gs_gp_gpu *)calloc(1, sizeof *g);
  if (!g) return gs_set_msg(msg, GS_ERR_NOMEM, "out of host memory");
  gp->gpu = g;
  const size_t n = (size_t)gp->n, matrix = n * n * sizeof(double);
  size_t free_b = 0;
  GS_TRY(gs_gpu_ctx_get(gp->device, &g->ctx, msg));
  GS_TRY(gs_gpu_ctx_solvers(g->ctx, msg));
  GS_TRY(gs_gpu_ctx_free_memory(g->ctx, &free_b, msg));
  /* the factorisation needs the matrix plus a workspace of a few n-vectors */
  if ((double)matrix + 64.0 * n * sizeof(double) > (double)gs_gpu_budget(free_b)) {
    st = gs_set_msg(msg, GS_ERR_NOMEM,
                    "n = %ld needs %.1f GB of GPU memory for the covariance matrix; GPU %d has %.1f GB free "
                    "(the largest n that fits is about %.0f)",
                    gp->n, matrix / 1e9, gp->device, free_b / 1e9, floor(sqrt(gs_gpu_budget(free_b) / 8.0) - 64.0));
    goto done;
  }
  gs_gpu_ctx_workspace_release(g->ctx); /* the matrix needs the room */
  GS_CUDA_TRY(cudaMalloc(&g->a, matrix));
  GS_CUDA_TRY(cudaMalloc(&g->locs, n * gp->dim * sizeof(double)));
  GS_CUDA_TRY(cudaMalloc(&g->info, sizeof(int)));
  GS_TRY(gs_gp_gpu_upload_locations(gp, msg));
  GS_TRY(gs_cusolver_status(cusolverDnXpotrf_bufferSize(g->ctx->solver, g->ctx->solver_params, CUBLAS_FILL_MODE_LOWER,
                                                        (int64_t)n, CUDA_R_64F, g->a, (int64_t)n, CUDA_R_64F,
                                                        &g->work_bytes, &g->host_work_bytes),
                            "Xpotrf_bufferSize", msg));
  GS_CUDA_TRY(cudaMalloc(&g->work, g->work_bytes ? g->work_bytes : 1));
  g->host_work = malloc(g->host_work_bytes ? g->host_work_bytes : 1);
  g->diag = (double *)malloc(n * sizeof(double));
  if (!g->host_work || !g->diag) st = gs_set_msg(msg, GS_ERR_NOMEM, "out of host memory");
done:
  if (st != GS_OK) {
    gs_gp_gpu_release(gp);
  }
  return st;
}

extern "C" gs_status gs_gp_gpu_upload_locations(gs_gp *gp, char *msg)
{
  gs_gp_gpu *g = gp->gpu;
  if (cudaSetDevice(g->ctx->device) != cudaSuccess) return gs_set_msg(msg, GS_ERR_CUDA, "cannot select GPU %d", gp->device);
  return gs_gpu_copy_to_device(g->ctx, g->locs, gp->locs, (size_t)gp->n * gp->dim * sizeof(double), 0, msg);
}

extern "C" void gs_gp_gpu_release(gs_gp *gp)
{
  gs_gp_gpu *g = gp->gpu;
  if (!g) return;
  if (g->ctx) {
    cudaSetDevice(g->ctx->device);
    cudaStreamSynchronize(g->ctx->stream[0]);
  }
  cudaFree(g->a);
  cudaFree(g->locs);
  cudaFree(g->info);
  cudaFree(g->work);
  cudaFree(g->rhs);
  free(g->host_work);
  free(g->diag);
  free(g);
  gp->gpu = NULL;
}

/* The lower triangle of Sigma(p) into g->a, on stream 0. */
static cudaError_t gp_generate(gs_gp *gp, const gs_cov_model *p)
{
  gs_gp_gpu *g = gp->gpu;
  const gs_matern_cov_args args = gs_matern_cov_self(NULL, gp->n, gp->dim, p, NULL);
  const matern_tile_args t = matern_tile_setup(&args, g->locs, NULL);
  return matern_tile_launch(&t, 0, gp->n, g->a, g->ctx->stream[0]);
}

static gs_status gp_potrf(gs_gp *gp, char *msg)
{
  gs_gp_gpu *g = gp->gpu;
  return gs_cusolver_status(cusolverDnXpotrf(g->ctx->solver, g->ctx->solver_params, CUBLAS_FILL_MODE_LOWER,
                                             (int64_t)gp->n, CUDA_R_64F, g->a, (int64_t)gp->n, CUDA_R_64F, g->work,
                                             g->work_bytes, g->host_work, g->host_work_bytes, g->info),
                            "Xpotrf", msg);
}

extern "C" gs_status gs_gp_gpu_factor(gs_gp *gp, const gs_cov_model *p, double *logdet, long *failed_minor,
                                      char *msg)
{
  gs_status st = GS_OK;
  gs_gp_gpu *g = gp->gpu;
  const size_t n = (size_t)gp->n;
  int info = 0;
  GS_CUDA_TRY(cudaSetDevice(g->ctx->device));
  GS_CUDA_TRY(gp_generate(gp, p));
  GS_TRY(gp_potrf(gp, msg));
  GS_CUDA_TRY(cudaMemcpyAsync(&info, g->info, sizeof(int), cudaMemcpyDeviceToHost, g->ctx->stream[0]));
  /* the diagonal of the factor: every (n + 1)-th element */
  GS_CUDA_TRY(cudaMemcpy2DAsync(g->diag, sizeof(double), g->a, (n + 1) * sizeof(double), sizeof(double), n,
                                cudaMemcpyDeviceToHost, g->ctx->stream[0]));
  GS_CUDA_TRY(cudaStreamSynchronize(g->ctx->stream[0]));
  if (info > 0) {
    *failed_minor = info;
    st = gs_set_msg(msg, GS_ERR_NOT_PD, "the covariance matrix is not positive definite (leading minor %d)", info);
    goto done;
  }
  {
    double s = 0.0;
    for (size_t i = 0; i < n; ++i) s += log(g->diag[i]);
    *logdet = 2.0 * s;
  }
done:
  return st;
}

extern "C" const double *gs_gp_gpu_diagonal(const gs_gp *gp) { return gp->gpu->diag; }

extern "C" gs_status gs_gp_gpu_apply(gs_gp *gp, int what, const double *b, int k, double *out, char *msg)
{
  gs_status st = GS_OK;
  gs_gp_gpu *g = gp->gpu;
  const int64_t n = gp->n;
  const size_t bytes = (size_t)n * k * sizeof(double);
  const double one = 1.0;
  GS_CUDA_TRY(cudaSetDevice(g->ctx->device));
  if (k > g->rhs_cols) {
    cudaFree(g->rhs);
    g->rhs = NULL;
    g->rhs_cols = 0;
    GS_CUDA_TRY(cudaMalloc(&g->rhs, 2 * bytes));
    g->rhs_cols = k;
  }
  GS_TRY(gs_gpu_copy_to_device(g->ctx, g->rhs, b, bytes, 0, msg));
  {
    double *x = g->rhs, *y = g->rhs + (size_t)n * k;
    cublasHandle_t h = g->ctx->blas;
    if (what == GS_GP_MULTIPLY) {
      GS_TRY(gs_cublas_status(cublasDtrmm_64(h, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_N,
                                             CUBLAS_DIAG_NON_UNIT, n, k, &one, g->a, n, x, n, y, n),
                              "trmm", msg));
      x = y;
    } else {
      GS_TRY(gs_cublas_status(cublasDtrsm_64(h, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_N,
                                             CUBLAS_DIAG_NON_UNIT, n, k, &one, g->a, n, x, n),
                              "trsm", msg));
      if (what == GS_GP_SOLVE)
        GS_TRY(gs_cublas_status(cublasDtrsm_64(h, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_T,
                                               CUBLAS_DIAG_NON_UNIT, n, k, &one, g->a, n, x, n),
                                "trsm", msg));
    }
    GS_TRY(gs_gpu_copy_to_host(g->ctx, out, x, bytes, 0, msg));
  }
done:
  return st;
}

extern "C" gs_status gs_bench_gp_loglik_gpu(int device, long n, double range, double smoothness, int reps,
                                            double seconds[3], char *msg)
{
  gs_status st = GS_OK;
  gs_gp *gp = NULL;
  double *x = NULL;
  double *locs = (double *)malloc((size_t)n * 2 * sizeof(double));
  double *y = (double *)malloc((size_t)n * sizeof(double));
  if (!locs || !y || reps < 1) {
    st = gs_set_msg(msg, locs && y ? GS_ERR_ARG : GS_ERR_NOMEM, "the likelihood benchmark needs reps >= 1 and memory");
    goto done;
  }
  {
    for (long i = 0; i < 2 * n; ++i) locs[i] = rng_uniform(11, (uint64_t)i);
    for (long i = 0; i < n; ++i) y[i] = rng_uniform(12, (uint64_t)i) - 0.5;
  }
  GS_TRY(gs_gp_create(device, locs, n, 2, 0, GS_GP_BACKEND_WHOLE, 0.0, NULL, &gp, msg));
  if (gs_gp_tiled(gp)) {
    st = gs_set_msg(msg, GS_ERR_NOMEM, "n = %ld does not fit on GPU %d for the in-core likelihood benchmark", n, device);
    goto done;
  }
  {
    gs_gp_gpu *g = gp->gpu;
    cudaStream_t s = g->ctx->stream[0];
    const gs_cov_model p = gs_cov_matern(MATERN_EUCLIDEAN, 1.0, range, smoothness, 1e-6);
    const int64_t nn = n;
    const double one = 1.0;
    GS_CUDA_TRY(cudaMalloc(&x, (size_t)n * sizeof(double)));
    GS_TRY(gs_gpu_copy_to_device(g->ctx, x, y, (size_t)n * sizeof(double), 0, msg));
    /* each stage alone, so that the split is measured, not inferred */
    GS_TRY(bench_time(s, reps, [&] { return gp_generate(gp, &p); }, &seconds[0], msg));
    GS_TRY(bench_time(s, reps, [&] {
      cudaError_t e = gp_generate(gp, &p);
      if (e == cudaSuccess && gp_potrf(gp, msg) != GS_OK) e = cudaErrorUnknown;
      return e;
    }, &seconds[1], msg));
    seconds[1] -= seconds[0];
    GS_TRY(bench_time(s, reps, [&] {
      return cublasDtrsm_64(g->ctx->blas, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_N, CUBLAS_DIAG_NON_UNIT,
                            nn, 1, &one, g->a, nn, x, nn) == CUBLAS_STATUS_SUCCESS
                 ? cudaSuccess
                 : cudaErrorUnknown;
    }, &seconds[2], msg));
  }
done:
  cudaFree(x);
  gs_gp_free(gp);
  free(locs);
  free(y);
  return st;
}
