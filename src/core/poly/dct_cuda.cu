/* DCTs on the GPU through cuFFT, which has no cosine transform: each type is
 * a real or complex FFT with pre- and post-twiddles (verified against the
 * definitions in tools/, see the comments of each kernel):
 *   type 2 (Makhoul): v = (x_0, x_2, ..., x_3, x_1), V = FFT_n(v) (D2Z),
 *     y_k = 2 Re(e^{-i pi k / 2n} V_k);
 *   type 3: V_k = e^{i pi k / 2n} (x_k - i x_{n-k}) (x_n = 0), v = IFFT_n(V)
 *     (Z2D), y_2m = v_m, y_2m+1 = v_{n-1-m};
 *   type 4, even n: z_p = (x_2p + i x_{n-1-2p}) e^{-i pi (4p+1) / 4n},
 *     Z = FFT_{n/2}(z), w = Z_q e^{-i pi q / n}, y_2q = 2 Re w, y_{n-1-2q} = -2 Im w;
 *   type 4, odd n: Z = FFT_2n(x_j e^{-i pi j / 2n}, zero-padded),
 *     y_k = 2 Re(e^{-i pi (2k+1) / 4n} Z_k).
 * Columns go through in chunks sized from the free device memory. */
#include <stdint.h>

#include <cufft.h>

#include "gs_gpu_ctx.cuh"
#include "gs_poly.h"
#include "poly_cuda.cuh"

#define DCT_THREADS 256

static gs_status cufft_status(cufftResult r, const char *what, char *msg)
{
  if (r == CUFFT_SUCCESS) return GS_OK;
  return gs_set_msg(msg, r == CUFFT_ALLOC_FAILED ? GS_ERR_NOMEM : GS_ERR_CUDA, "cuFFT %s failed (status %d)", what,
                    (int)r);
}

/* e^{i pi a} */
static __device__ inline double2 cis_pi(double a)
{
  double s, c;
  sincospi(a, &s, &c);
  return make_double2(c, s);
}

static __device__ inline double2 cmul(double2 a, double2 b)
{
  return make_double2(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x);
}

__global__ void dct2_pre(long n, long total, const double *x, double *v)
{
  for (long t = (long)blockIdx.x * blockDim.x + threadIdx.x; t < total; t += (long)gridDim.x * blockDim.x) {
    const long col = t / n, j = t % n, o = col * n;
    v[o + (j % 2 ? n - 1 - j / 2 : j / 2)] = x[t];
  }
}

__global__ void dct2_post(long n, long total, const double2 *V, double *y)
{
  const long h = n / 2 + 1;
  for (long t = (long)blockIdx.x * blockDim.x + threadIdx.x; t < total; t += (long)gridDim.x * blockDim.x) {
    const long col = t / n, k = t % n;
    double2 vk = k < h ? V[col * h + k] : V[col * h + n - k];
    if (k >= h) vk.y = -vk.y;
    y[t] = 2.0 * cmul(cis_pi(-(double)k / (2.0 * n)), vk).x;
  }
}

__global__ void dct3_pre(long n, long total_h, const double *x, double2 *V)
{
  const long h = n / 2 + 1;
  for (long t = (long)blockIdx.x * blockDim.x + threadIdx.x; t < total_h; t += (long)gridDim.x * blockDim.x) {
    const long col = t / h, k = t % h;
    const double re = x[col * n + k], im = k > 0 ? -x[col * n + n - k] : 0.0;
    V[t] = cmul(cis_pi((double)k / (2.0 * n)), make_double2(re, im));
  }
}

__global__ void dct3_post(long n, long total, const double *v, double *y)
{
  for (long t = (long)blockIdx.x * blockDim.x + threadIdx.x; t < total; t += (long)gridDim.x * blockDim.x) {
    const long col = t / n, j = t % n, o = col * n;
    y[t] = v[o + (j % 2 ? n - 1 - j / 2 : j / 2)];
  }
}

__global__ void dct4_even_pre(long n, long total_m, const double *x, double2 *z)
{
  const long m = n / 2;
  for (long t = (long)blockIdx.x * blockDim.x + threadIdx.x; t < total_m; t += (long)gridDim.x * blockDim.x) {
    const long col = t / m, p = t % m, o = col * n;
    z[t] = cmul(make_double2(x[o + 2 * p], x[o + n - 1 - 2 * p]), cis_pi(-(4.0 * p + 1.0) / (4.0 * n)));
  }
}

