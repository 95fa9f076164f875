/* The GPU layer of a build without CUDA: no devices, and every GPU entry
 * point explains why. */
#include <stdlib.h>

#include "gs_gpu.h"
#include "gs_map.h"
#include "gs_matern.h"
#include "gs_bench.h"
#include "gp_internal.h"
#include "gs_tile.h"
#include "gbees_internal.h"

static gs_status no_gpu(char *msg)
{
  return gs_set_msg(msg, GS_ERR_NO_GPU, "gpustats was built without CUDA; reinstall it on a machine with the CUDA toolkit to use a GPU");
}

int gs_gpu_count(void) { return 0; }

gs_status gs_gpu_props_get(int device, gs_gpu_props *p, char *msg)
{
  (void)device;
  (void)p;
  return no_gpu(msg);
}

void gs_gpu_release_all(void) {}

gs_status gs_map_gpu(int device, const gs_map_args *a, gs_progress_fn progress, char *msg)
{
  (void)device, (void)a, (void)progress;
  return no_gpu(msg);
}

gs_status gs_matern_cov_gpu(int device, const gs_matern_cov_args *a, gs_progress_fn progress,
                            char *msg)
{
  (void)device, (void)a, (void)progress;
  return no_gpu(msg);
}

gs_status gs_bench_map_gpu(int device, int op, size_t n, int reps, double *seconds, char *msg)
{
  (void)device, (void)op, (void)n, (void)reps, (void)seconds;
  return no_gpu(msg);
}

gs_status gs_bench_matern_cov_gpu(int device, size_t n, double smoothness, int reps, double *seconds,
                                  char *msg)
{
  (void)device, (void)n, (void)smoothness, (void)reps, (void)seconds;
  return no_gpu(msg);
}

gs_status gs_bench_gp_loglik_gpu(int device, long n, double range, double smoothness, int reps, double seconds[3],
                                 char *msg)
{
  (void)device, (void)n, (void)range, (void)smoothness, (void)reps, (void)seconds;
  return no_gpu(msg);
}

gs_status gs_gp_gpu_init(gs_gp *gp, char *msg)
{
  (void)gp;
  return no_gpu(msg);
}

void gs_gp_gpu_release(gs_gp *gp) { (void)gp; }

gs_status gs_gp_gpu_factor(gs_gp *gp, const gs_matern_params *p, double *logdet, long *failed_minor, char *msg)
{
  (void)gp, (void)p, (void)logdet, (void)failed_minor;
  return no_gpu(msg);
}

gs_status gs_gp_gpu_apply(gs_gp *gp, int what, const double *b, int k, double *out, char *msg)
{
  (void)gp, (void)what, (void)b, (void)k, (void)out;
  return no_gpu(msg);
}

gs_status gs_tile_chol_gpu(int device, gs_tile_matrix *m, const gs_tile_source *src, const gs_tile_options *opt,
                           gs_tile_info *info, char *msg)
{
  (void)device, (void)m, (void)src, (void)opt, (void)info;
  return no_gpu(msg);
}

gs_status gs_tile_norms_gpu(int device, const gs_tile_matrix *m, const gs_tile_source *src, double *sumsq,
                            double *max_abs, char *msg)
{
  (void)device, (void)m, (void)src, (void)sumsq, (void)max_abs;
  return no_gpu(msg);
}

void gs_tile_resident_free(gs_tile_matrix *m)
{
  (void)m; /* only a GPU makes a resident factor */
}

gs_status gs_tile_resident_apply(const gs_tile_matrix *m, int what, double *b, long k, char *msg)
{
  (void)m, (void)what, (void)b, (void)k;
  return no_gpu(msg);
}

gs_status gs_tile_resident_low_sumsq(const gs_tile_matrix *m, const unsigned char *which, double *sumsq, char *msg)
{
  (void)m, (void)which, (void)sumsq;
  return no_gpu(msg);
}

void *gs_host_alloc(size_t bytes, int want_pinned, int *pinned)
{
  (void)want_pinned;
  *pinned = 0;
  return malloc(bytes ? bytes : 1);
}

void gs_host_free(void *p, int pinned)
{
  (void)pinned;
  free(p);
}

gs_status gs_bench_tile_chol_gpu(const int *gpus, int ngpus, long n, int nb, int cache_tiles, int reps, double out[9],
                                  char *msg)
{
  (void)gpus, (void)ngpus, (void)n, (void)nb, (void)cache_tiles, (void)reps, (void)out;
  return no_gpu(msg);
}

gs_status gbees_gpu_start(gs_gbees *g, int device, char *msg)
{
  (void)g, (void)device;
  return no_gpu(msg);
}

gs_status gbees_gpu_propagate(gs_gbees *g, double t_end, char *msg)
{
  (void)g, (void)t_end;
  return no_gpu(msg);
}

gs_status gbees_gpu_cells(const gs_gbees *g, int32_t *keys, double *prob, char *msg)
{
  (void)g, (void)keys, (void)prob;
  return no_gpu(msg);
}

gs_status gbees_gpu_reweighted(gs_gbees *g, const double *prob, char *msg)
{
  (void)g, (void)prob;
  return no_gpu(msg);
}

void gbees_gpu_free(gbees_gpu *gpu)
{
  (void)gpu;
}

gs_status gbees_gpu_monte_carlo(int device, const gs_gbees_model *model, double *x, size_t n, double t0, long n_steps,
                                double h, char *msg)
{
  (void)device, (void)model, (void)x, (void)n, (void)t0, (void)n_steps, (void)h;
  return no_gpu(msg);
}

gs_status gs_bench_tile_chol_mixed_gpu(int device, const gs_tile_source *src, long n, int nb, double accuracy, int fp8,
                                       int reps, double out[10], char *msg)
{
  (void)device, (void)src, (void)n, (void)nb, (void)accuracy, (void)fp8, (void)reps, (void)out;
  return no_gpu(msg);
}
