/* Matérn covariance matrices on a GPU, produced column tile by column tile:
 * while one tile is copied into host memory the next is computed on the
 * other stream. */
#include <stdint.h>

#include "gs_bench.h"
#include "gs_bench_cuda.cuh"
#include "gs_gpu_ctx.cuh"
#include "gs_matern_cuda.cuh"

#define MATERN_THREADS 256
/* Blocks along the columns of a tile; each block then walks ncols / this many
 * columns, so that cheap entries (half-integer smoothness) are not limited by
 * launching millions of small blocks. */
#define MATERN_GRID_COLS 2048
/* Entries per tile at most (2 GB): bounds the time between interrupt checks. */
#define MATERN_MAX_TILE ((size_t)1 << 28)

/* Columns [j0, j0 + ncols) of the n1 x n2 matrix into tile (n1 x ncols). */
__global__ void matern_tile_kernel(matern_tile_args a, long j0, long ncols, double *tile)
{
  const long i = (long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= a.n1) return;
  for (long jj = blockIdx.y; jj < ncols; jj += gridDim.y) {
    const long j = j0 + jj;
    if (a.lower_only && i < j) continue;
    double v = matern_model_cov(&a.model, matern_distance(a.locs1, a.n1, i, a.locs2, a.n2, j, a.dim, a.model.metric));
    if (a.sym && i == j) v += a.model.nugget;
    tile[i + jj * a.n1] = v;
  }
}

cudaError_t matern_tile_launch(const matern_tile_args *a, long j0, long ncols, double *tile,
                                      cudaStream_t s)
{
  dim3 grid((unsigned)((a->n1 + MATERN_THREADS - 1) / MATERN_THREADS),
            (unsigned)(ncols < MATERN_GRID_COLS ? ncols : MATERN_GRID_COLS));
  matern_tile_kernel<<<grid, MATERN_THREADS, 0, s>>>(*a, j0, ncols, tile);
  return cudaGetLastError();
}

matern_tile_args matern_tile_setup(const gs_matern_cov_args *a, const double *d1, const double *d2)
{
  const int sym = (a->locs2 == NULL);
  const matern_tile_args t = {.model = matern_model_prepare(&a->model),
                              .locs1 = d1,
                              .locs2 = sym ? d1 : d2,
                              .n1 = a->n1,
                              .n2 = sym ? a->n1 : a->n2,
                              .dim = a->dim,
                              .sym = sym,
                              .lower_only = sym && a->lower_only};
  return t;
}

