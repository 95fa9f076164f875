/* Spherical-harmonic transforms on the GPU: cuFFT along the latitudes (read
 * and written in R's column-major layout through strides), and the Legendre
 * sums with one thread per (latitude, order), the recurrence of poly_math.h
 * (the CPU's arithmetic). Synthesis sums over l in each thread; analysis
 * reduces over the latitudes of a warp by shuffles and adds each warp's sum
 * with one atomic per (l, m). A first version: one field at a time, no use
 * of the equatorial symmetry, not tuned. */
#include <cufft.h>

#include "gs_gpu_ctx.cuh"
#include "gs_poly.h"
#include "poly_math.h"

#define SHT_THREADS 128
#define SQRT2 1.4142135623730950488

static gs_status cufft_check(cufftResult r, const char *what, char *msg)
{
  if (r == CUFFT_SUCCESS) return GS_OK;
  return gs_set_msg(msg, r == CUFFT_ALLOC_FAILED ? GS_ERR_NOMEM : GS_ERR_CUDA, "cuFFT %s failed (status %d)", what,
                    (int)r);
}

typedef struct {
  int lmax;
  long nlat, nspec;
  const double *x, *x_lo;
  double dphi; /* 2 pi / nlon */
} sht_dims;

/* Synthesis: spec[i][m] (row i of the half spectrum) from the coefficients. */
__global__ void sht_synthesis_kernel(sht_dims d, const double *cs, const double *sn, double2 *spec)
{
  const long i = (long)blockIdx.x * blockDim.x + threadIdx.x;
  const int m = blockIdx.y, L = d.lmax + 1;
  if (i >= d.nlat) return;
  const double x = d.x[i], x_lo = d.x_lo[i];
  const double *cm = cs + (size_t)m * L, *sm = sn + (size_t)m * L;
  alp_iter it = alp_start(m, alp_sin(x, x_lo), alp_seed(m));
  double c = cm[m] * it.u * it.f, t = sm[m] * it.u * it.f;
  for (int l = m + 1; l <= d.lmax; ++l) {
    alp_next(&it, alp_rec_a(l, m), alp_rec_b(l, m), x, x_lo);
    const double p = it.u * it.f;
    c += cm[l] * p;
    t += sm[l] * p;
  }
  spec[i * d.nspec + m] = m ? make_double2(c / SQRT2, -t / SQRT2) : make_double2(c, 0.0);
}

static __device__ inline double warp_sum(double v)
{
  for (int o = 16; o > 0; o /= 2) v += __shfl_down_sync(0xffffffffu, v, o);
  return v;
}

/* Analysis: cs/sn[l + L m] += the latitudes' w_i Pbar_l^m(x_i) times their longitude integrals. */
__global__ void sht_analysis_kernel(sht_dims d, const double *w, const double2 *spec, double *cs, double *sn)
{
  const long i = (long)blockIdx.x * blockDim.x + threadIdx.x;
  const int m = blockIdx.y, L = d.lmax + 1, lane = threadIdx.x % 32;
  const int in = i < d.nlat;
  const double x = in ? d.x[i] : 0.0, x_lo = in ? d.x_lo[i] : 0.0;
  const double sc = m ? d.dphi * SQRT2 : d.dphi;
  const double2 g = in ? spec[i * d.nspec + m] : make_double2(0.0, 0.0);
  const double wc = in ? w[i] * sc * g.x : 0.0, ws = in ? -w[i] * sc * g.y : 0.0;
  alp_iter it = alp_start(m, alp_sin(x, x_lo), alp_seed(m));
  for (int l = m; l <= d.lmax; ++l) {
    if (l > m) alp_next(&it, alp_rec_a(l, m), alp_rec_b(l, m), x, x_lo);
    const double p = it.u * it.f, c = warp_sum(wc * p), t = warp_sum(ws * p);
    if (lane == 0) {
      atomicAdd(cs + l + (size_t)L * m, c);
      atomicAdd(sn + l + (size_t)L * m, t);
    }
  }
}

/* The row FFTs of one field: values (nlat x nlon, column-major) <-> spec (nlat x nspec, row-major). */
static cufftResult sht_plan(long nlat, long nlon, int analysis, cudaStream_t s, cufftHandle *p)
{
  int n = (int)nlon, nspec = (int)(nlon / 2 + 1), vemb = (int)nlon, semb = nspec;
  cufftResult r = analysis ? cufftPlanMany(p, 1, &n, &vemb, (int)nlat, 1, &semb, 1, nspec, CUFFT_D2Z, (int)nlat)
                           : cufftPlanMany(p, 1, &n, &semb, 1, nspec, &vemb, (int)nlat, 1, CUFFT_Z2D, (int)nlat);
  return r == CUFFT_SUCCESS ? cufftSetStream(*p, s) : r;
}

