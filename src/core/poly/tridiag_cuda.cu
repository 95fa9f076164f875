/* Batched tridiagonal solves on the GPU: parallel cyclic reduction, one warp
 * per system, the system in shared memory (double-buffered: each of the
 * log2(n) steps reads one copy and writes the other). Each step eliminates
 * the couplings at distance s from every row at once, so after the last
 * x_i = d_i / b_i. Like the CPU's Thomas algorithm it does not pivot; a
 * non-finite result marks the system as needing pivoting. A shared matrix
 * is read by every warp (stride 0). Not tuned yet: divisions are not scaled
 * out, and the right-hand sides of a shared matrix each redo its reduction. */
#include <math.h>

#include "gs_gpu_ctx.cuh"
#include "gs_poly.h"

/* A warp (system) takes 2 copies x 4 diagonals x n doubles of shared memory;
 * a block holds up to PCR_MAX_WARPS of them, within the device's limit per block. */
#define PCR_MAX_WARPS 8

typedef struct {
  double *a, *b, *c, *d;
} pcr_rows;

static __device__ pcr_rows pcr_slice(double *base, long n)
{
  pcr_rows r = {base, base + n, base + 2 * n, base + 3 * n};
  return r;
}

/* One reduction step at distance s from `in` to `out`, rows split over the lanes. */
static __device__ void pcr_step(pcr_rows in, pcr_rows out, long n, long s, int lane)
{
  for (long i = lane; i < n; i += 32) {
    const long im = i - s, ip = i + s;
    const double al = im >= 0 ? -in.a[i] / in.b[im] : 0.0, ga = ip < n ? -in.c[i] / in.b[ip] : 0.0;
    out.a[i] = im >= 0 ? al * in.a[im] : 0.0;
    out.c[i] = ip < n ? ga * in.c[ip] : 0.0;
    out.b[i] = in.b[i] + (im >= 0 ? al * in.c[im] : 0.0) + (ip < n ? ga * in.a[ip] : 0.0);
    out.d[i] = in.d[i] + (im >= 0 ? al * in.d[im] : 0.0) + (ip < n ? ga * in.d[ip] : 0.0);
  }
}

__global__ void pcr_kernel(int warps, long n, long nrhs, long mstride, const double *dl, const double *d, const double *du,
                           double *b, long *bad)
{
  extern __shared__ double shm[];
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const long sys = (long)blockIdx.x * warps + warp;
  if (sys >= nrhs) return;
  pcr_rows buf[2] = {pcr_slice(shm + (size_t)warp * 8 * n, n), pcr_slice(shm + (size_t)warp * 8 * n + 4 * n, n)};
  const double *ml = dl + sys * mstride, *md = d + sys * mstride, *mu = du + sys * mstride;
  double *rhs = b + sys * n;
  for (long i = lane; i < n; i += 32) {
    buf[0].a[i] = i > 0 ? ml[i] : 0.0;
    buf[0].b[i] = md[i];
    buf[0].c[i] = i + 1 < n ? mu[i] : 0.0;
    buf[0].d[i] = rhs[i];
  }
  __syncwarp();
  int cur = 0;
  for (long s = 1; s < n; s *= 2, cur ^= 1) {
    pcr_step(buf[cur], buf[cur ^ 1], n, s, lane);
    __syncwarp();
  }
  int ok = 1;
  for (long i = lane; i < n; i += 32) {
    const double x = buf[cur].d[i] / buf[cur].b[i];
    ok &= isfinite(x);
    rhs[i] = x;
  }
  if (!__all_sync(0xffffffffu, ok) && lane == 0) atomicMin((unsigned long long *)bad, (unsigned long long)sys);
}

extern "C" gs_status gs_tridiag_solve_gpu(int device, const gs_tridiag_args *a, char *msg)
{
  gs_status st = GS_OK;
  gs_gpu_ctx *c = NULL;
  const long n = a->n, k = a->nrhs, mcols = a->per_system ? k : 1;
  if (n < 1 || k < 1) return GS_OK;
  const size_t mbytes = (size_t)n * mcols * sizeof(double), bbytes = (size_t)n * k * sizeof(double);
  const size_t per_warp = 8 * (size_t)n * sizeof(double);
  int limit = 0, warps;
  size_t shm;
  long bad = 0;
  char *work = NULL;
  GS_TRY(gs_gpu_ctx_get(device, &c, msg));
  GS_CUDA_TRY(cudaDeviceGetAttribute(&limit, cudaDevAttrMaxSharedMemoryPerBlockOptin, c->device));
  if (per_warp > (size_t)limit) {
    st = gs_set_msg(msg, GS_ERR_ARG, "the GPU solves tridiagonal systems of order up to %ld, not %ld; use device = \"cpu\"",
                    (long)(limit / (8 * sizeof(double))), n);
    goto done;
  }
  warps = (size_t)limit / per_warp < PCR_MAX_WARPS ? (int)((size_t)limit / per_warp) : PCR_MAX_WARPS;
  shm = (size_t)warps * per_warp;
  GS_TRY(gs_gpu_ctx_workspace(c, 3 * mbytes + bbytes + sizeof(long), (void **)&work, msg));
  {
    double *dl = (double *)work, *dd = dl + n * mcols, *du = dd + n * mcols, *db = du + n * mcols;
    long *dbad = (long *)(db + n * k), none = k;
    GS_TRY(gs_gpu_copy_to_device(c, dl, a->dl, mbytes, 0, msg));
    GS_TRY(gs_gpu_copy_to_device(c, dd, a->d, mbytes, 0, msg));
    GS_TRY(gs_gpu_copy_to_device(c, du, a->du, mbytes, 0, msg));
    GS_TRY(gs_gpu_copy_to_device(c, db, a->b, bbytes, 0, msg));
    GS_CUDA_TRY(cudaMemcpyAsync(dbad, &none, sizeof(long), cudaMemcpyHostToDevice, c->stream[0]));
    GS_CUDA_TRY(cudaFuncSetAttribute(pcr_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)shm));
    pcr_kernel<<<(unsigned)((k + warps - 1) / warps), 32 * warps, shm, c->stream[0]>>>(
        warps, n, k, a->per_system ? n : 0, dl, dd, du, db, dbad);
    GS_CUDA_TRY(cudaGetLastError());
    GS_CUDA_TRY(cudaMemcpyAsync(&bad, dbad, sizeof(long), cudaMemcpyDeviceToHost, c->stream[0]));
    GS_TRY(gs_gpu_copy_to_host(c, a->b, db, bbytes, 0, msg));
    if (bad < k)
      st = gs_set_msg(msg, GS_ERR_ARG,
                      "the tridiagonal system %ld is singular or needs pivoting (cyclic reduction met a zero pivot); "
                      "make the matrix diagonally dominant",
                      bad + 1);
  }
done:
  if (c) cudaStreamSynchronize(c->stream[0]);
  return st;
}