extern "C" gs_status gs_matern_cov_gpu(int device, const gs_matern_cov_args *a, gs_progress_fn progress,
                                       char *msg)
{
  gs_status st = gs_cov_model_check(&a->model, a->dim, msg);
  if (st != GS_OK) return st;
  gs_gpu_ctx *c = NULL;
  const int sym = (a->locs2 == NULL);
  const long n1 = a->n1, n2 = sym ? a->n1 : a->n2;
  if (n1 == 0 || n2 == 0) return GS_OK;
  const size_t loc_bytes = (size_t)(n1 + (sym ? 0 : n2)) * a->dim * sizeof(double);
  size_t free_b = 0;
  GS_TRY(gs_gpu_ctx_get(device, &c, msg));
  GS_TRY(gs_gpu_ctx_free_memory(c, &free_b, msg));
  {
    size_t usable = gs_gpu_budget(free_b);
    if (usable < loc_bytes + 2 * (size_t)n1 * sizeof(double)) {
      st = gs_set_msg(msg, GS_ERR_NOMEM, "not enough free GPU memory for %ld locations (%.0f MB free)",
                      n1, free_b / 1e6);
      goto done;
    }
    size_t tile_entries = (usable - loc_bytes) / 2 / sizeof(double);
    if (tile_entries > MATERN_MAX_TILE) tile_entries = MATERN_MAX_TILE;
    long cols = (long)(tile_entries / (size_t)n1);
    if (cols > n2) cols = n2;
    const size_t tile_bytes = (size_t)cols * n1 * sizeof(double);
    char *work = NULL;
    GS_TRY(gs_gpu_ctx_workspace(c, loc_bytes + 2 * tile_bytes, (void **)&work, msg));
    double *d1 = (double *)work, *d2 = d1 + (size_t)n1 * a->dim;
    double *tile[2] = {(double *)(work + loc_bytes), (double *)(work + loc_bytes + tile_bytes)};
    GS_TRY(gs_gpu_copy_to_device(c, d1, a->locs1, (size_t)n1 * a->dim * sizeof(double), 0, msg));
    if (!sym) GS_TRY(gs_gpu_copy_to_device(c, d2, a->locs2, (size_t)n2 * a->dim * sizeof(double), 0, msg));
    GS_CUDA_TRY(cudaStreamSynchronize(c->stream[0]));
    const matern_tile_args t = matern_tile_setup(a, d1, d2);
    const long ntiles = (n2 + cols - 1) / cols;
    GS_CUDA_TRY(matern_tile_launch(&t, 0, cols < n2 ? cols : n2, tile[0], c->stream[0]));
    for (long k = 0; k < ntiles; ++k) {
      const long j0 = k * cols, w = (n2 - j0 < cols) ? n2 - j0 : cols;
      if (k + 1 < ntiles) {
        const long j1 = j0 + cols, w1 = (n2 - j1 < cols) ? n2 - j1 : cols;
        GS_CUDA_TRY(matern_tile_launch(&t, j1, w1, tile[(k + 1) % 2], c->stream[(k + 1) % 2]));
      }
      GS_TRY(gs_gpu_copy_to_host(c, a->out + (size_t)j0 * n1, tile[k % 2], (size_t)w * n1 * sizeof(double),
                                 k % 2, msg));
      if (progress && k + 1 < ntiles && progress((double)(k + 1) / ntiles)) {
        st = gs_interrupted(msg);
        goto done;
      }
    }
  }
done:
  if (c)
    for (int s = 0; s < GS_GPU_STREAMS; ++s) cudaStreamSynchronize(c->stream[s]);
  return st;
}

__global__ void bench_locations(double *locs, long n)
{
  const long i = (long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < 2 * n) locs[i] = rng_uniform(7, (uint64_t)i);
}

extern "C" gs_status gs_bench_matern_cov_gpu(int device, size_t n, double smoothness, int reps,
                                             double *seconds, char *msg)
{
  gs_status st = GS_OK;
  gs_gpu_ctx *c = NULL;
  double *locs = NULL, *out = NULL;
  if (n == 0 || reps < 1 || !(smoothness > 0.0))
    return gs_set_msg(msg, GS_ERR_ARG, "the Matérn benchmark takes n >= 1, smoothness > 0 and reps >= 1");
  GS_TRY(gs_gpu_ctx_get(device, &c, msg));
  gs_gpu_ctx_workspace_release(c); /* the matrix needs the room */
  GS_CUDA_TRY(cudaMalloc(&locs, 2 * n * sizeof(double)));
  GS_CUDA_TRY(cudaMalloc(&out, n * n * sizeof(double)));
  {
    cudaStream_t s = c->stream[0];
    bench_locations<<<(unsigned)((2 * n + 255) / 256), 256, 0, s>>>(locs, (long)n);
    GS_CUDA_TRY(cudaGetLastError());
    const gs_matern_cov_args a = {.locs1 = locs,
                                  .n1 = (long)n,
                                  .locs2 = NULL,
                                  .n2 = 0,
                                  .dim = 2,
                                  .model = gs_cov_matern(MATERN_EUCLIDEAN, 1.0, 0.1, smoothness, 0.0),
                                  .lower_only = 0,
                                  .out = out};
    const matern_tile_args t = matern_tile_setup(&a, locs, NULL);
    st = bench_time(s, reps, [&] { return matern_tile_launch(&t, 0, (long)n, out, s); }, seconds, msg);
  }
done:
  if (c) cudaStreamSynchronize(c->stream[0]);
  cudaFree(locs);
  cudaFree(out);
  return st;
}
