/* Batched tridiagonal solves on the GPU: the partition method of
 * tridiag_math.h, one warp per system.
 *   1. the warp reads the system with coalesced loads into shared memory,
 *      each row divided by its diagonal (the unit diagonal is then implicit);
 *   2. each lane eliminates the interior of its chunk of M rows;
 *   3. the reduced system of 64 rows, two per lane, is solved in registers
 *      by cyclic reduction over warp shuffles (6 steps);
 *   4. each lane substitutes its two unknowns into its interior rows and the
 *      warp writes the solution with coalesced stores.
 * Each row is read once and written once from device memory, with two
 * divisions per row (the cyclic reduction over all n rows took 2 log2(n)
 * and a copy of the system per step). Like the CPU's Thomas algorithm it
 * does not pivot (diagonally dominant or symmetric positive definite
 * matrices need none); a non-finite solution marks the system as needing
 * pivoting. A shared matrix is read by every warp (stride 0). */
#include <math.h>

#include "gs_gpu_ctx.cuh"
#include "gs_poly.h"
#include "poly_cuda.cuh"
#include "tridiag_math.h"

/* Warps (systems) per block, at most: the blocks stay small so that an SM
 * holds as many as its shared memory allows. */
#define TRI_WARPS 4
#define TRI_FULL 0xffffffffu

/* Shared memory of one warp: three arrays of 32 M rows. */
static size_t tri_warp_bytes(long n) { return 3 * 32 * (size_t)tridiag_chunk_rows(n) * sizeof(double); }

/* The row of lane + delta (an identity row past either end of the warp). */
static __device__ tridiag_row tri_shfl(tridiag_row r, int delta, int lane)
{
  const int src = lane + delta;
  tridiag_row o;
  o.a = __shfl_sync(TRI_FULL, r.a, src & 31);
  o.c = __shfl_sync(TRI_FULL, r.c, src & 31);
  o.d = __shfl_sync(TRI_FULL, r.d, src & 31);
  if (src < 0 || src > 31) o.a = o.c = o.d = 0.0;
  return o;
}

/* The reduced system, rows 2 lane (r0) and 2 lane + 1 (r1): on return
 * their d are the unknowns. Row 2 lane - 1 is r1 of the lane below and row
 * 2 lane + 2 r0 of the lane above; from distance 2 on, rows of one parity
 * meet rows of the same parity, t lanes away. */
static __device__ void tri_reduced_solve(tridiag_row *r0, tridiag_row *r1, int lane)
{
  tridiag_row n0 = tridiag_reduce(*r0, tri_shfl(*r1, -1, lane), *r1);
  tridiag_row n1 = tridiag_reduce(*r1, *r0, tri_shfl(*r0, 1, lane));
  for (int t = 1; t < 32; t *= 2) {
    const tridiag_row m0 = tri_shfl(n0, -t, lane), p0 = tri_shfl(n0, t, lane);
    const tridiag_row m1 = tri_shfl(n1, -t, lane), p1 = tri_shfl(n1, t, lane);
    n0 = tridiag_reduce(n0, m0, p0);
    n1 = tridiag_reduce(n1, m1, p1);
  }
  *r0 = n0;
  *r1 = n1;
}

__global__ void tri_partition_kernel(int warps, int n, int M, long nsys, long mstride, const double *__restrict__ dl,
                                     const double *__restrict__ d, const double *__restrict__ du, const double *rhs,
                                     double *x, long *bad)
{
  extern __shared__ double shm[];
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32, rows = 32 * M;
  const long sys = (long)blockIdx.x * warps + warp;
  if (sys >= nsys) return; /* the whole warp */
  double *sa = shm + (size_t)warp * 3 * rows, *sc = sa + rows, *sd = sc + rows;
  const double *ml = dl + sys * mstride, *md = d + sys * mstride, *mu = du + sys * mstride, *b = rhs + sys * n;
#pragma unroll 4
  for (int i = lane; i < rows; i += 32) {
    tridiag_row r = {0.0, 0.0, 0.0}; /* identity rows past n */
    if (i < n) r = tridiag_unit_row(i > 0 ? ml[i] : 0.0, md[i], i + 1 < n ? mu[i] : 0.0, b[i]);
    sa[i] = r.a, sc[i] = r.c, sd[i] = r.d;
  }
  __syncwarp();
  double *ca = sa + lane * M, *cc = sc + lane * M, *cd = sd + lane * M;
  tridiag_chunk_eliminate(M, ca, cc, cd);
  tridiag_row r0 = {ca[0], cc[0], cd[0]}, r1 = {ca[M - 1], cc[M - 1], cd[M - 1]};
  tri_reduced_solve(&r0, &r1, lane);
  tridiag_chunk_substitute(M, ca, cc, cd, r0.d, r1.d);
  __syncwarp();
  int ok = 1;
  double *out = x + sys * n;
#pragma unroll 4
  for (int i = lane; i < n; i += 32) {
    const double v = sd[i];
    ok &= isfinite(v);
    out[i] = v;
  }
  if (!__all_sync(TRI_FULL, ok) && lane == 0) atomicMin((unsigned long long *)bad, (unsigned long long)sys);
}