static gs_status sht_gpu(int device, const gs_sht_args *a, int analysis, gs_progress_fn progress, char *msg)
{
  gs_status st = GS_OK;
  gs_gpu_ctx *c = NULL;
  cufftHandle plan = 0;
  int planned = 0;
  const int L = a->lmax + 1;
  const long nspec = a->nlon / 2 + 1;
  const size_t vbytes = (size_t)a->nlat * a->nlon * sizeof(double), sbytes = (size_t)a->nlat * nspec * sizeof(double2);
  const size_t cbytes = (size_t)L * L * sizeof(double), gbytes = (size_t)a->nlat * sizeof(double);
  char *work = NULL;
  if (a->lmax < 0 || 2L * a->lmax >= a->nlon || a->nlat < 1)
    return gs_set_msg(msg, GS_ERR_ARG, "a grid of %ld x %ld points is too small for degree %d", a->nlat, a->nlon,
                      a->lmax);
  GS_TRY(gs_gpu_ctx_get(device, &c, msg));
  GS_TRY(gs_gpu_ctx_workspace(c, sbytes + vbytes + 2 * cbytes + 3 * gbytes, (void **)&work, msg));
  GS_TRY(cufft_check(sht_plan(a->nlat, a->nlon, analysis, c->stream[0], &plan), "planning", msg));
  planned = 1;
  {
    double2 *spec = (double2 *)work; /* first: aligned for double2 */
    double *v = (double *)(work + sbytes), *cs = v + a->nlat * a->nlon, *sn = cs + (size_t)L * L;
    double *x = sn + (size_t)L * L, *w = x + a->nlat, *x_lo = w + a->nlat;
    const sht_dims d = {a->lmax, a->nlat, nspec, x, x_lo, 2.0 * 3.14159265358979323846 / a->nlon};
    const dim3 grid((unsigned)((a->nlat + SHT_THREADS - 1) / SHT_THREADS), (unsigned)L);
    cudaStream_t s = c->stream[0];
    GS_TRY(gs_gpu_copy_to_device(c, x, a->x, gbytes, 0, msg));
    GS_TRY(gs_gpu_copy_to_device(c, w, a->w, gbytes, 0, msg));
    if (a->x_lo)
      GS_TRY(gs_gpu_copy_to_device(c, x_lo, a->x_lo, gbytes, 0, msg));
    else
      GS_CUDA_TRY(cudaMemsetAsync(x_lo, 0, gbytes, s));
    for (long k = 0; k < a->nfield; ++k) {
      double *hc = a->cos_part + (size_t)k * L * L, *hs = a->sin_part + (size_t)k * L * L;
      if (analysis) {
        GS_TRY(gs_gpu_copy_to_device(c, v, a->values + (size_t)k * a->nlat * a->nlon, vbytes, 0, msg));
        GS_TRY(cufft_check(cufftExecD2Z(plan, v, (cufftDoubleComplex *)spec), "execution", msg));
        GS_CUDA_TRY(cudaMemsetAsync(cs, 0, 2 * cbytes, s));
        sht_analysis_kernel<<<grid, SHT_THREADS, 0, s>>>(d, w, spec, cs, sn);
        GS_CUDA_TRY(cudaGetLastError());
        GS_TRY(gs_gpu_copy_to_host(c, hc, cs, cbytes, 0, msg));
        GS_TRY(gs_gpu_copy_to_host(c, hs, sn, cbytes, 0, msg));
      } else {
        GS_TRY(gs_gpu_copy_to_device(c, cs, hc, cbytes, 0, msg));
        GS_TRY(gs_gpu_copy_to_device(c, sn, hs, cbytes, 0, msg));
        GS_CUDA_TRY(cudaMemsetAsync(spec, 0, sbytes, s));
        sht_synthesis_kernel<<<grid, SHT_THREADS, 0, s>>>(d, cs, sn, spec);
        GS_CUDA_TRY(cudaGetLastError());
        GS_TRY(cufft_check(cufftExecZ2D(plan, (cufftDoubleComplex *)spec, v), "execution", msg));
        GS_TRY(gs_gpu_copy_to_host(c, a->values + (size_t)k * a->nlat * a->nlon, v, vbytes, 0, msg));
      }
      if (progress && k + 1 < a->nfield && progress((double)(k + 1) / a->nfield)) {
        st = gs_interrupted(msg);
        goto done;
      }
    }
  }
done:
  if (planned) cufftDestroy(plan);
  if (c) cudaStreamSynchronize(c->stream[0]);
  return st;
}

extern "C" gs_status gs_sht_analysis_gpu(int device, const gs_sht_args *a, gs_progress_fn progress, char *msg)
{
  return sht_gpu(device, a, 1, progress, msg);
}

extern "C" gs_status gs_sht_synthesis_gpu(int device, const gs_sht_args *a, gs_progress_fn progress, char *msg)
{
  return sht_gpu(device, a, 0, progress, msg);
}
