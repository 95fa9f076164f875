/* Benchmarks of the tile Cholesky (gs_bench.h): cuSOLVER on the whole
 * matrix against the tiles, in and out of core, in FP64 and mixed precision. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gs_bench.h"
#include "gs_bench_cuda.cuh"
#include "gs_cpu.h"
#include "tile_run.cuh"

/* Random points in the unit square, as the GP benchmark uses. */
static gs_status bench_source(long n, double **locs, gs_tile_source *src, char *msg)
{
  *locs = (double *)malloc((size_t)n * 2 * sizeof(double));
  if (!*locs) return gs_set_msg(msg, GS_ERR_NOMEM, "out of host memory");
  for (long i = 0; i < 2 * n; ++i) (*locs)[i] = rng_uniform(11, (uint64_t)i);
  memset(src, 0, sizeof *src);
  src->locs = *locs;
  src->dim = 2;
  src->model = gs_cov_matern(MATERN_EUCLIDEAN, 1.0, 0.1, 0.5, 1e-2);
  return GS_OK;
}

/* The DGEMM that bounds a factorization's rate: c = a b' on three disjoint
 * 8192 x 8192 blocks of the generated covariance in a (n >= 3 * 8192). */
#define BENCH_GEMM_N 8192
/* cuSOLVER on the whole matrix in device memory: seconds[0] generation and
 * Xpotrf, seconds[1] generation alone, seconds[2] one BENCH_GEMM_N DGEMM. */
static gs_status bench_cusolver(int device, const gs_tile_source *src, long n, int reps, double seconds[3], char *msg)
{
  gs_status st = GS_OK;
  gs_gpu_ctx *c = NULL;
  double *a = NULL, *locs = NULL;
  void *work = NULL, *host_work = NULL;
  size_t work_bytes = 0, host_bytes = 0;
  int *info = NULL;
  GS_TRY(gs_gpu_ctx_get(device, &c, msg));
  GS_TRY(gs_gpu_ctx_solvers(c, msg));
  gs_gpu_ctx_workspace_release(c); /* the matrix needs the room */
  GS_CUDA_TRY(cudaMalloc(&a, (size_t)n * n * sizeof(double)));
  GS_CUDA_TRY(cudaMalloc(&locs, (size_t)n * 2 * sizeof(double)));
  GS_CUDA_TRY(cudaMalloc(&info, sizeof(int)));
  GS_CUDA_TRY(cudaMemcpy(locs, src->locs, (size_t)n * 2 * sizeof(double), cudaMemcpyHostToDevice));
  GS_TRY(gs_cusolver_status(cusolverDnXpotrf_bufferSize(c->solver, c->solver_params, CUBLAS_FILL_MODE_LOWER, n,
                                                        CUDA_R_64F, a, n, CUDA_R_64F, &work_bytes, &host_bytes),
                            "cusolverDnXpotrf_bufferSize", msg));
  GS_CUDA_TRY(cudaMalloc(&work, work_bytes ? work_bytes : 1));
  if (!(host_work = malloc(host_bytes ? host_bytes : 1))) {
    st = gs_set_msg(msg, GS_ERR_NOMEM, "out of host memory");
    goto done;
  }
  {
    const gs_matern_cov_args args = gs_matern_cov_self(NULL, n, 2, &src->model, NULL);
    const matern_tile_args g_args = matern_tile_setup(&args, locs, NULL);
    for (int factor = 1; factor >= 0; --factor)
      GS_TRY(bench_wall_time(reps, [&] {
        gs_status s = matern_tile_launch(&g_args, 0, n, a, c->stream[0]) == cudaSuccess
                          ? GS_OK
                          : gs_set_msg(msg, GS_ERR_CUDA, "the Matérn kernel failed");
        if (s == GS_OK && factor)
          s = gs_cusolver_status(cusolverDnXpotrf(c->solver, c->solver_params, CUBLAS_FILL_MODE_LOWER, n, CUDA_R_64F, a,
                                                  n, CUDA_R_64F, work, work_bytes, host_work, host_bytes, info),
                                 "cusolverDnXpotrf", msg);
        if (s == GS_OK && cudaStreamSynchronize(c->stream[0]) != cudaSuccess)
          s = gs_set_msg(msg, GS_ERR_CUDA, "the cuSOLVER factorization failed");
        return s;
      }, &seconds[!factor], msg));
    seconds[2] = NAN;
    if (n >= 3 * BENCH_GEMM_N) {
      const double one = 1.0, zero = 0.0;
      const int g = BENCH_GEMM_N;
      GS_CUDA_TRY(matern_tile_launch(&g_args, 0, n, a, c->stream[0]));
      GS_TRY(bench_wall_time(reps, [&] {
        gs_status s = gs_cublas_status(cublasDgemm(c->blas, CUBLAS_OP_N, CUBLAS_OP_T, g, g, g, &one, a + g, n,
                                                   a + 2 * g, n, &zero, a + (size_t)g * n, n),
                                       "cublasDgemm", msg);
        if (s == GS_OK && cudaStreamSynchronize(c->stream[0]) != cudaSuccess)
          s = gs_set_msg(msg, GS_ERR_CUDA, "the DGEMM failed");
        return s;
      }, &seconds[2], msg));
    }
  }
done:
  cudaFree(a);
  cudaFree(locs);
  cudaFree(info);
  cudaFree(work);
  free(host_work);
  return st;
}