/* The largest order whose warp fits `limit` bytes of shared memory: M odd. */
static long tri_max_order(size_t limit)
{
  const long m = (long)(limit / (3 * 32 * sizeof(double)));
  return m < 3 ? 0 : 32 * (m % 2 ? m : m - 1);
}

gs_status poly_tridiag_launch(long n, long nsys, long mstride, const double *dl, const double *d, const double *du,
                              const double *rhs, double *x, long *bad, cudaStream_t s, char *msg)
{
  gs_status st = GS_OK;
  int dev = 0, limit = 0, warps;
  size_t shm;
  GS_CUDA_TRY(cudaGetDevice(&dev));
  GS_CUDA_TRY(cudaDeviceGetAttribute(&limit, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev));
  if (n > tri_max_order((size_t)limit))
    return gs_set_msg(msg, GS_ERR_ARG,
                      "the GPU solves tridiagonal systems of order up to %ld, not %ld; use device = \"cpu\"",
                      tri_max_order((size_t)limit), n);
  warps = (size_t)limit / tri_warp_bytes(n) < TRI_WARPS ? (int)((size_t)limit / tri_warp_bytes(n)) : TRI_WARPS;
  shm = (size_t)warps * tri_warp_bytes(n);
  GS_CUDA_TRY(cudaFuncSetAttribute(tri_partition_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)shm));
  tri_partition_kernel<<<(unsigned)((nsys + warps - 1) / warps), 32 * warps, shm, s>>>(
      warps, (int)n, (int)tridiag_chunk_rows(n), nsys, mstride, dl, d, du, rhs, x, bad);
  GS_CUDA_TRY(cudaGetLastError());
done:
  return st;
}

extern "C" gs_status gs_tridiag_solve_gpu(int device, const gs_tridiag_args *a, char *msg)
{
  gs_status st = GS_OK;
  gs_gpu_ctx *c = NULL;
  const long n = a->n, k = a->nrhs, mcols = a->per_system ? k : 1;
  if (n < 1 || k < 1) return GS_OK;
  const size_t mbytes = (size_t)n * mcols * sizeof(double), bbytes = (size_t)n * k * sizeof(double);
  long bad = 0;
  char *work = NULL;
  GS_TRY(gs_gpu_ctx_get(device, &c, msg));
  GS_TRY(gs_gpu_ctx_workspace(c, 3 * mbytes + bbytes + sizeof(long), (void **)&work, msg));
  {
    double *dl = (double *)work, *dd = dl + n * mcols, *du = dd + n * mcols, *db = du + n * mcols;
    long *dbad = (long *)(db + n * k), none = k;
    GS_TRY(gs_gpu_copy_to_device(c, dl, a->dl, mbytes, 0, msg));
    GS_TRY(gs_gpu_copy_to_device(c, dd, a->d, mbytes, 0, msg));
    GS_TRY(gs_gpu_copy_to_device(c, du, a->du, mbytes, 0, msg));
    GS_TRY(gs_gpu_copy_to_device(c, db, a->b, bbytes, 0, msg));
    GS_CUDA_TRY(cudaMemcpyAsync(dbad, &none, sizeof(long), cudaMemcpyHostToDevice, c->stream[0]));
    GS_TRY(poly_tridiag_launch(n, k, a->per_system ? n : 0, dl, dd, du, db, db, dbad, c->stream[0], msg));
    GS_CUDA_TRY(cudaMemcpyAsync(&bad, dbad, sizeof(long), cudaMemcpyDeviceToHost, c->stream[0]));
    GS_TRY(gs_gpu_copy_to_host(c, a->b, db, bbytes, 0, msg));
    if (bad < k)
      st = gs_set_msg(msg, GS_ERR_ARG,
                      "the tridiagonal system %ld is singular or needs pivoting (the solver met a zero pivot); "
                      "make the matrix diagonally dominant",
                      bad + 1);
  }
done:
  if (c) cudaStreamSynchronize(c->stream[0]);
  return st;
}
