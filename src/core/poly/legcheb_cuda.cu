/* The Toeplitz-Hankel Legendre <-> Chebyshev conversions on the GPU (the
 * method: legcheb_th.c). The Hankel factor of both parities comes from
 * legcheb_factor.c, its pivots and stopping rule on the host and its rows,
 * the O(n K^2) part, on the device (legcheb_factor_cuda.cu, the CPU's
 * arithmetic); the device then does, for a chunk of w columns and each
 * parity,
 *   spread:   re_(c,r) = l_r o col o x_c (zero-padded to len), K w inputs,
 *   one batched in-place D2Z over the K w inputs,
 *   multiply by the Toeplitz spectrum (one per parity, transformed once),
 *   one batched in-place Z2D,
 *   gather:   y_c = row o sum_r l_r o re_(c,r),
 * with the element arithmetic of legcheb_math.h that the CPU path uses. Both
 * parities share one length and one pair of plans: the factor of the parity
 * of smaller rank is padded with zero columns to the larger rank K. The row
 * of degree 0 of Chebyshev -> Legendre is a dot product per column. */
#include <stdint.h>
#include <string.h>

#include <cufft.h>

#include "gs_cpu.h"
#include "gs_gpu_ctx.cuh"
#include "gs_poly.h"
#include "legcheb_factor_cuda.cuh"
#include "legcheb_internal.h"
#include "legcheb_math.h"

#define LC_THREADS 256
#define LC_ALIGN 256 /* cuFFT rejects real arrays that are only 8-byte aligned */

static gs_status lc_cufft(cufftResult r, const char *what, char *msg)
{
  if (r == CUFFT_SUCCESS) return GS_OK;
  return gs_set_msg(msg, r == CUFFT_ALLOC_FAILED ? GS_ERR_NOMEM : GS_ERR_CUDA,
                    "cuFFT %s failed in the Legendre-Chebyshev conversion (status %d)", what, (int)r);
}

/* The columns' inputs of term r of a part: batch entry b = c K + r, entries
 * of length ld (the padded real layout of an in-place D2Z); columns from
 * `valid` on (a short last chunk) are zero. */
__global__ void lc_spread(long m, long off, long n, int K, int valid, long nb, long len, long ld, const double *l,
                          const double *col, const double *x, double *re)
{
  for (long b = blockIdx.y; b < nb; b += gridDim.y) {
    const int c = (int)(b / K), r = (int)(b % K);
    const double *lr = l + (size_t)r * m, *xc = x + (size_t)c * n;
    double *out = re + (size_t)b * ld;
    for (long j = (long)blockIdx.x * blockDim.x + threadIdx.x; j < len; j += (long)gridDim.x * blockDim.x)
      out[j] = j < m && c < valid ? legcheb_spread(lr[j], col[j], xc[2 * j + off]) : 0.0;
  }
}

/* Every spectrum of the batch times the part's Toeplitz spectrum t. */
__global__ void lc_multiply(long nb, long half, const double2 *t, double2 *sp)
{
  for (long b = blockIdx.y; b < nb; b += gridDim.y) {
    double2 *s = sp + (size_t)b * half;
    for (long q = (long)blockIdx.x * blockDim.x + threadIdx.x; q < half; q += (long)gridDim.x * blockDim.x)
      legcheb_spectrum_product(&s[q].x, &s[q].y, t[q].x, t[q].y);
  }
}

/* y_c[2 i + off] = row_i sum_r l_r(i) re_(c,r)(i), the terms in order of r. */
__global__ void lc_gather(long m, long off, long n, int K, int valid, long ld, const double *l, const double *row,
                          const double *re, double *y)
{
  for (long c = blockIdx.y; c < valid; c += gridDim.y) {
    const double *rc = re + (size_t)c * K * ld;
    for (long i = (long)blockIdx.x * blockDim.x + threadIdx.x; i < m; i += (long)gridDim.x * blockDim.x) {
      double s = 0.0;
      for (int r = 0; r < K; ++r) s += l[(size_t)r * m + i] * rc[(size_t)r * ld + i];
      y[(size_t)c * n + 2 * i + off] = row[i] * s;
    }
  }
}

