/* The incomplete Cholesky factorization of gs_vecchia_ic0 on a GPU: Q = W'W
 * on the factor's pattern, the factor level by level (the levels of
 * vecchia_ic0.c, which runs the loop over them) and the two triangular
 * solves by the same levels. A warp takes a point: its row's pattern and
 * sums in shared memory, each sum added in the CPU's order. cuSPARSE's
 * csric02 and SpSV would need the matrix rebuilt in CSR in their own order
 * at every Newton step (vecchia_ic0.c says why this layout). */
#include <math.h>
#include <stdlib.h>

#include "vecchia_gpu.cuh"

/* Warps per block of the warp kernels (fewer where their shared memory
 * would pass the default 48 KB: m above about 1,000), threads per block of
 * the others. */
#define IC0_WARPS 4
#define IC0_SHARED_MAX ((size_t)48 << 10)
#define IC0_THREADS 256

struct gs_vecchia_ic0_gpu {
  gs_gpu_ctx *ctx;
  double *q, *ic;    /* n x mp1: Q on the pattern, the factor */
  double *d, *x;     /* n: the diagonal added, a solve's vector */
  long *points;      /* the points by level (v->level_points) */
  unsigned long long *failed; /* level << 32 | point of the first pivot not positive */
};

static const unsigned long long IC0_NONE = ~0ULL;

/* Row i's pattern into pat (shared); returns its length (the valid entries
 * are a prefix of the row). */
__device__ static int warp_load_pattern(const int *nn, int mp1, long i, int *pat, int lane)
{
  int len = 0;
  for (int t0 = 0; t0 < mp1; t0 += 32) {
    const int t = t0 + lane;
    const int j = t < mp1 ? nn[i * mp1 + t] : -1;
    if (t < mp1) pat[t] = j;
    len += __popc(__ballot_sync(0xffffffffu, j >= 0));
  }
  __syncwarp();
  return len;
}

/* vecchia_ic0.c's row_products by a warp: acc[s] += sign * m_li m_lj,
 * j = pat[s], over the rows l that hold point i (and l = i with `self`),
 * the rows in increasing order as on the CPU. A row's entries are distinct
 * points, so the lanes of one row add to distinct sums. */
__device__ static void warp_row_products(const int *nn, const long *rev_start, const long *rev, int mp1,
                                         const double *m, long i, int self, double sign, const int *pat, int len,
                                         double *acc, int lane)
{
  for (long e = rev_start[i]; e < rev_start[i + 1]; ++e) {
    const long l = rev[e] / mp1;
    if (l != i || self) {
      const double mli = sign * m[rev[e]];
      for (int t = lane; t < mp1; t += 32) {
        const int j = nn[l * mp1 + t];
        if (j < 0) break;
        int s = 0;
        while (s < len && pat[s] != j) ++s;
        if (s < len) acc[s] += mli * m[l * mp1 + t];
      }
    }
    __syncwarp();
  }
}

/* Shared memory of a warp: its pattern and its sums. */
static size_t warp_shared_bytes(int mp1) { return (size_t)mp1 * (sizeof(double) + sizeof(int)); }

typedef struct {
  unsigned warps; /* per block */
  size_t shared;  /* bytes per block */
} warp_launch;

/* The warp kernels' launch for rows of mp1 entries; GS_ERR_ARG where one
 * warp's shared memory passes the default limit (m above about 4,000). */
static gs_status warp_launch_for(int mp1, warp_launch *l, char *msg)
{
  const size_t per_warp = warp_shared_bytes(mp1);
  if (per_warp > IC0_SHARED_MAX)
    return gs_set_msg(msg, GS_ERR_ARG, "the incomplete Cholesky factorization on a GPU takes m up to %d, not %d: "
                                       "use the CPU", (int)(IC0_SHARED_MAX / warp_shared_bytes(1)) - 1, mp1 - 1);
  l->warps = (unsigned)(IC0_SHARED_MAX / per_warp < IC0_WARPS ? IC0_SHARED_MAX / per_warp : IC0_WARPS);
  l->shared = l->warps * per_warp;
  return GS_OK;
}

__device__ static void warp_shared(int mp1, double **acc, int **pat)
{
  extern __shared__ double ic0_shared[];
  const int warp = threadIdx.x / 32, warps = blockDim.x / 32;
  *acc = ic0_shared + (long)warp * mp1;
  *pat = (int *)(ic0_shared + (long)warps * mp1) + (long)warp * mp1;
}

