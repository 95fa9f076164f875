/* The derivatives of the exact Gaussian log-likelihood on a GPU (see
 * gs_gp_derivatives in gs_gp.h), from the factor cuSOLVER left in device
 * memory: P = Sigma^-1 by potri, REML's correction by a rank-q update, the
 * derivative matrices and their traces in one kernel over the pairs with the
 * Matérn derivatives of matern_deriv_math.h (the CPU's arithmetic), and the
 * information through W_i = P dS_i (cuBLAS symm) and tr(W_s W_t) as the dot
 * product of W_s with the transpose of W_t. */
#include <math.h>
#include <stdlib.h>

#include "gp_gpu.cuh"

/* Pairs per side of a thread block of the pass. */
#define DERIV_TILE 16
/* Tile columns per launch of the pass, between interrupt checks. */
#define DERIV_LAUNCH_TILES 64

struct deriv_pass_args {
  matern_deriv_model model;
  const double *locs;
  long n;
  int dim, deriv, k;
  const double *p, *u;
  double *d[GS_COV_NPAR]; /* generated dS_i (both triangles), or NULL */
  double *acc;                 /* 2 GS_COV_NPAR: the traces, then the quadratic forms */
};

/* One pair (i, j), i >= j, per thread: the CPU pass's deriv_column entry by
 * entry; the sums reduced over the warp, then added once per warp. */
__global__ void deriv_pass_kernel(deriv_pass_args a, long tile0)
{
  const long tj = tile0 + blockIdx.x, ti = blockIdx.y;
  if (ti < tj) return; /* the whole block is above the diagonal */
  /* consecutive threads on consecutive rows: P's and dS's columns are read and written in runs */
  const long i = ti * DERIV_TILE + threadIdx.x, j = tj * DERIV_TILE + threadIdx.y;
  double acc[2 * GS_COV_NPAR] = {0};
  if (i < a.n && j < a.n && i >= j) {
    const double dist = matern_distance(a.locs, a.n, i, a.locs, a.n, j, a.dim, a.model.cov.metric);
    double dv[GS_COV_NPAR];
    dv[GS_COV_SIGMA2] = matern_deriv_pair(&a.model, dist, a.deriv, dv);
    dv[GS_COV_NUGGET] = (i == j);
    const double weight = (i == j) ? 1.0 : 2.0, pij = weight * a.p[i + j * a.n];
    double uu = 0.0;
    for (int c = 0; c < a.k; ++c) uu = fma(a.u[i + c * a.n], a.u[j + c * a.n], uu);
    uu *= weight;
    for (int t = 0; t < GS_COV_NPAR; ++t) {
      if (!((a.deriv >> t) & 1)) continue;
      acc[t] = pij * dv[t];
      acc[GS_COV_NPAR + t] = uu * dv[t];
      if (a.d[t]) a.d[t][i + j * a.n] = a.d[t][j + i * a.n] = dv[t];
    }
  }
  const int lane = (threadIdx.y * DERIV_TILE + threadIdx.x) & 31;
  for (int t = 0; t < 2 * GS_COV_NPAR; ++t) {
    double v = acc[t];
    for (int off = 16; off > 0; off >>= 1) v += __shfl_down_sync(0xffffffffu, v, off);
    if (lane == 0 && v != 0.0) atomicAdd(&a.acc[t], v);
  }
}

/* The upper triangle of an n x n matrix from its lower one. */
__global__ void deriv_mirror_kernel(double *m, long n)
{
  const long j = blockIdx.x * (long)blockDim.x + threadIdx.x, i = blockIdx.y * (long)blockDim.y + threadIdx.y;
  if (i < n && j < n && i > j) m[j + i * n] = m[i + j * n];
}

static cudaError_t deriv_mirror(double *m, long n, cudaStream_t s)
{
  const dim3 block(DERIV_TILE, DERIV_TILE), grid((unsigned)((n + DERIV_TILE - 1) / DERIV_TILE),
                                                 (unsigned)((n + DERIV_TILE - 1) / DERIV_TILE));
  deriv_mirror_kernel<<<grid, block, 0, s>>>(m, n);
  return cudaGetLastError();
}

/* The device buffers of one call. */
struct deriv_buffers {
  double *p, *scratch, *u, *acc, *v;
  double *d[GS_COV_NPAR];
  int *info;
};

