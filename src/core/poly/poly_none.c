/* The polynomial transforms' GPU entry points in a build without CUDA. */
#include "gs_bench.h"
#include "gs_gpu.h"
#include "gs_poly.h"

gs_status gs_dct_gpu(int device, int type, long n, long batch, const double *in, double *out, char *msg)
{
  (void)device, (void)type, (void)n, (void)batch, (void)in, (void)out;
  return gs_gpu_missing(msg);
}

gs_status gs_tridiag_solve_gpu(int device, const gs_tridiag_args *a, char *msg)
{
  (void)device, (void)a;
  return gs_gpu_missing(msg);
}

gs_status gs_jwt_synthesis_gpu(int device, const gs_jwt_args *a, char *msg)
{
  (void)device, (void)a;
  return gs_gpu_missing(msg);
}

gs_status gs_jwt_analysis_gpu(int device, const gs_jwt_args *a, char *msg)
{
  (void)device, (void)a;
  return gs_gpu_missing(msg);
}

gs_status gs_sht_analysis_gpu(int device, const gs_sht_args *a, gs_progress_fn progress, char *msg)
{
  (void)device, (void)a, (void)progress;
  return gs_gpu_missing(msg);
}

gs_status gs_sht_synthesis_gpu(int device, const gs_sht_args *a, gs_progress_fn progress, char *msg)
{
  (void)device, (void)a, (void)progress;
  return gs_gpu_missing(msg);
}

gs_status gs_legcheb_gpu(int device, const gs_legcheb_args *a, int threads, gs_progress_fn progress, char *msg)
{
  (void)device, (void)a, (void)threads, (void)progress;
  return gs_gpu_missing(msg);
}

gs_status gs_bench_tridiag_gpu(int device, long n, long count, int reps, double out[5], char *msg)
{
  (void)device, (void)n, (void)count, (void)reps, (void)out;
  return gs_gpu_missing(msg);
}
