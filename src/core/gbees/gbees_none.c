/* The GBEES GPU entry points in a build without CUDA. */
#include "gs_gpu.h"
#include "gbees_internal.h"

gs_status gbees_gpu_start(gs_gbees *g, int device, char *msg)
{
  (void)g, (void)device;
  return gs_gpu_missing(msg);
}

gs_status gbees_gpu_propagate(gs_gbees *g, double t_end, char *msg)
{
  (void)g, (void)t_end;
  return gs_gpu_missing(msg);
}

gs_status gbees_gpu_cells(const gs_gbees *g, int32_t *keys, double *prob, char *msg)
{
  (void)g, (void)keys, (void)prob;
  return gs_gpu_missing(msg);
}

gs_status gbees_gpu_reweighted(gs_gbees *g, const double *prob, char *msg)
{
  (void)g, (void)prob;
  return gs_gpu_missing(msg);
}

void gbees_gpu_free(gbees_gpu *gpu)
{
  (void)gpu;
}

gs_status gbees_gpu_mc_start(int device, const gs_gbees_model *model, const double *x, size_t n, gbees_gpu_mc **out,
                             char *msg)
{
  (void)device, (void)model, (void)x, (void)n, (void)out;
  return gs_gpu_missing(msg);
}

gs_status gbees_gpu_mc_advance(gbees_gpu_mc *mc, double t0, long first, long count, double h, char *msg)
{
  (void)mc, (void)t0, (void)first, (void)count, (void)h;
  return gs_gpu_missing(msg);
}

gs_status gbees_gpu_mc_finish(gbees_gpu_mc *mc, double *x, char *msg)
{
  (void)mc, (void)x;
  return gs_gpu_missing(msg);
}

void gbees_gpu_mc_free(gbees_gpu_mc *mc)
{
  (void)mc;
}

gs_status gbees_gpu_kernel_sums(int device, const gbees_kde_sources *s, const double *eval, const int64_t *group,
                                size_t groups, gs_progress_fn progress, double *out, char *msg)
{
  (void)device, (void)s, (void)eval, (void)group, (void)groups, (void)progress, (void)out;
  return gs_gpu_missing(msg);
}

gs_status gbees_gpu_measurement_start(int device, int dim, const char *source, gbees_gpu_measurement **out, char *msg)
{
  (void)device, (void)dim, (void)source, (void)out;
  return gs_gpu_missing(msg);
}

gs_status gbees_gpu_measurement_loglik(const gs_gbees *g, const gbees_gpu_measurement *h, const int *index,
                                       const gbees_observation *obs, double *loglik, char *msg)
{
  (void)g, (void)h, (void)index, (void)obs, (void)loglik;
  return gs_gpu_missing(msg);
}

void gbees_gpu_measurement_free(gbees_gpu_measurement *h)
{
  (void)h;
}