/* The Toeplitz spectra of both parts from the transforms of their columns
 * (entries 0 and 1 of the batch, in place). */
__global__ void lc_toeplitz_spectrum(long half, long len, const double2 *tf, double2 *t)
{
  for (long q = (long)blockIdx.x * blockDim.x + threadIdx.x; q < 2 * half; q += (long)gridDim.x * blockDim.x) {
    double2 v = tf[q];
    legcheb_toeplitz_spectrum(&v.x, &v.y, len);
    t[q] = v;
  }
}

/* Chebyshev -> Legendre, y_c[0] = sum over even j of w[j / 2] x_c[j]: one
 * block per column, a fixed reduction order. */
__global__ void lc_degree_zero(long n, int valid, const double *w, const double *x, double *y)
{
  __shared__ double part[LC_THREADS];
  for (long c = blockIdx.x; c < valid; c += gridDim.x) {
    double s = 0.0;
    for (long j = 2 * threadIdx.x; j < n; j += 2 * LC_THREADS) s += w[j / 2] * x[(size_t)c * n + j];
    part[threadIdx.x] = s;
    __syncthreads();
    for (int h = LC_THREADS / 2; h > 0; h /= 2) {
      if ((int)threadIdx.x < h) part[threadIdx.x] += part[threadIdx.x + h];
      __syncthreads();
    }
    if (threadIdx.x == 0) y[(size_t)c * n] = part[0];
    __syncthreads();
  }
}

static dim3 lc_grid(long len, long batch)
{
  long bx = (len + LC_THREADS - 1) / LC_THREADS;
  if (bx > 4096) bx = 4096;
  if (bx < 1) bx = 1;
  return dim3((unsigned)bx, (unsigned)(batch < 65535 ? (batch > 0 ? batch : 1) : 65535));
}

/* The host side of one call: both parts, the sizes and the device layout. */
typedef struct {
  legcheb_part part[2];
  lc_factor factor[2]; /* the parts' factors, in device memory until copied into l */
  double *row0; /* Chebyshev -> Legendre only */
  long n, len, half, ld;
  int K, w;     /* padded rank, columns per chunk */
  long nb;      /* transforms per batch: w K, at least 2 (the Toeplitz columns) */
  cufftHandle fwd, inv;
  int planned;
  /* device */
  double *x, *y, *re, *l[2], *row[2], *col[2], *deg0;
  double2 *tspec; /* 2 x half */
  void *fft_work;
} lc_call;

/* Device bytes of the tables (factors, scalings, spectra) and per column. */
static size_t lc_fixed_bytes(const lc_call *p)
{
  size_t b = 2 * (size_t)p->half * sizeof(double2) + (size_t)(p->n / 2 + 1 + 2 * p->ld) * sizeof(double) +
             16 * LC_ALIGN;
  for (int q = 0; q < 2; ++q) b += (size_t)p->part[q].m * (p->K + 2) * sizeof(double);
  return b;
}

static size_t lc_column_bytes(const lc_call *p)
{
  return 2 * (size_t)p->n * sizeof(double) + (size_t)p->K * p->ld * sizeof(double);
}

static char *lc_carve(char **cur, size_t bytes)
{
  char *p = (char *)(((uintptr_t)*cur + LC_ALIGN - 1) & ~(uintptr_t)(LC_ALIGN - 1));
  *cur = p + bytes;
  return p;
}

/* The batched in-place plans for p->nb transforms of length len, without
 * work area of their own; *work: the larger of their work areas. */
