/* Jones-Worland transforms on the GPU. Connection: one thread per column
 * runs the bidiagonal chain (jw_chain_down/up of poly_math.h, the CPU's
 * arithmetic) and the DCT goes through cuFFT (poly_dct_device).
 * Quadrature: the matrix of polynomial values (jw_unit_values, one thread
 * per node) and a cuBLAS DGEMM. Columns are in column-major order, so the
 * chain's loads are not coalesced: a first version, not tuned. */
#include "gs_gpu_ctx.cuh"
#include "gs_poly.h"
#include "poly_cuda.cuh"
#include "poly_internal.h"
#include "poly_math.h"

#define JW_THREADS 128

typedef struct {
  const double *mu, *nu;
  long len;
  int l0, l;
  long ncoef, nr, ncol, top;
} jw_chain_args;

/* Synthesis: column j of coef (ncoef) into column j of t (nr), chained and scaled for the DCT. */
__global__ void jw_down_kernel(jw_chain_args a, const double *coef, double *t)
{
  const long j = (long)blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= a.ncol) return;
  double *tj = t + j * a.nr;
  for (long n = 0; n < a.nr; ++n) tj[n] = n < a.ncoef ? coef[j * a.ncoef + n] : 0.0;
  jw_chain_down(a.mu, a.nu, a.len, a.l0, a.l, a.ncoef, tj);
  for (long n = 0; n < a.top; ++n) tj[n] *= jw_dct_scale(a.l0, n, 0, a.nr);
}

/* Analysis: column j of t (DCT outputs) scaled and chained into column j of coef. */
__global__ void jw_up_kernel(jw_chain_args a, double *t, double *coef)
{
  const long j = (long)blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= a.ncol) return;
  double *tj = t + j * a.nr;
  for (long n = 0; n < a.top; ++n) tj[n] *= jw_dct_scale(a.l0, n, 1, a.nr);
  jw_chain_up(a.mu, a.nu, a.len, a.l0, a.l, a.ncoef, tj);
  for (long n = 0; n < a.ncoef; ++n) coef[j * a.ncoef + n] = tj[n];
}

__global__ void jw_matrix_kernel(int l, long ncoef, long nr, double q0, double *q)
{
  const long k = (long)blockIdx.x * blockDim.x + threadIdx.x;
  if (k < nr) jw_unit_values(l, (int)ncoef, jw_node(k, nr), q0, q + k, nr);
}

static unsigned jw_blocks(long n) { return (unsigned)((n + JW_THREADS - 1) / JW_THREADS); }

static gs_status jw_connection_gpu(gs_gpu_ctx *c, const gs_jwt_args *a, int analysis, char *msg)
{
  gs_status st = GS_OK;
  gs_jw_chain ch;
  const long top = a->ncoef + a->l / 2, nr = a->nr;
  const int made = gs_jw_chain_make(&ch, a->l, top + 1);
  const int type = ch.l0 ? 4 : (analysis ? 2 : 3);
  const size_t tab = (size_t)(ch.levels > 0 ? ch.levels : 1) * ch.len * sizeof(double);
  const size_t tbytes = (size_t)nr * a->ncol * sizeof(double), cbytes = (size_t)a->ncoef * a->ncol * sizeof(double);
  char *work = NULL;
  if (!made) {
    st = gs_set_msg(msg, GS_ERR_NOMEM, "no memory for the connection tables");
    goto done;
  }
  if (top > nr) {
    st = gs_set_msg(msg, GS_ERR_ARG, "the grid of %ld points is too small for %ld coefficients of degree %d", nr,
                    a->ncoef, a->l);
    goto done;
  }
  GS_TRY(gs_gpu_ctx_workspace(c, 2 * tab + tbytes + cbytes + poly_dct_scratch_bytes(type, nr, a->ncol), (void **)&work,
                              msg));
  {
    double *mu = (double *)work, *nu = (double *)(work + tab), *t = (double *)(work + 2 * tab);
    double *cf = (double *)((char *)t + tbytes);
    void *scratch = (char *)cf + cbytes;
    const jw_chain_args ca = {mu, nu, ch.len, ch.l0, a->l, a->ncoef, nr, a->ncol, top};
    cudaStream_t s = c->stream[0];
    GS_TRY(gs_gpu_copy_to_device(c, mu, ch.mu, tab, 0, msg));
    GS_TRY(gs_gpu_copy_to_device(c, nu, ch.nu, tab, 0, msg));
    if (!analysis) {
      GS_TRY(gs_gpu_copy_to_device(c, cf, a->coef, cbytes, 0, msg));
      jw_down_kernel<<<jw_blocks(a->ncol), JW_THREADS, 0, s>>>(ca, cf, t);
      GS_CUDA_TRY(cudaGetLastError());
      GS_TRY(poly_dct_device(type, nr, a->ncol, t, scratch, s, msg));
      GS_TRY(gs_gpu_copy_to_host(c, a->values, t, tbytes, 0, msg));
    } else {
      GS_TRY(gs_gpu_copy_to_device(c, t, a->values, tbytes, 0, msg));
      GS_TRY(poly_dct_device(type, nr, a->ncol, t, scratch, s, msg));
      jw_up_kernel<<<jw_blocks(a->ncol), JW_THREADS, 0, s>>>(ca, t, cf);
      GS_CUDA_TRY(cudaGetLastError());
      GS_TRY(gs_gpu_copy_to_host(c, a->coef, cf, cbytes, 0, msg));
    }
  }
done:
  gs_jw_chain_free(&ch);
  return st;
}