/* p := Sigma^-1 (both triangles) from the factor, by cuSOLVER's potri. */
static gs_status deriv_inverse(gs_gp *gp, deriv_buffers *b, char *msg)
{
  gs_status st = GS_OK;
  gs_gp_gpu *g = gp->gpu;
  const int n = (int)gp->n;
  int lwork = 0, info = 0;
  double *work = NULL;
  cudaStream_t s = g->ctx->stream[0];
  GS_CUDA_TRY(cudaMemcpyAsync(b->p, g->a, (size_t)n * n * sizeof(double), cudaMemcpyDeviceToDevice, s));
  GS_TRY(gs_cusolver_status(cusolverDnDpotri_bufferSize(g->ctx->solver, CUBLAS_FILL_MODE_LOWER, n, b->p, n, &lwork),
                            "potri_bufferSize", msg));
  GS_CUDA_TRY(cudaMalloc(&work, (size_t)(lwork > 0 ? lwork : 1) * sizeof(double)));
  GS_TRY(gs_cusolver_status(cusolverDnDpotri(g->ctx->solver, CUBLAS_FILL_MODE_LOWER, n, b->p, n, work, lwork, b->info),
                            "potri", msg));
  GS_CUDA_TRY(cudaMemcpyAsync(&info, b->info, sizeof(int), cudaMemcpyDeviceToHost, s));
  GS_CUDA_TRY(cudaStreamSynchronize(s));
  if (info != 0) {
    st = gs_set_msg(msg, GS_ERR_NOT_PD, "the inverse of the covariance failed (potri info %d)", info);
    goto done;
  }
  GS_CUDA_TRY(deriv_mirror(b->p, n, s));
done:
  cudaFree(work);
  return st;
}

/* REML: p -= V V' with V from B = p X (gs_gp_deriv_trend on the host). */
static gs_status deriv_project(gs_gp *gp, const gs_gp_deriv_args *a, deriv_buffers *b, char *msg)
{
  gs_status st = GS_OK;
  gs_gp_gpu *g = gp->gpu;
  const int64_t n = gp->n, q = a->p;
  const size_t bytes = (size_t)n * q * sizeof(double);
  const double one = 1.0, zero = 0.0, minus = -1.0;
  double *host = (double *)malloc(bytes);
  if (!host) return gs_set_msg(msg, GS_ERR_NOMEM, "out of host memory");
  double *x = b->v + (size_t)n * q;
  GS_TRY(gs_gpu_copy_to_device(g->ctx, x, a->x, bytes, 0, msg));
  GS_TRY(gs_cublas_status(cublasDsymm_64(g->ctx->blas, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_LOWER, n, q, &one, b->p, n, x,
                                         n, &zero, b->v, n),
                          "symm", msg));
  GS_TRY(gs_gpu_copy_to_host(g->ctx, host, b->v, bytes, 0, msg));
  GS_TRY(gs_gp_deriv_trend(n, (int)q, a->x, host, msg));
  GS_TRY(gs_gpu_copy_to_device(g->ctx, b->v, host, bytes, 0, msg));
  GS_TRY(gs_cublas_status(cublasDsyrk_64(g->ctx->blas, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_N, n, q, &minus, b->v, n, &one,
                                         b->p, n),
                          "syrk", msg));
  GS_CUDA_TRY(deriv_mirror(b->p, n, g->ctx->stream[0]));
done:
  free(host);
  return st;
}

/* The pass over the pairs: traces and quadratic forms into a->trace and
 * a->quad, the generated dS into b->d. */
static gs_status deriv_pass(gs_gp *gp, const gs_gp_deriv_args *a, deriv_buffers *b, char *msg)
{
  gs_status st = GS_OK;
  gs_gp_gpu *g = gp->gpu;
  cudaStream_t s = g->ctx->stream[0];
  const long n = gp->n, tiles = (n + DERIV_TILE - 1) / DERIV_TILE;
  double acc[2 * GS_COV_NPAR];
  deriv_pass_args k = {.model = matern_deriv_prepare(&a->model),
                       .locs = g->locs, .n = n, .dim = gp->dim, .deriv = a->deriv, .k = a->k,
                       .p = b->p, .u = b->u, .d = {NULL}, .acc = b->acc};
  for (int t = 0; t < GS_COV_NPAR; ++t) k.d[t] = b->d[t];
  if (a->k > 0) GS_TRY(gs_gpu_copy_to_device(g->ctx, b->u, a->u, (size_t)n * a->k * sizeof(double), 0, msg));
  GS_CUDA_TRY(cudaMemsetAsync(b->acc, 0, sizeof acc, s));
  for (long t0 = 0; t0 < tiles; t0 += DERIV_LAUNCH_TILES) {
    const long nt = tiles - t0 < DERIV_LAUNCH_TILES ? tiles - t0 : DERIV_LAUNCH_TILES;
    deriv_pass_kernel<<<dim3((unsigned)nt, (unsigned)tiles), dim3(DERIV_TILE, DERIV_TILE), 0, s>>>(k, t0);
    GS_CUDA_TRY(cudaGetLastError());
    GS_CUDA_TRY(cudaStreamSynchronize(s));
    if (gp->progress && gp->progress(0.5 * (t0 + nt) / tiles)) { /* the pass: about half the work */
      st = gs_interrupted(msg);
      goto done;
    }
  }
  GS_CUDA_TRY(cudaMemcpyAsync(acc, b->acc, sizeof acc, cudaMemcpyDeviceToHost, s));
  GS_CUDA_TRY(cudaStreamSynchronize(s));
  for (int t = 0; t < GS_COV_NPAR; ++t) {
    if (!((a->deriv >> t) & 1)) continue;
    a->trace[t] = acc[t];
    a->quad[t] = acc[GS_COV_NPAR + t];
  }
done:
  return st;
}