static gs_status lc_plans(lc_call *p, cudaStream_t s, size_t *work, char *msg)
{
  gs_status st = GS_OK;
  long long len = p->len, ld = p->ld, half = p->half, nb = p->nb;
  size_t wf = 0, wi = 0;
  GS_TRY(lc_cufft(cufftCreate(&p->fwd), "plan creation", msg));
  p->planned = 1;
  GS_TRY(lc_cufft(cufftCreate(&p->inv), "plan creation", msg));
  p->planned = 2;
  GS_TRY(lc_cufft(cufftSetAutoAllocation(p->fwd, 0), "planning", msg));
  GS_TRY(lc_cufft(cufftSetAutoAllocation(p->inv, 0), "planning", msg));
  GS_TRY(lc_cufft(cufftMakePlanMany64(p->fwd, 1, &len, &ld, 1, ld, &half, 1, half, CUFFT_D2Z, nb, &wf), "planning", msg));
  GS_TRY(lc_cufft(cufftMakePlanMany64(p->inv, 1, &len, &half, 1, half, &ld, 1, ld, CUFFT_Z2D, nb, &wi), "planning", msg));
  GS_TRY(lc_cufft(cufftSetStream(p->fwd, s), "planning", msg));
  GS_TRY(lc_cufft(cufftSetStream(p->inv, s), "planning", msg));
  *work = wf > wi ? wf : wi;
done:
  return st;
}

/* Both parts' factors (the host's threads for the Hankel tables, the
 * device for the rows), the padded rank and the lengths. */
static gs_status lc_prepare(lc_call *p, const gs_legcheb_args *a, int threads, gs_progress_fn progress, cudaStream_t s,
                            char *msg)
{
  const legcheb_progress at_start = {progress, 0.0};
  const long n = a->n;
  p->n = n;
  p->len = legcheb_fft_length(n) > 2 ? legcheb_fft_length(n) : 2;
  p->half = p->len / 2 + 1;
  p->ld = 2 * p->half;
  p->K = 0;
  for (int q = 0; q < 2; ++q) {
    lc_factor_init(&p->factor[q], s);
    const legcheb_rows rows = lc_factor_rows_of(&p->factor[q]);
    if (!legcheb_part_alloc(&p->part[q], (n + 1) / 2))
      return gs_set_msg(msg, GS_ERR_NOMEM, "no memory for the Toeplitz-Hankel transform of size %ld", n);
    const gs_status st = legcheb_part_prepare(&p->part[q], a->to_chebyshev, q, n, gs_cpu_threads(threads), &rows,
                                              &at_start, msg);
    if (p->factor[q].st != GS_OK) return gs_set_msg(msg, p->factor[q].st, "%s", p->factor[q].msg);
    if (st != GS_OK) return st;
    if (p->part[q].rank > p->K) p->K = p->part[q].rank;
  }
  if (!a->to_chebyshev && !(p->row0 = legcheb_degree_zero_row(n)))
    return gs_set_msg(msg, GS_ERR_NOMEM, "no memory for the Toeplitz-Hankel transform of size %ld", n);
  return GS_OK;
}

/* Columns per chunk from the free device memory, the plans, the workspace
 * and its layout. */
static gs_status lc_layout(lc_call *p, gs_gpu_ctx *c, long ncol, char *msg)
{
  gs_status st = GS_OK;
  size_t free_b = 0, work = 0;
  char *base = NULL, *cur;
  GS_TRY(gs_gpu_ctx_free_memory(c, &free_b, msg));
  {
    /* as much again per column for cuFFT's work area */
    const size_t budget = gs_gpu_budget(free_b), fixed = lc_fixed_bytes(p), per_col = 2 * lc_column_bytes(p);
    long w = budget > fixed ? (long)((budget - fixed) / per_col) : 0;
    if (w < 1)
      return gs_set_msg(msg, GS_ERR_NOMEM, "not enough GPU memory for a Legendre-Chebyshev conversion of size %ld",
                        p->n);
    if (w > ncol) w = ncol;
    if (w > 1048576) w = 1048576;
    const long chunks = (ncol + w - 1) / w;
    p->w = (int)((ncol + chunks - 1) / chunks); /* equal chunks: the last one wastes little */
  }
  /* no plans where both parts are empty (Chebyshev -> Legendre of size 1) */
  p->nb = p->K == 0 ? 0 : (long)p->w * p->K > 2 ? (long)p->w * p->K : 2;
  if (p->nb > 0) GS_TRY(lc_plans(p, c->stream[0], &work, msg));
  GS_TRY(gs_gpu_ctx_workspace(c, lc_fixed_bytes(p) + lc_column_bytes(p) * p->w + work + 4 * LC_ALIGN, (void **)&base,
                              msg));
  cur = base;
  p->re = (double *)lc_carve(&cur, (size_t)p->nb * p->ld * sizeof(double));
  p->x = (double *)lc_carve(&cur, (size_t)p->w * p->n * sizeof(double));
  p->y = (double *)lc_carve(&cur, (size_t)p->w * p->n * sizeof(double));
  p->tspec = (double2 *)lc_carve(&cur, 2 * (size_t)p->half * sizeof(double2));
  p->deg0 = (double *)lc_carve(&cur, (size_t)(p->n / 2 + 1) * sizeof(double));
  for (int q = 0; q < 2; ++q) {
    p->l[q] = (double *)lc_carve(&cur, (size_t)p->part[q].m * p->K * sizeof(double));
    p->row[q] = (double *)lc_carve(&cur, (size_t)p->part[q].m * sizeof(double));
    p->col[q] = (double *)lc_carve(&cur, (size_t)p->part[q].m * sizeof(double));
  }
  p->fft_work = lc_carve(&cur, work);
  if (p->nb > 0) {
    GS_TRY(lc_cufft(cufftSetWorkArea(p->fwd, p->fft_work), "planning", msg));
    GS_TRY(lc_cufft(cufftSetWorkArea(p->inv, p->fft_work), "planning", msg));
  }
done:
  return st;
}

