/* The tile Cholesky's GPU entry points in a build without CUDA. */
#include "gs_bench.h"
#include "gs_gpu.h"
#include "tile_internal.h"

gs_status gs_tile_chol_gpu(int device, gs_tile_matrix *m, const gs_tile_source *src, const gs_tile_options *opt,
                           gs_tile_info *info, char *msg)
{
  (void)device, (void)m, (void)src, (void)opt, (void)info;
  return gs_gpu_missing(msg);
}

gs_status gs_tile_norms_gpu(int device, const gs_tile_matrix *m, const gs_tile_source *src, double *sumsq,
                            double *max_abs, char *msg)
{
  (void)device, (void)m, (void)src, (void)sumsq, (void)max_abs;
  return gs_gpu_missing(msg);
}

void gs_tile_resident_free(gs_tile_matrix *m)
{
  (void)m; /* only a GPU makes a resident factor */
}

gs_status gs_tile_resident_apply(const gs_tile_matrix *m, int what, double *b, long k, char *msg)
{
  (void)m, (void)what, (void)b, (void)k;
  return gs_gpu_missing(msg);
}

gs_status gs_tile_resident_low_sumsq(const gs_tile_matrix *m, const unsigned char *which, double *sumsq, char *msg)
{
  (void)m, (void)which, (void)sumsq;
  return gs_gpu_missing(msg);
}

gs_status gs_bench_tile_chol_gpu(const int *gpus, int ngpus, long n, int nb, int cache_tiles, int reps, double out[9],
                                  char *msg)
{
  (void)gpus, (void)ngpus, (void)n, (void)nb, (void)cache_tiles, (void)reps, (void)out;
  return gs_gpu_missing(msg);
}

gs_status gs_bench_tile_chol_mixed_gpu(int device, const double *locs, long n, int dim, const gs_cov_model *model,
                                       int nb, double accuracy, int fp8, int reps, double out[10], char *msg)
{
  (void)device, (void)locs, (void)n, (void)dim, (void)model, (void)nb, (void)accuracy, (void)fp8, (void)reps,
      (void)out;
  return gs_gpu_missing(msg);
}