/* info[s + 4 t] = tr(W_s W_t): W_t = P dS_t replaces dS_t in b->d[t] (the
 * nugget's W is P), then each trace is the dot product of W_s with the
 * transpose of W_t. */
static gs_status deriv_information(gs_gp *gp, const gs_gp_deriv_args *a, deriv_buffers *b, char *msg)
{
  gs_status st = GS_OK;
  gs_gp_gpu *g = gp->gpu;
  cublasHandle_t h = g->ctx->blas;
  const int64_t n = gp->n;
  const size_t bytes = (size_t)n * n * sizeof(double);
  const double one = 1.0, zero = 0.0;
  const double *w[GS_COV_NPAR] = {NULL};
  for (int t = 0; t < GS_COV_NPAR; ++t) {
    if (!((a->deriv >> t) & 1)) continue;
    w[t] = b->d[t] ? b->d[t] : b->p;
    if (!b->d[t]) continue;
    GS_CUDA_TRY(cudaMemcpyAsync(b->scratch, b->d[t], bytes, cudaMemcpyDeviceToDevice, g->ctx->stream[0]));
    GS_TRY(gs_cublas_status(cublasDsymm_64(h, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_LOWER, n, n, &one, b->p, n, b->scratch,
                                           n, &zero, b->d[t], n),
                            "symm", msg));
  }
  for (int t = 0; t < GS_COV_NPAR; ++t) {
    if (!w[t]) continue;
    GS_TRY(gs_cublas_status(cublasDgeam_64(h, CUBLAS_OP_T, CUBLAS_OP_N, n, n, &one, w[t], n, &zero, b->scratch, n,
                                           b->scratch, n),
                            "geam", msg));
    for (int s = 0; s <= t; ++s) {
      if (!w[s]) continue;
      double v = 0.0;
      GS_TRY(gs_cublas_status(cublasDdot_64(h, n * n, w[s], 1, b->scratch, 1, &v), "dot", msg));
      a->info[s + GS_COV_NPAR * t] = a->info[t + GS_COV_NPAR * s] = v;
    }
  }
done:
  return st;
}

/* Device memory: gp_deriv_matrices() n x n matrices, the residuals and the
 * trend (2 n max(k, q) doubles), checked against the free memory first. */
static gs_status deriv_allocate(gs_gp *gp, const gs_gp_deriv_args *a, deriv_buffers *b, char *msg)
{
  gs_status st = GS_OK;
  gs_gp_gpu *g = gp->gpu;
  const size_t n = (size_t)gp->n, nn = n * n * sizeof(double);
  const size_t cols = (size_t)(a->k > a->p ? a->k : a->p) + 1, vectors = 2 * n * cols * sizeof(double);
  const int matrices = gp_deriv_matrices(a);
  size_t free_b = 0;
  GS_TRY(gs_gpu_ctx_free_memory(g->ctx, &free_b, msg));
  if ((double)matrices * nn + vectors > (double)gs_gpu_budget(free_b)) {
    st = gs_set_msg(msg, GS_ERR_NOMEM,
                    "the likelihood's derivatives need %d n x n matrices, %.1f GB of GPU memory at n = %ld; GPU %d has "
                    "%.1f GB free",
                    matrices, matrices * (double)nn / 1e9, gp->n, gp->device, free_b / 1e9);
    goto done;
  }
  GS_CUDA_TRY(cudaMalloc(&b->p, nn));
  GS_CUDA_TRY(cudaMalloc(&b->scratch, nn));
  GS_CUDA_TRY(cudaMalloc(&b->u, vectors / 2));
  GS_CUDA_TRY(cudaMalloc(&b->v, vectors));
  GS_CUDA_TRY(cudaMalloc(&b->acc, 2 * GS_COV_NPAR * sizeof(double)));
  GS_CUDA_TRY(cudaMalloc(&b->info, sizeof(int)));
  for (int t = 0; t < GS_COV_NPAR && a->info; ++t)
    if (((a->deriv & GP_DERIV_GENERATED) >> t) & 1) GS_CUDA_TRY(cudaMalloc(&b->d[t], nn));
done:
  return st;
}

extern "C" gs_status gs_gp_gpu_derivatives(gs_gp *gp, const gs_gp_deriv_args *a, char *msg)
{
  gs_status st = GS_OK;
  deriv_buffers b = {};
  GS_CUDA_TRY(cudaSetDevice(gp->gpu->ctx->device));
  GS_TRY(deriv_allocate(gp, a, &b, msg));
  GS_TRY(deriv_inverse(gp, &b, msg));
  if (a->p > 0) GS_TRY(deriv_project(gp, a, &b, msg));
  GS_TRY(deriv_pass(gp, a, &b, msg));
  if (a->info) GS_TRY(deriv_information(gp, a, &b, msg));
done:
  cudaStreamSynchronize(gp->gpu->ctx->stream[0]);
  cudaFree(b.p);
  cudaFree(b.scratch);
  cudaFree(b.u);
  cudaFree(b.v);
  cudaFree(b.acc);
  cudaFree(b.info);
  for (int t = 0; t < GS_COV_NPAR; ++t) cudaFree(b.d[t]);
  return st;
}