/* The factors (zero columns from the rank to K), the scalings, the row of
 * degree 0 and the Toeplitz spectra to the device. The spectra are made with
 * the batched plan: the two Toeplitz columns are entries 0 and 1 of the
 * batch, the others zero. */
static gs_status lc_upload(lc_call *p, gs_gpu_ctx *c, int to_chebyshev, char *msg)
{
  gs_status st = GS_OK;
  cudaStream_t s = c->stream[0];
  double *tcol = (double *)malloc((size_t)p->ld * sizeof(double));
  if (!tcol) return gs_set_msg(msg, GS_ERR_NOMEM, "no memory for the Toeplitz-Hankel transform of size %ld", p->n);
  GS_CUDA_TRY(cudaMemsetAsync(p->re, 0, (size_t)p->nb * p->ld * sizeof(double), s));
  for (int q = 0; q < 2; ++q) {
    const legcheb_part *pt = &p->part[q];
    const size_t mb = (size_t)pt->m * sizeof(double);
    if (pt->m == 0) continue;
    GS_CUDA_TRY(cudaMemcpyAsync(p->l[q], p->factor[q].l, mb * pt->rank, cudaMemcpyDeviceToDevice, s));
    GS_CUDA_TRY(cudaMemsetAsync(p->l[q] + (size_t)pt->m * pt->rank, 0, mb * (p->K - pt->rank), s));
    GS_TRY(gs_gpu_copy_to_device(c, p->row[q], pt->row, mb, 0, msg));
    GS_TRY(gs_gpu_copy_to_device(c, p->col[q], pt->col, mb, 0, msg));
    legcheb_toeplitz_column(pt, to_chebyshev, p->len, tcol);
    GS_TRY(gs_gpu_copy_to_device(c, p->re + (size_t)q * p->ld, tcol, (size_t)p->len * sizeof(double), 0, msg));
  }
  if (p->row0) GS_TRY(gs_gpu_copy_to_device(c, p->deg0, p->row0, (size_t)(p->n / 2 + 1) * sizeof(double), 0, msg));
  if (p->nb == 0) goto done;
  GS_TRY(lc_cufft(cufftExecD2Z(p->fwd, p->re, (cufftDoubleComplex *)p->re), "execution", msg));
  lc_toeplitz_spectrum<<<lc_grid(2 * p->half, 1).x, LC_THREADS, 0, s>>>(p->half, p->len, (const double2 *)p->re,
                                                                      p->tspec);
  GS_CUDA_TRY(cudaGetLastError());
done:
  free(tcol);
  return st;
}

