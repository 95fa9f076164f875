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

gs_status gbees_gpu_monte_carlo(int device, const gs_gbees_model *model, double *x, size_t n, double t0, long n_steps,
                                double h, char *msg)
{
  (void)device, (void)model, (void)x, (void)n, (void)t0, (void)n_steps, (void)h;
  return gs_gpu_missing(msg);
}
