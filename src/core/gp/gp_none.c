/* The Gaussian-process GPU entry points in a build without CUDA. */
#include "gs_gpu.h"
#include "gs_bench.h"
#include "gp_internal.h"

gs_status gs_bench_gp_loglik_gpu(int device, long n, double range, double smoothness, int reps, double seconds[3],
                                 char *msg)
{
  (void)device, (void)n, (void)range, (void)smoothness, (void)reps, (void)seconds;
  return gs_gpu_missing(msg);
}

gs_status gs_gp_gpu_init(gs_gp *gp, char *msg)
{
  (void)gp;
  return gs_gpu_missing(msg);
}

void gs_gp_gpu_release(gs_gp *gp) { (void)gp; }

gs_status gs_gp_gpu_upload_locations(gs_gp *gp, char *msg)
{
  (void)gp;
  return gs_gpu_missing(msg);
}

gs_status gs_gp_gpu_factor(gs_gp *gp, const gs_cov_model *p, double *logdet, long *failed_minor, char *msg)
{
  (void)gp, (void)p, (void)logdet, (void)failed_minor;
  return gs_gpu_missing(msg);
}

gs_status gs_gp_gpu_apply(gs_gp *gp, int what, const double *b, int k, double *out, char *msg)
{
  (void)gp, (void)what, (void)b, (void)k, (void)out;
  return gs_gpu_missing(msg);
}

gs_status gs_gp_gpu_derivatives(gs_gp *gp, const gs_gp_deriv_args *a, char *msg)
{
  (void)gp, (void)a;
  return gs_gpu_missing(msg);
}

const double *gs_gp_gpu_diagonal(const gs_gp *gp)
{
  (void)gp;
  return NULL;
}

gs_status gs_gp_gpu_krige(gs_gp *gp, const gs_gp_krige_args *a, char *msg)
{
  (void)gp, (void)a;
  return gs_gpu_missing(msg);
}