/* Both parts of `valid` columns in p->x into p->y. */
static gs_status lc_apply(lc_call *p, int valid, cudaStream_t s, char *msg)
{
  gs_status st = GS_OK;
  const long nb = p->nb;
  for (int q = 0; q < 2; ++q) {
    const legcheb_part *pt = &p->part[q];
    if (pt->m == 0) continue;
    lc_spread<<<lc_grid(p->len, nb), LC_THREADS, 0, s>>>(pt->m, pt->off, p->n, p->K, valid, nb, p->len, p->ld,
                                                         p->l[q], p->col[q], p->x, p->re);
    GS_TRY(lc_cufft(cufftExecD2Z(p->fwd, p->re, (cufftDoubleComplex *)p->re), "execution", msg));
    lc_multiply<<<lc_grid(p->half, nb), LC_THREADS, 0, s>>>(nb, p->half, p->tspec + (size_t)q * p->half,
                                                            (double2 *)p->re);
    GS_TRY(lc_cufft(cufftExecZ2D(p->inv, (cufftDoubleComplex *)p->re, p->re), "execution", msg));
    lc_gather<<<lc_grid(pt->m, valid), LC_THREADS, 0, s>>>(pt->m, pt->off, p->n, p->K, valid, p->ld, p->l[q],
                                                           p->row[q], p->re, p->y);
  }
  if (p->row0) lc_degree_zero<<<valid < 65535 ? valid : 65535, LC_THREADS, 0, s>>>(p->n, valid, p->deg0, p->x, p->y);
  GS_CUDA_TRY(cudaGetLastError());
done:
  return st;
}

static gs_status lc_run(lc_call *p, const gs_legcheb_args *a, int device, int threads, gs_progress_fn progress,
                        char *msg)
{
  gs_status st = GS_OK;
  gs_gpu_ctx *c = NULL;
  const long n = a->n;
  GS_TRY(gs_gpu_ctx_get(device, &c, msg));
  GS_TRY(lc_prepare(p, a, threads, progress, c->stream[0], msg));
  GS_TRY(lc_layout(p, c, a->ncol, msg));
  GS_TRY(lc_upload(p, c, a->to_chebyshev, msg));
  GS_CUDA_TRY(cudaStreamSynchronize(c->stream[0]));
  for (int q = 0; q < 2; ++q) lc_factor_free(&p->factor[q]); /* copied into the workspace */
  for (long j0 = 0; j0 < a->ncol; j0 += p->w) {
    const int valid = (int)(a->ncol - j0 < p->w ? a->ncol - j0 : p->w);
    const size_t bytes = (size_t)valid * n * sizeof(double);
    GS_TRY(gs_gpu_copy_to_device(c, p->x, a->in + j0 * n, bytes, 0, msg));
    GS_TRY(lc_apply(p, valid, c->stream[0], msg));
    GS_TRY(gs_gpu_copy_to_host(c, a->out + j0 * n, p->y, bytes, 0, msg));
    if (progress && progress((double)(j0 + valid) / a->ncol)) {
      st = gs_interrupted(msg);
      goto done;
    }
  }
done:
  if (c) cudaStreamSynchronize(c->stream[0]);
  return st;
}

extern "C" gs_status gs_legcheb_gpu(int device, const gs_legcheb_args *a, int threads, gs_progress_fn progress,
                                    char *msg)
{
  if (a->n < 1 || a->ncol < 1) return GS_OK;
  if (a->method != GS_LEGCHEB_TOEPLITZ_HANKEL)
    return gs_set_msg(msg, GS_ERR_ARG, "the GPU converts by the Toeplitz-Hankel method only");
  if (a->n > 1073741823L) return gs_set_msg(msg, GS_ERR_ARG, "a conversion of size %ld is too long", a->n);
  lc_call p;
  memset(&p, 0, sizeof p);
  const gs_status st = lc_run(&p, a, device, threads, progress, msg);
  if (p.planned > 0) cufftDestroy(p.fwd);
  if (p.planned > 1) cufftDestroy(p.inv);
  for (int q = 0; q < 2; ++q) {
    legcheb_part_free(&p.part[q]);
    lc_factor_free(&p.factor[q]);
  }
  free(p.row0);
  return st;
}
