/* Kriging on the GPU that holds the factor (gs_gp_krige): a block of new
 * locations at a time, their cross-covariances are generated in device
 * memory by the Matérn kernel, solved there against the factor (cuBLAS's
 * trsm on the whole matrix, or the solve of the resident tiles), and
 * reduced there by cuBLAS products and a kernel for the standard errors;
 * only the predictions and standard errors come back to the host. */
#include "gp_gpu.cuh"
#include "gp_krige_math.h"
#include "gs_matern_cuda.cuh"
#include "gs_tile_cuda.cuh"

#define KRIGE_THREADS 256
/* The cross-covariances of a block take at most this much device memory:
 * at n = 50,000, 10,000 new locations at once, whose solve (25 TFLOP) takes
 * long enough that the transfers and launches around it do not count, and
 * short enough for prompt interrupt checks. */
#define KRIGE_BLOCK_BYTES ((size_t)4 << 30)

/* se[j] for column j of wc (n x gridDim.x): the block's threads sum its
 * squares, then gp_krige_se with row j of x0 (leading dimension ldx) and
 * column j of g (p x gridDim.x). */
__global__ void krige_se_kernel(const double *wc, long n, const double *g, const double *x0, long ldx,
                                const double *a, int p, double sigma2, double *se)
{
  __shared__ double part[KRIGE_THREADS];
  const long j = blockIdx.x;
  const double *col = wc + (size_t)j * n;
  double s = 0.0;
  for (long i = threadIdx.x; i < n; i += KRIGE_THREADS) s = fma(col[i], col[i], s);
  part[threadIdx.x] = s;
  __syncthreads();
  for (int h = KRIGE_THREADS / 2; h > 0; h /= 2) {
    if (threadIdx.x < h) part[threadIdx.x] += part[threadIdx.x + h];
    __syncthreads();
  }
  if (threadIdx.x == 0) se[j] = gp_krige_se(sigma2, part[0], x0 + j, ldx, g + (size_t)j * p, a, p);
}

/* b = op(L)^-1 b (n x cols, on the device) with the factor on the device:
 * L^-1 (trans = 0) or L'^-1. */
static gs_status krige_solve(gs_gp *gp, gs_gpu_ctx *c, int trans, double *b, long cols, double *fp64, char *msg)
{
  if (gp->tiles)
    return gs_tile_resident_apply_device(gp->tiles, c, trans ? GS_TILE_BACKWARD : GS_TILE_FORWARD, b, (int)cols,
                                         fp64, msg);
  const double one = 1.0;
  return gs_cublas_status(cublasDtrsm_64(c->blas, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_LOWER,
                                         trans ? CUBLAS_OP_T : CUBLAS_OP_N, CUBLAS_DIAG_NON_UNIT, gp->n, cols, &one,
                                         gp->gpu->a, gp->n, b, gp->n),
                          "trsm", msg);
}

/* Rows [j0, j0 + rows) of the m x cols host matrix x into the rows x cols
 * device matrix d. */
static cudaError_t krige_upload_rows(double *d, const double *x, long m, long j0, long rows, int cols, cudaStream_t s)
{
  if (cols == 0) return cudaSuccess;
  return cudaMemcpy2DAsync(d, rows * sizeof(double), x + j0, m * sizeof(double), rows * sizeof(double), cols,
                           cudaMemcpyHostToDevice, s);
}