__global__ void dct4_even_post(long n, long total_m, const double2 *Z, double *y)
{
  const long m = n / 2;
  for (long t = (long)blockIdx.x * blockDim.x + threadIdx.x; t < total_m; t += (long)gridDim.x * blockDim.x) {
    const long col = t / m, q = t % m, o = col * n;
    const double2 w = cmul(Z[t], cis_pi(-(double)q / n));
    y[o + 2 * q] = 2.0 * w.x;
    y[o + n - 1 - 2 * q] = -2.0 * w.y;
  }
}

__global__ void dct4_odd_pre(long n, long total2, const double *x, double2 *z)
{
  for (long t = (long)blockIdx.x * blockDim.x + threadIdx.x; t < total2; t += (long)gridDim.x * blockDim.x) {
    const long col = t / (2 * n), j = t % (2 * n);
    const double xj = j < n ? x[col * n + j] : 0.0;
    z[t] = cmul(make_double2(xj, 0.0), cis_pi(-(double)j / (2.0 * n)));
  }
}

__global__ void dct4_odd_post(long n, long total, const double2 *Z, double *y)
{
  for (long t = (long)blockIdx.x * blockDim.x + threadIdx.x; t < total; t += (long)gridDim.x * blockDim.x) {
    const long col = t / n, k = t % n;
    y[t] = 2.0 * cmul(cis_pi(-(2.0 * k + 1.0) / (4.0 * n)), Z[col * 2 * n + k]).x;
  }
}

__global__ void dct_scale_kernel(long total, double f, double *x)
{
  for (long t = (long)blockIdx.x * blockDim.x + threadIdx.x; t < total; t += (long)gridDim.x * blockDim.x) x[t] *= f;
}

static unsigned dct_blocks(long total)
{
  const long b = (total + DCT_THREADS - 1) / DCT_THREADS;
  return (unsigned)(b < 65535 ? (b > 0 ? b : 1) : 65535);
}

/* Complex entries of the FFT buffer per column. */
static long dct_complex_len(int type, long n)
{
  return type == 4 ? (n % 2 ? 2 * n : n / 2) : n / 2 + 1;
}

/* The transform of `cols` columns in x (device), in place, with plan p. */
static cufftResult dct_chunk(int type, long n, long cols, cufftHandle p, double *x, double *v, double2 *c,
                             cudaStream_t s)
{
  const long total = n * cols, tc = dct_complex_len(type, n) * cols;
  cufftResult r;
  if (type == 2) {
    dct2_pre<<<dct_blocks(total), DCT_THREADS, 0, s>>>(n, total, x, v);
    if ((r = cufftExecD2Z(p, v, (cufftDoubleComplex *)c)) != CUFFT_SUCCESS) return r;
    dct2_post<<<dct_blocks(total), DCT_THREADS, 0, s>>>(n, total, c, x);
  } else if (type == 3) {
    dct3_pre<<<dct_blocks(tc), DCT_THREADS, 0, s>>>(n, tc, x, c);
    if ((r = cufftExecZ2D(p, (cufftDoubleComplex *)c, v)) != CUFFT_SUCCESS) return r;
    dct3_post<<<dct_blocks(total), DCT_THREADS, 0, s>>>(n, total, v, x);
  } else if (n % 2 == 0) {
    dct4_even_pre<<<dct_blocks(tc), DCT_THREADS, 0, s>>>(n, tc, x, c);
    if ((r = cufftExecZ2Z(p, (cufftDoubleComplex *)c, (cufftDoubleComplex *)c, CUFFT_FORWARD)) != CUFFT_SUCCESS)
      return r;
    dct4_even_post<<<dct_blocks(tc), DCT_THREADS, 0, s>>>(n, tc, c, x);
  } else {
    dct4_odd_pre<<<dct_blocks(tc), DCT_THREADS, 0, s>>>(n, tc, x, c);
    if ((r = cufftExecZ2Z(p, (cufftDoubleComplex *)c, (cufftDoubleComplex *)c, CUFFT_FORWARD)) != CUFFT_SUCCESS)
      return r;
    dct4_odd_post<<<dct_blocks(total), DCT_THREADS, 0, s>>>(n, total, c, x);
  }
  return CUFFT_SUCCESS;
}