static gs_status jw_quadrature_gpu(gs_gpu_ctx *c, const gs_jwt_args *a, int analysis, char *msg)
{
  gs_status st = GS_OK;
  const size_t qbytes = (size_t)a->nr * a->ncoef * sizeof(double);
  const size_t vbytes = (size_t)a->nr * a->ncol * sizeof(double), cbytes = (size_t)a->ncoef * a->ncol * sizeof(double);
  const int nr = (int)a->nr, nc = (int)a->ncoef, ncol = (int)a->ncol;
  const double zero = 0.0, one = 1.0, w = jw_weight(a->nr);
  char *work = NULL;
  GS_TRY(gs_gpu_ctx_solvers(c, msg));
  GS_TRY(gs_gpu_ctx_workspace(c, qbytes + vbytes + cbytes, (void **)&work, msg));
  {
    double *q = (double *)work, *v = (double *)(work + qbytes), *cf = (double *)(work + qbytes + vbytes);
    jw_matrix_kernel<<<jw_blocks(a->nr), JW_THREADS, 0, c->stream[0]>>>(a->l, a->ncoef, a->nr, gs_jw_q0(a->l), q);
    GS_CUDA_TRY(cudaGetLastError());
    if (analysis) {
      GS_TRY(gs_gpu_copy_to_device(c, v, a->values, vbytes, 0, msg));
      GS_TRY(gs_cublas_status(cublasDgemm(c->blas, CUBLAS_OP_T, CUBLAS_OP_N, nc, ncol, nr, &w, q, nr, v, nr, &zero, cf, nc),
                              "cublasDgemm", msg));
      GS_TRY(gs_gpu_copy_to_host(c, a->coef, cf, cbytes, 0, msg));
    } else {
      GS_TRY(gs_gpu_copy_to_device(c, cf, a->coef, cbytes, 0, msg));
      GS_TRY(gs_cublas_status(cublasDgemm(c->blas, CUBLAS_OP_N, CUBLAS_OP_N, nr, ncol, nc, &one, q, nr, cf, nc, &zero, v, nr),
                              "cublasDgemm", msg));
      GS_TRY(gs_gpu_copy_to_host(c, a->values, v, vbytes, 0, msg));
    }
  }
done:
  return st;
}

static gs_status jwt_gpu(int device, const gs_jwt_args *a, int analysis, char *msg)
{
  gs_status st = GS_OK;
  gs_gpu_ctx *c = NULL;
  if (a->ncol < 1 || a->nr < 1) return GS_OK;
  GS_TRY(gs_gpu_ctx_get(device, &c, msg));
  st = a->method == GS_JW_QUADRATURE ? jw_quadrature_gpu(c, a, analysis, msg) : jw_connection_gpu(c, a, analysis, msg);
done:
  if (c) cudaStreamSynchronize(c->stream[0]);
  return st;
}

extern "C" gs_status gs_jwt_synthesis_gpu(int device, const gs_jwt_args *a, char *msg)
{
  return jwt_gpu(device, a, 0, msg);
}

extern "C" gs_status gs_jwt_analysis_gpu(int device, const gs_jwt_args *a, char *msg)
{
  return jwt_gpu(device, a, 1, msg);
}