/* The tile Cholesky of the same matrix, generated tile by tile: with L kept
 * in device memory (resident, which the whole matrix must fit) or copied to
 * pinned host memory. */
static gs_status bench_tiles(const int *gpus, int ngpus, const gs_tile_source *src, long n, int nb, int cache_tiles,
                             int resident, int reps, double *seconds, gs_tile_info *info, char *msg)
{
  gs_status st = GS_OK;
  gs_tile_matrix *m = NULL;
  const int device = gpus[0];
  gs_tile_options opt{}; /* FP64, no progress */
  opt.cache_tiles = cache_tiles;
  opt.resident = resident;
  opt.gpus = gpus;
  opt.ngpus = ngpus;
  GS_TRY(gs_tile_matrix_create(n, nb, !resident, &m, msg));
  gs_tile_matrix_layout(m, NULL, NULL); /* all FP64 */
  GS_TRY(bench_wall_time(reps, [&] {
    memset(info, 0, sizeof *info);
    gs_status s = gs_tile_chol_gpu(device, m, src, &opt, info, msg);
    if (s == GS_OK && resident && !m->resident)
      s = gs_set_msg(msg, GS_ERR_NOMEM, "the factor must stay on GPU %d, but only %d of its %ld tiles fit", device,
                     info->cache_tiles, gs_tile_count(m->nt));
    return s;
  }, seconds, msg));
done:
  gs_tile_matrix_free(m);
  return st;
}

/* See gs_bench.h. */
extern "C" gs_status gs_bench_tile_chol_gpu(const int *gpus, int ngpus, long n, int nb, int cache_tiles, int reps,
                                            double out[9], char *msg)
{
  gs_status st = GS_OK;
  double *locs = NULL;
  gs_tile_source src;
  gs_tile_info info;
  double cusolver[3];
  for (int k = 0; k < 9; ++k) out[k] = NAN;
  GS_TRY(bench_source(n, &locs, &src, msg));
  if (cache_tiles == 0 && ngpus == 1) {
    GS_TRY(bench_cusolver(gpus[0], &src, n, reps, cusolver, msg));
    out[0] = cusolver[0];
    out[1] = cusolver[1];
    out[8] = cusolver[2];
    GS_TRY(bench_tiles(gpus, 1, &src, n, nb, 0, 1, reps, &out[2], &info, msg));
  }
  GS_TRY(bench_tiles(gpus, ngpus, &src, n, nb, cache_tiles > 0 ? cache_tiles : 0, 0, reps, &out[3], &info, msg));
  out[4] = info.bytes_to_device;
  out[5] = info.bytes_to_host;
  out[6] = info.cache_tiles;
  out[7] = (double)info.tile_loads;
done:
  free(locs);
  return st;
}

extern "C" gs_status gs_bench_tile_chol_mixed_gpu(int device, const double *locs, long n, int dim,
                                                  const gs_cov_model *model, int nb, double accuracy, int fp8, int reps,
                                                  double out[10], char *msg)
{
  gs_status st = GS_OK;
  const gs_tile_source source = {.a = NULL, .lda = 0, .locs = locs, .dim = dim, .model = *model};
  const gs_tile_source *src = &source;
  gs_tile_matrix *m = NULL;
  gs_tile_info info;
  gs_tile_map map = {NULL, NULL, NULL};
  for (int k = 0; k < 10; ++k) out[k] = NAN;
  GS_TRY(gs_tile_matrix_create(n, nb, 1, &m, msg));
  for (int mixed = 0; mixed <= 1; ++mixed) { /* FP64 first: its host memory holds every later layout */
    gs_tile_options opt{};
    opt.accuracy = mixed ? accuracy : 0.0;
    opt.fp8 = fp8;
    GS_TRY(bench_wall_time(reps, [&] { return gs_tile_chol(device, m, src, &opt, &info, msg); }, &out[mixed], msg));
    out[7 + mixed] = info.logdet;
  }
  {
    const long ntiles = gs_tile_count(m->nt);
    for (int p = 0; p < GS_TILE_PRECISIONS; ++p) out[3 + p] = 0;
    for (long t = 0; t < ntiles; ++t) out[3 + m->precision[t]] += 1;
    out[9] = info.attempts;
  }
  {
    const double t0 = gs_wall_seconds();
    GS_TRY(gs_tile_map_build(device, m, src, accuracy, fp8 ? GS_TILE_FP8 : GS_TILE_FP16, 0, &map, msg));
    out[2] = gs_wall_seconds() - t0;
  }
done:
  gs_tile_map_free(&map);
  gs_tile_matrix_free(m);
  return st;
}