static cufftResult dct_plan(int type, long n, long cols, cudaStream_t s, cufftHandle *p)
{
  int len = (int)(type == 4 ? (n % 2 ? 2 * n : n / 2) : n);
  cufftType kind = type == 2 ? CUFFT_D2Z : type == 3 ? CUFFT_Z2D : CUFFT_Z2Z;
  cufftResult r = cufftPlanMany(p, 1, &len, NULL, 1, 0, NULL, 1, 0, kind, (int)cols);
  return r == CUFFT_SUCCESS ? cufftSetStream(*p, s) : r;
}

/* cuFFT fails with CUFFT_INVALID_VALUE on a real array that is only 8-byte
 * aligned, so both buffers start on a DCT_ALIGN boundary of the scratch. */
#define DCT_ALIGN 256

static char *dct_align(char *p)
{
  return (char *)(((uintptr_t)p + DCT_ALIGN - 1) & ~(uintptr_t)(DCT_ALIGN - 1));
}

size_t poly_dct_scratch_bytes(int type, long n, long cols)
{
  return cols * (n * sizeof(double) + dct_complex_len(type, n) * sizeof(double2)) + 2 * DCT_ALIGN;
}

gs_status poly_dct_device(int type, long n, long cols, double *x, void *scratch, cudaStream_t s, char *msg)
{
  gs_status st = GS_OK;
  cufftHandle plan = 0;
  int planned = 0;
  if (n == 1) { /* the definitions at n = 1, without length-1 FFTs: 2x, x, 2 cos(pi / 4) x */
    dct_scale_kernel<<<dct_blocks(cols), DCT_THREADS, 0, s>>>(cols, type == 2 ? 2.0 : type == 3 ? 1.0 : 1.4142135623730950488, x);
    GS_CUDA_TRY(cudaGetLastError());
    return GS_OK;
  }
  GS_TRY(cufft_status(dct_plan(type, n, cols, s, &plan), "planning", msg));
  planned = 1;
  {
    double *real = (double *)dct_align((char *)scratch);
    double2 *cplx = (double2 *)dct_align((char *)(real + cols * n));
    GS_TRY(cufft_status(dct_chunk(type, n, cols, plan, x, real, cplx, s), "execution", msg));
  }
  GS_CUDA_TRY(cudaGetLastError());
done:
  if (planned) cufftDestroy(plan);
  return st;
}

extern "C" gs_status gs_dct_gpu(int device, int type, long n, long batch, const double *in, double *out, char *msg)
{
  gs_status st = GS_OK;
  gs_gpu_ctx *c = NULL;
  size_t free_b = 0;
  if (type < 2 || type > 4) return gs_set_msg(msg, GS_ERR_ARG, "DCT type %d: 2, 3 or 4 are supported", type);
  if (n < 1 || batch < 1) return GS_OK;
  GS_TRY(gs_gpu_ctx_get(device, &c, msg));
  GS_TRY(gs_gpu_ctx_free_memory(c, &free_b, msg));
  {
    /* per column: the values and the scratch; as much again for cuFFT's own work area */
    const size_t per_col = n * sizeof(double) + poly_dct_scratch_bytes(type, n, 1);
    long cols = (long)(gs_gpu_budget(free_b) / (2 * per_col));
    if (cols < 1) {
      st = gs_set_msg(msg, GS_ERR_NOMEM, "not enough GPU memory for a DCT of length %ld", n);
      goto done;
    }
    if (cols > batch) cols = batch;
    if (cols > (1L << 30) / n) cols = (1L << 30) / n > 0 ? (1L << 30) / n : 1;
    char *work = NULL;
    GS_TRY(gs_gpu_ctx_workspace(c, cols * n * sizeof(double) + poly_dct_scratch_bytes(type, n, cols), (void **)&work,
                                msg));
    double *x = (double *)work;
    void *scratch = x + cols * n;
    for (long j0 = 0; j0 < batch; j0 += cols) {
      const long w = batch - j0 < cols ? batch - j0 : cols;
      GS_TRY(gs_gpu_copy_to_device(c, x, in + j0 * n, (size_t)w * n * sizeof(double), 0, msg));
      GS_TRY(poly_dct_device(type, n, w, x, scratch, c->stream[0], msg));
      GS_TRY(gs_gpu_copy_to_host(c, out + j0 * n, x, (size_t)w * n * sizeof(double), 0, msg));
    }
  }
done:
  if (c) cudaStreamSynchronize(c->stream[0]);
  return st;
}
