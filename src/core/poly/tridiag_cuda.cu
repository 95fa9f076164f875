/* Batched tridiagonal solves on the GPU: the partition method of
 * tridiag_math.h, one warp per system.
 *   1. the warp copies its system into shared memory with asynchronous
 *      copies (cp.async), every one of them in flight before the first is
 *      waited for: the loads hold no registers, so a warp's whole system is
 *      requested at once, and an SM keeps as many bytes in flight as its
 *      shared memory holds systems;
 *   2. each lane eliminates the interior of its chunk of M rows, dividing
 *      by the pivots on the way (one division per row);
 *   3. the reduced system of 64 rows, two per lane, is solved in registers
 *      by cyclic reduction over warp shuffles (6 steps);
 *   4. each lane substitutes its two unknowns into its interior rows and the
 *      warp writes the solution with coalesced stores.
 * Each row is read once and written once from device memory. It does not
 * pivot (diagonally dominant or symmetric positive definite matrices need
 * none): an elimination step that grows (tridiag_grew) or a non-finite
 * solution marks the system, and a call with a marked system is solved by
 * the CPU path, which pivots where needed, so that both paths give the same
 * answers. A shared matrix is read by every warp (stride 0). */
#include <cuda_pipeline.h>
#include <math.h>

#include "gs_gpu_ctx.cuh"
#include "gs_poly.h"
#include "poly_cuda.cuh"
#include "tridiag_math.h"

#define TRI_FULL 0xffffffffu
#define TRI_MAX_WARPS 4

/* Shared memory of one warp: four arrays of 32 M rows (sub-diagonal,
 * diagonal, super-diagonal, right-hand side; the elimination leaves its
 * unit-diagonal rows in the first, third and fourth). */
static size_t tri_warp_bytes(long n) { return 4 * 32 * (size_t)tridiag_chunk_rows(n) * sizeof(double); }

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
 * their d are the unknowns; 1 where a step of this lane grew. Row 2 lane - 1 is r1 of the lane below and row
 * 2 lane + 2 r0 of the lane above; from distance 2 on, rows of one parity
 * meet rows of the same parity, t lanes away. */
static __device__ int tri_reduced_solve(tridiag_row *r0, tridiag_row *r1, int lane)
{
  const tridiag_row below = tri_shfl(*r1, -1, lane), above = tri_shfl(*r0, 1, lane);
  int grew = tridiag_reduce_grew(*r0, below, *r1) | tridiag_reduce_grew(*r1, *r0, above);
  tridiag_row n0 = tridiag_reduce(*r0, below, *r1);
  tridiag_row n1 = tridiag_reduce(*r1, *r0, above);
  for (int t = 1; t < 32; t *= 2) {
    const tridiag_row m0 = tri_shfl(n0, -t, lane), p0 = tri_shfl(n0, t, lane);
    const tridiag_row m1 = tri_shfl(n1, -t, lane), p1 = tri_shfl(n1, t, lane);
    grew |= tridiag_reduce_grew(n0, m0, p0) | tridiag_reduce_grew(n1, m1, p1);
    n0 = tridiag_reduce(n0, m0, p0);
    n1 = tridiag_reduce(n1, m1, p1);
  }
  *r0 = n0;
  *r1 = n1;
  return grew;
}

/* Step 1: the rows of the system into the warp's arrays, identity rows past
 * n, and zeros for the entries outside the matrix (dl[0], du[n - 1]); each
 * row scaled by tridiag_row_scale. */
static __device__ void tri_stage(int n, int rows, int lane, const double *ml, const double *md, const double *mu,
                                 const double *b, double *sl, double *sg, double *su, double *sb)
{
#pragma unroll 4
  for (int i = lane; i < rows; i += 32) {
    if (i < n) {
      __pipeline_memcpy_async(sg + i, md + i, sizeof(double));
      __pipeline_memcpy_async(sb + i, b + i, sizeof(double));
      if (i > 0) __pipeline_memcpy_async(sl + i, ml + i, sizeof(double));
      else sl[i] = 0.0;
      if (i + 1 < n) __pipeline_memcpy_async(su + i, mu + i, sizeof(double));
      else su[i] = 0.0;
    } else {
      sl[i] = su[i] = sb[i] = 0.0;
      sg[i] = 1.0;
    }
  }
  __pipeline_commit();
  __pipeline_wait_prior(0);
  for (int i = lane; i < n; i += 32) {
    const double s = tridiag_row_scale(sl[i], sg[i], su[i]);
    sl[i] *= s, sg[i] *= s, su[i] *= s, sb[i] *= s;
  }
  __syncwarp();
}