/* q = W'W on the pattern, a warp a point. */
__global__ void ic0_form_q_kernel(const int *nn, const long *rev_start, const long *rev, long n, int mp1,
                                  const double *w, double *q)
{
  double *acc;
  int *pat;
  warp_shared(mp1, &acc, &pat);
  const int lane = threadIdx.x % 32;
  const long i = (long)blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
  if (i >= n) return;
  const int len = warp_load_pattern(nn, mp1, i, pat, lane);
  for (int s = lane; s < mp1; s += 32) acc[s] = 0.0;
  __syncwarp();
  warp_row_products(nn, rev_start, rev, mp1, w, i, 1, 1.0, pat, len, acc, lane);
  for (int s = lane; s < mp1; s += 32) q[i * mp1 + s] = acc[s];
}

/* The columns of one level's points (vecchia_ic0.c's factor_column). */
__global__ void ic0_level_kernel(const int *nn, const long *rev_start, const long *rev, int mp1, const long *points,
                                 long count, long level, const double *q, const double *d, double *ic,
                                 unsigned long long *failed)
{
  double *acc;
  int *pat;
  warp_shared(mp1, &acc, &pat);
  const int lane = threadIdx.x % 32;
  const long t = (long)blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
  if (t >= count) return;
  const long i = points[t];
  const int len = warp_load_pattern(nn, mp1, i, pat, lane);
  for (int s = lane; s < mp1; s += 32) acc[s] = s < len ? q[i * mp1 + s] : 0.0;
  __syncwarp();
  if (lane == 0) acc[0] += d[i];
  __syncwarp();
  warp_row_products(nn, rev_start, rev, mp1, ic, i, 0, -1.0, pat, len, acc, lane);
  const double pivot = acc[0];
  const int bad = !(pivot > 0.0) || !isfinite(pivot);
  if (bad && lane == 0) atomicMin(failed, (unsigned long long)level << 32 | (unsigned long long)i);
  const double root = bad ? NAN : sqrt(pivot);
  for (int s = lane; s < mp1; s += 32) ic[i * mp1 + s] = s == 0 ? root : (s < len ? acc[s] / root : 0.0);
}

/* L z = r for one level's points (levels ascending): point i gathers the
 * later points' columns that hold it, latest first (the CPU's scatter
 * order). */
__global__ void ic0_lower_kernel(const long *rev_start, const long *rev, int mp1, const long *points, long count,
                                 const double *ic, double *x)
{
  const long t = (long)blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= count) return;
  const long i = points[t];
  double s = x[i];
  for (long e = rev_start[i + 1] - 1; e >= rev_start[i]; --e) {
    const long l = rev[e] / mp1;
    if (l != i) s -= ic[rev[e]] * x[l];
  }
  x[i] = s / ic[i * mp1];
}

/* L' x = z for one level's points (levels descending). */
__global__ void ic0_upper_kernel(const int *nn, int mp1, const long *points, long count, const double *ic, double *x)
{
  const long t = (long)blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= count) return;
  const long i = points[t];
  const double *li = ic + i * mp1;
  double s = x[i];
  for (int k = 1; k < mp1 && nn[i * mp1 + k] >= 0; ++k) s -= li[k] * x[nn[i * mp1 + k]];
  x[i] = s / li[0];
}

static unsigned grid_of(long count, long per_block) { return (unsigned)((count + per_block - 1) / per_block); }

/* The device arrays at the first call. */
static gs_status ic0_arrays(gs_vecchia *v, gs_gpu_ctx *ctx, char *msg)
{
  gs_status st = GS_OK;
  if (v->ic0_gpu) return GS_OK;
  gs_vecchia_ic0_gpu *g = (gs_vecchia_ic0_gpu *)calloc(1, sizeof *g);
  if (!g) return gs_set_msg(msg, GS_ERR_NOMEM, "out of host memory");
  v->ic0_gpu = g;
  g->ctx = ctx;
  const size_t n = (size_t)v->n, layout = n * v->mp1 * sizeof(double);
  GS_CUDA_TRY(cudaMalloc(&g->q, layout));
  GS_CUDA_TRY(cudaMalloc(&g->ic, layout));
  GS_CUDA_TRY(cudaMalloc(&g->d, n * sizeof(double)));
  GS_CUDA_TRY(cudaMalloc(&g->x, n * sizeof(double)));
  GS_CUDA_TRY(cudaMalloc(&g->points, n * sizeof(long)));
  GS_CUDA_TRY(cudaMalloc(&g->failed, sizeof(unsigned long long)));
  GS_TRY(gs_gpu_copy_to_device(ctx, g->points, v->level_points, n * sizeof(long), 0, msg));
done:
  if (st != GS_OK) gs_vecchia_gpu_ic0_release(v);
  return st;
}

