/* The Vecchia GPU entry points in a build without CUDA. */
#include "gs_gpu.h"
#include "vecchia_internal.h"

gs_status gs_vecchia_gpu_init(gs_vecchia *v, char *msg)
{
  (void)v;
  return gs_gpu_missing(msg);
}

void gs_vecchia_gpu_release(gs_vecchia *v) { (void)v; }

gs_status gs_vecchia_gpu_run(gs_vecchia *v, const gs_cov_model *prm, const double *y, const double *X, int p,
                             int deriv, int keep_factor, double *sums, long *failed_point, char *msg)
{
  (void)v, (void)prm, (void)y, (void)X, (void)p, (void)deriv, (void)keep_factor, (void)sums, (void)failed_point;
  return gs_gpu_missing(msg);
}

gs_status gs_vecchia_gpu_apply(gs_vecchia *v, int what, const double *b, int k, double *out, char *msg)
{
  (void)v, (void)what, (void)b, (void)k, (void)out;
  return gs_gpu_missing(msg);
}

gs_status gs_vecchia_gpu_set_noise(gs_vecchia *v, char *msg)
{
  (void)v;
  return gs_gpu_missing(msg);
}

gs_status gs_vecchia_gpu_factor_to_host(gs_vecchia *v, double *w, char *msg)
{
  (void)v, (void)w;
  return gs_gpu_missing(msg);
}

gs_status gs_vecchia_gpu_ic0_begin(gs_vecchia *v, const double *d, int form_q, char *msg)
{
  (void)v, (void)d, (void)form_q;
  return gs_gpu_missing(msg);
}

gs_status gs_vecchia_gpu_ic0_level(gs_vecchia *v, long k, char *msg)
{
  (void)v, (void)k;
  return gs_gpu_missing(msg);
}

gs_status gs_vecchia_gpu_ic0_end(gs_vecchia *v, double *pivots, long *failed, char *msg)
{
  (void)v, (void)pivots, (void)failed;
  return gs_gpu_missing(msg);
}

gs_status gs_vecchia_gpu_ic0_solve(gs_vecchia *v, const double *r, double *x, char *msg)
{
  (void)v, (void)r, (void)x;
  return gs_gpu_missing(msg);
}

void gs_vecchia_gpu_ic0_release(gs_vecchia *v) { (void)v; }