__global__ void tri_partition_kernel(int warps, int n, int M, long nsys, long mstride, const double *__restrict__ dl,
                                     const double *__restrict__ d, const double *__restrict__ du, const double *rhs,
                                     double *x, long *bad)
{
  extern __shared__ double shm[];
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32, rows = 32 * M;
  const long sys = (long)blockIdx.x * warps + warp;
  if (sys >= nsys) return; /* the whole warp */
  double *sl = shm + (size_t)warp * 4 * rows, *sg = sl + rows, *su = sg + rows, *sb = su + rows;
  tri_stage(n, rows, lane, dl + sys * mstride, d + sys * mstride, du + sys * mstride, rhs + sys * n, sl, sg, su, sb);
  double *ca = sl + lane * M, *cc = su + lane * M, *cd = sb + lane * M;
  int grew = tridiag_chunk_eliminate(M, ca, sg + lane * M, cc, cd);
  tridiag_row r0 = {ca[0], cc[0], cd[0]}, r1 = {ca[M - 1], cc[M - 1], cd[M - 1]};
  grew |= tri_reduced_solve(&r0, &r1, lane);
  tridiag_chunk_substitute(M, ca, cc, cd, r0.d, r1.d);
  __syncwarp();
  int ok = !grew;
  double *out = x + sys * n;
#pragma unroll 4
  for (int i = lane; i < n; i += 32) {
    const double v = sb[i];
    ok &= isfinite(v);
    out[i] = v;
  }
  if (!__all_sync(TRI_FULL, ok) && lane == 0) atomicMin((unsigned long long *)bad, (unsigned long long)sys);
}

/* The largest order whose warp fits `limit` bytes of shared memory: M odd. */
static long tri_max_order(size_t limit)
{
  const long m = (long)(limit / (4 * 32 * sizeof(double)));
  return m < 3 ? 0 : 32 * (m % 2 ? m : m - 1);
}

/* Warps (systems) per block that let an SM hold the most warps: at large
 * orders a block of four warps can leave much of an SM's shared memory
 * unused (and each block reserves some of it), so fewer warps a block pack
 * it better; on a tie the larger block. Blocks over `limit` bytes are not
 * asked about. Needs the kernel's shared-memory attributes set. */
static gs_status tri_block_warps(long n, size_t limit, int *warps, char *msg)
{
  gs_status st = GS_OK;
  int best = 0;
  *warps = 1;
  for (int w = TRI_MAX_WARPS; w >= 1; --w) {
    int blocks = 0;
    if ((size_t)w * tri_warp_bytes(n) > limit) continue;
    GS_CUDA_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, tri_partition_kernel, 32 * w,
                                                              (size_t)w * tri_warp_bytes(n)));
    if (blocks * w > best) best = blocks * w, *warps = w;
  }
done:
  return st;
}

gs_status poly_tridiag_launch(long n, long nsys, long mstride, const double *dl, const double *d, const double *du,
                              const double *rhs, double *x, long *bad, cudaStream_t s, char *msg)
{
  gs_status st = GS_OK;
  int dev = 0, limit = 0, warps = 1;
  GS_CUDA_TRY(cudaGetDevice(&dev));
  GS_CUDA_TRY(cudaDeviceGetAttribute(&limit, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev));
  if (n > tri_max_order((size_t)limit))
    return gs_set_msg(msg, GS_ERR_ARG,
                      "the GPU solves tridiagonal systems of order up to %ld, not %ld; use device = \"cpu\"",
                      tri_max_order((size_t)limit), n);
  GS_CUDA_TRY(cudaFuncSetAttribute(tri_partition_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, limit));
  GS_CUDA_TRY(cudaFuncSetAttribute(tri_partition_kernel, cudaFuncAttributePreferredSharedMemoryCarveout,
                                   cudaSharedmemCarveoutMaxShared));
  GS_TRY(tri_block_warps(n, (size_t)limit, &warps, msg));
  tri_partition_kernel<<<(unsigned)((nsys + warps - 1) / warps), 32 * warps, (size_t)warps * tri_warp_bytes(n), s>>>(
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
    GS_CUDA_TRY(cudaStreamSynchronize(c->stream[0]));
    /* a system that needs pivoting (or is singular): the CPU's answer, from b still on the host */
    if (bad < k) st = gs_tridiag_solve_cpu(a, 0, msg);
    else GS_TRY(gs_gpu_copy_to_host(c, a->b, db, bbytes, 0, msg));
  }
done:
  if (c) cudaStreamSynchronize(c->stream[0]);
  return st;
}