extern "C" gs_status gs_vecchia_gpu_ic0_begin(gs_vecchia *v, const double *d, int form_q, char *msg)
{
  gs_status st = GS_OK;
  vecchia_gpu_view view;
  warp_launch wl;
  GS_TRY(warp_launch_for(v->mp1, &wl, msg));
  GS_TRY(vecchia_gpu_view_get(v, &view, msg));
  GS_TRY(ic0_arrays(v, view.ctx, msg));
  {
    gs_vecchia_ic0_gpu *g = v->ic0_gpu;
    cudaStream_t s = view.ctx->stream[0];
    GS_TRY(gs_gpu_copy_to_device(view.ctx, g->d, d, (size_t)v->n * sizeof(double), 0, msg));
    GS_CUDA_TRY(cudaMemsetAsync(g->failed, 0xff, sizeof(unsigned long long), s));
    if (form_q) {
      ic0_form_q_kernel<<<grid_of(v->n, wl.warps), 32 * wl.warps, wl.shared, s>>>(
          view.nn, view.rev_start, view.rev, v->n, v->mp1, view.w, g->q);
      GS_CUDA_TRY(cudaGetLastError());
    }
  }
done:
  return st;
}

extern "C" gs_status gs_vecchia_gpu_ic0_level(gs_vecchia *v, long k, char *msg)
{
  gs_status st = GS_OK;
  vecchia_gpu_view view;
  warp_launch wl;
  gs_vecchia_ic0_gpu *g = v->ic0_gpu;
  const long p0 = v->level_start[k], count = v->level_start[k + 1] - p0;
  GS_TRY(warp_launch_for(v->mp1, &wl, msg));
  GS_TRY(vecchia_gpu_view_get(v, &view, msg));
  ic0_level_kernel<<<grid_of(count, wl.warps), 32 * wl.warps, wl.shared, view.ctx->stream[0]>>>(view.nn, view.rev_start, view.rev, v->mp1, g->points + p0, count, k, g->q,
                                            g->d, g->ic, g->failed);
  GS_CUDA_TRY(cudaGetLastError());
done:
  return st;
}

/* The pivots' kernel: L's diagonal into x. */
__global__ void ic0_pivots_kernel(const double *ic, long n, int mp1, double *x)
{
  const long i = (long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = ic[i * mp1];
}

extern "C" gs_status gs_vecchia_gpu_ic0_end(gs_vecchia *v, double *pivots, long *failed, char *msg)
{
  gs_status st = GS_OK;
  gs_vecchia_ic0_gpu *g = v->ic0_gpu;
  unsigned long long key = IC0_NONE;
  ic0_pivots_kernel<<<grid_of(v->n, IC0_THREADS), IC0_THREADS, 0, g->ctx->stream[0]>>>(g->ic, v->n, v->mp1, g->x);
  GS_CUDA_TRY(cudaGetLastError());
  GS_TRY(gs_gpu_copy_to_host(g->ctx, &key, g->failed, sizeof key, 0, msg));
  GS_TRY(gs_gpu_copy_to_host(g->ctx, pivots, g->x, (size_t)v->n * sizeof(double), 0, msg));
  *failed = key == IC0_NONE ? v->n : (long)(key & 0xffffffffULL);
done:
  return st;
}

extern "C" gs_status gs_vecchia_gpu_ic0_solve(gs_vecchia *v, const double *r, double *x, char *msg)
{
  gs_status st = GS_OK;
  vecchia_gpu_view view;
  gs_vecchia_ic0_gpu *g = v->ic0_gpu;
  GS_TRY(vecchia_gpu_view_get(v, &view, msg));
  {
    cudaStream_t s = view.ctx->stream[0];
    GS_TRY(gs_gpu_copy_to_device(view.ctx, g->x, r, (size_t)v->n * sizeof(double), 0, msg));
    for (long k = 0; k < v->levels; ++k) {
      const long p0 = v->level_start[k], count = v->level_start[k + 1] - p0;
      ic0_lower_kernel<<<grid_of(count, IC0_THREADS), IC0_THREADS, 0, s>>>(view.rev_start, view.rev, v->mp1,
                                                                        g->points + p0, count, g->ic, g->x);
    }
    for (long k = v->levels - 1; k >= 0; --k) {
      const long p0 = v->level_start[k], count = v->level_start[k + 1] - p0;
      ic0_upper_kernel<<<grid_of(count, IC0_THREADS), IC0_THREADS, 0, s>>>(view.nn, v->mp1, g->points + p0, count,
                                                                        g->ic, g->x);
    }
    GS_CUDA_TRY(cudaGetLastError());
    GS_TRY(gs_gpu_copy_to_host(view.ctx, x, g->x, (size_t)v->n * sizeof(double), 0, msg));
  }
done:
  return st;
}

extern "C" void gs_vecchia_gpu_ic0_release(gs_vecchia *v)
{
  gs_vecchia_ic0_gpu *g = v->ic0_gpu;
  if (!g) return;
  if (g->ctx) cudaSetDevice(g->ctx->device);
  cudaFree(g->q);
  cudaFree(g->ic);
  cudaFree(g->d);
  cudaFree(g->x);
  cudaFree(g->points);
  cudaFree(g->failed);
  free(g);
  v->ic0_gpu = NULL;
}