extern "C" gs_status gs_gp_gpu_krige(gs_gp *gp, const gs_gp_krige_args *a, char *msg)
{
  gs_status st = GS_OK;
  gs_tile_matrix *tiles = gp->tiles;
  const long n = gp->n, m = a->m;
  const int dim = a->dim, p = a->p, k = a->k;
  const double one = 1.0, zero = 0.0;
  gs_gpu_ctx *c = NULL;
  size_t free_b = 0;
  char *work = NULL;
  GS_TRY(gs_gpu_ctx_get(gp->device, &c, msg));
  GS_TRY(gs_gpu_ctx_solvers(c, msg));
  GS_TRY(gs_gpu_ctx_free_memory(c, &free_b, msg));
  {
    cudaStream_t s = c->stream[0];
    cublasHandle_t h = c->blas;
    /* what stays for the whole call (with tiles: the locations, which only
     * the dense backend keeps on the device, and in mixed precision a tile
     * converted to FP64), then what each new location of a block takes */
    const size_t own_locs = tiles ? (size_t)n * dim : 0, fp64 = tiles && tiles->low_tiles ? (size_t)tiles->nb * tiles->nb : 0;
    const size_t fixed = (own_locs + fp64 + (size_t)n * (p + k) + (size_t)p * (k + p)) * sizeof(double);
    const size_t per_location = ((size_t)n + dim + 2 * p + k + 1) * sizeof(double);
    const size_t usable = gs_gpu_budget(free_b);
    long most = usable > fixed ? (long)((usable - fixed) / per_location) : 0;
    if (most > (long)(KRIGE_BLOCK_BYTES / (n * sizeof(double)))) most = (long)(KRIGE_BLOCK_BYTES / (n * sizeof(double)));
    if (most > m) most = m;
    if (most < 1) {
      st = gs_set_msg(msg, GS_ERR_NOMEM, "kriging at n = %ld needs %.2f GB of GPU memory; GPU %d has %.2f GB free", n,
                      (fixed + per_location) / 1e9, gp->device, free_b / 1e9);
      goto done;
    }
    GS_TRY(gs_gpu_ctx_workspace(c, fixed + (size_t)most * per_location, (void **)&work, msg));
    double *dw = (double *)work, *dr = dw + (size_t)n * p, *dbeta = dr + (size_t)n * k, *da = dbeta + (size_t)p * k;
    double *dobs = da + (size_t)p * p, *dfp64 = dobs + own_locs, *dc = dfp64 + fp64;
    double *dlocs = dc + (size_t)n * most, *dx0 = dlocs + (size_t)most * dim, *dfit = dx0 + (size_t)most * p;
    double *dg = dfit + (size_t)most * k, *dse = dg + (size_t)most * p;
    const double *obs = tiles ? dobs : gp->gpu->locs;
    GS_TRY(gs_gpu_copy_to_device(c, dw, a->w, (size_t)n * p * sizeof(double), 0, msg));
    GS_TRY(gs_gpu_copy_to_device(c, dr, a->r, (size_t)n * k * sizeof(double), 0, msg));
    GS_TRY(gs_gpu_copy_to_device(c, dbeta, a->beta, (size_t)p * k * sizeof(double), 0, msg));
    GS_TRY(gs_gpu_copy_to_device(c, da, a->a, (size_t)p * p * sizeof(double), 0, msg));
    GS_TRY(gs_gpu_copy_to_device(c, dobs, gp->locs, own_locs * sizeof(double), 0, msg));
    /* predictions alone: c_0' Sigma^-1 (Y - X B) = c_0' (L'^-1 R) */
    if (!a->se) GS_TRY(krige_solve(gp, c, 1, dr, k, dfp64, msg));
    for (long j0 = 0; j0 < m; j0 += most) {
      const long rows = m - j0 < most ? m - j0 : most;
      GS_CUDA_TRY(krige_upload_rows(dlocs, a->locs, m, j0, rows, dim, s));
      GS_CUDA_TRY(krige_upload_rows(dx0, a->x0, m, j0, rows, p, s));
      {
        const gs_matern_cov_args cov = {.locs1 = gp->locs, .n1 = n, .locs2 = a->locs, .n2 = rows, .dim = dim,
                                        .model = a->model, .lower_only = 0, .out = NULL};
        const matern_tile_args t = matern_tile_setup(&cov, obs, dlocs);
        GS_CUDA_TRY(matern_tile_launch(&t, 0, rows, dc, s));
      }
      /* fit = x0 B, then + c_0' L'^-1 R or + (L^-1 c_0)' R */
      if (p)
        GS_TRY(gs_cublas_status(cublasDgemm_64(h, CUBLAS_OP_N, CUBLAS_OP_N, rows, k, p, &one, dx0, rows, dbeta, p,
                                               &zero, dfit, rows),
                                "gemm", msg));
      else
        GS_CUDA_TRY(cudaMemsetAsync(dfit, 0, (size_t)rows * k * sizeof(double), s));
      if (a->se) GS_TRY(krige_solve(gp, c, 0, dc, rows, dfp64, msg));
      GS_TRY(gs_cublas_status(
          cublasDgemm_64(h, CUBLAS_OP_T, CUBLAS_OP_N, rows, k, n, &one, dc, n, dr, n, &one, dfit, rows), "gemm", msg));
      GS_CUDA_TRY(cudaMemcpy2DAsync(a->fit + j0, m * sizeof(double), dfit, rows * sizeof(double),
                                    rows * sizeof(double), k, cudaMemcpyDeviceToHost, s));
      if (a->se) {
        if (p)
          GS_TRY(gs_cublas_status(
              cublasDgemm_64(h, CUBLAS_OP_T, CUBLAS_OP_N, p, rows, n, &one, dw, n, dc, n, &zero, dg, p), "gemm", msg));
        krige_se_kernel<<<(unsigned)rows, KRIGE_THREADS, 0, s>>>(dc, n, dg, dx0, rows, da, p,
                                                                 a->model.par[GS_COV_SIGMA2], dse);
        GS_CUDA_TRY(cudaGetLastError());
        GS_CUDA_TRY(cudaMemcpyAsync(a->se + j0, dse, rows * sizeof(double), cudaMemcpyDeviceToHost, s));
      }
      GS_CUDA_TRY(cudaStreamSynchronize(s));
      if (gp->progress && gp->progress((double)(j0 + rows) / m)) {
        st = gs_interrupted(msg);
        goto done;
      }
    }
  }
done:
  if (c) cudaStreamSynchronize(c->stream[0]);
  cudaGetLastError();
  return st;
}
