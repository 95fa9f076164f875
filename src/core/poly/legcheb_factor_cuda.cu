/* The Hankel factor's rows on the GPU (legcheb_factor_cuda.cuh): for the
 * pivots the host chose, one thread per row runs the forward substitution of
 * legcheb_factor.c's factor_row (the shared legcheb_factor_entry), so the
 * factor and the remaining diagonal agree with the CPU's to rounding; one
 * block then finds the row of largest remaining diagonal, the first on a
 * tie as on the CPU. The Hankel table is computed on the host (long double,
 * legcheb_math.h) and uploaded once per part. */
#include <math.h>

#include "gs_gpu_ctx.cuh"
#include "legcheb_factor_cuda.cuh"
#include "legcheb_math.h"

#define LCF_THREADS 256
#define LCF_ARGMAX_THREADS 1024

/* Row i of the factor into column-major l (the row's earlier entries read
 * back from there, written by the same thread) and its remaining diagonal
 * G_ii - |l_i|^2 into d; G_ij = w_i w_j hs(i + j). */
__global__ void lc_factor_rows_kernel(long m, int K, int ld, const double *hs, const double *w, const long *piv,
                                      const double *lpp, double *l, double *d)
{
  for (long i = (long)blockIdx.x * blockDim.x + threadIdx.x; i < m; i += (long)gridDim.x * blockDim.x) {
    double di = legcheb_gram(hs, w, i, i);
    for (int q = 0; q < K; ++q) {
      const double v = legcheb_factor_entry(legcheb_gram(hs, w, i, piv[q]), l + i, m, lpp + q * ld, q);
      l[(size_t)q * m + i] = v;
      di -= v * v;
    }
    d[i] = di;
  }
}

/* The better of two candidates (value, row): the larger value, on a tie the
 * smaller row, so that the reduction finds the first largest entry, the row
 * the CPU's scan finds. */
static __device__ void lc_better(double *v, long *at, double v2, long at2)
{
  if (v2 > *v || (v2 == *v && at2 < *at)) *v = v2, *at = at2;
}

/* best[0] = max_i d_i, best[1] = its first row (as a double: exact below
 * 2^53); one block. */
__global__ void lc_factor_argmax_kernel(long m, const double *d, double *best)
{
  __shared__ double sv[LCF_ARGMAX_THREADS];
  __shared__ long sat[LCF_ARGMAX_THREADS];
  double v = -INFINITY;
  long at = m;
  for (long i = threadIdx.x; i < m; i += blockDim.x) lc_better(&v, &at, d[i], i);
  sv[threadIdx.x] = v;
  sat[threadIdx.x] = at;
  __syncthreads();
  for (int h = blockDim.x / 2; h > 0; h /= 2) {
    if ((int)threadIdx.x < h) lc_better(&sv[threadIdx.x], &sat[threadIdx.x], sv[threadIdx.x + h], sat[threadIdx.x + h]);
    __syncthreads();
  }
  if (threadIdx.x == 0) best[0] = sv[0], best[1] = (double)sat[0];
}

/* *buf holds at least need doubles of device memory (contents dropped when
 * it grows). */
static cudaError_t lc_grow(double **buf, size_t *cap, size_t need)
{
  if (need <= *cap) return cudaSuccess;
  cudaFree(*buf);
  *buf = NULL;
  *cap = 0;
  const cudaError_t e = cudaMalloc(buf, need * sizeof(double));
  if (e == cudaSuccess) *cap = need;
  return e;
}

/* One pass (legcheb_rows): the table on the first call of a part, the
 * pivots and their rows, then every row and the argmax. */
static gs_status lc_factor_pass(lc_factor *f, const legcheb_part *pt, int first, const double *hs, const double *w,
                                const long *piv, const double *lpp, int ld, long *argmax, double *dmax)
{
  gs_status st = GS_OK;
  char *msg = f->msg;
  const long m = pt->m;
  const int K = pt->rank;
  const size_t rows_doubles = (size_t)K * ld;
  double best[2] = {0.0, 0.0};
  if (!f->best) GS_CUDA_TRY(cudaMalloc(&f->best, 2 * sizeof(double)));
  if (first) {
    if (f->m < m) {
      cudaFree(f->table);
      f->table = NULL;
      f->m = 0;
      GS_CUDA_TRY(cudaMalloc(&f->table, 4 * (size_t)m * sizeof(double)));
      f->m = m;
    }
    GS_CUDA_TRY(cudaMemcpyAsync(f->table, hs, (2 * m - 1) * sizeof(double), cudaMemcpyHostToDevice, f->stream));
    GS_CUDA_TRY(cudaMemcpyAsync(f->table + 2 * m, w, m * sizeof(double), cudaMemcpyHostToDevice, f->stream));
  }
  GS_CUDA_TRY(lc_grow(&f->l, &f->l_cap, (size_t)m * (K > 0 ? K : 1)));
  GS_CUDA_TRY(lc_grow(&f->small, &f->small_cap, rows_doubles + K + 1));
  GS_CUDA_TRY(cudaMemcpyAsync(f->small, lpp, rows_doubles * sizeof(double), cudaMemcpyHostToDevice, f->stream));
  GS_CUDA_TRY(cudaMemcpyAsync(f->small + rows_doubles, piv, K * sizeof(long), cudaMemcpyHostToDevice, f->stream));
  {
    const long blocks = (m + LCF_THREADS - 1) / LCF_THREADS;
    double *d = f->table + 3 * m;
    lc_factor_rows_kernel<<<(unsigned)(blocks < 65535 ? blocks : 65535), LCF_THREADS, 0, f->stream>>>(
        m, K, ld, f->table, f->table + 2 * m, (const long *)(f->small + rows_doubles), f->small, f->l, d);
    lc_factor_argmax_kernel<<<1, LCF_ARGMAX_THREADS, 0, f->stream>>>(m, d, f->best);
  }
  GS_CUDA_TRY(cudaGetLastError());
  GS_CUDA_TRY(cudaMemcpyAsync(best, f->best, sizeof best, cudaMemcpyDeviceToHost, f->stream));
  GS_CUDA_TRY(cudaStreamSynchronize(f->stream));
  *dmax = best[0];
  *argmax = (long)best[1];
done:
  return st;
}

static int lc_factor_rows(void *ctx, const legcheb_part *pt, int first, const double *hs, const double *w,
                          const long *piv, const double *lpp, int ld, long *argmax, double *dmax)
{
  lc_factor *f = (lc_factor *)ctx;
  f->st = lc_factor_pass(f, pt, first, hs, w, piv, lpp, ld, argmax, dmax);
  return f->st == GS_OK;
}

void lc_factor_init(lc_factor *f, cudaStream_t stream)
{
  *f = lc_factor();
  f->stream = stream;
  f->st = GS_OK;
}

legcheb_rows lc_factor_rows_of(lc_factor *f) { return (legcheb_rows){.rows = lc_factor_rows, .ctx = f}; }

void lc_factor_free(lc_factor *f)
{
  cudaFree(f->table);
  cudaFree(f->l);
  cudaFree(f->small);
  cudaFree(f->best);
  lc_factor_init(f, f->stream);
}
