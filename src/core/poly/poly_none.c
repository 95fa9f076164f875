/* The polynomial transforms' GPU entry points in a build without CUDA. */
#include "gs_bench.h"
#include "gs_gpu.h"
#include "gs_poly.h"
#include "jw_internal.h"

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

gs_status jw_plan_gpu_make(gs_jwt_plan *p, char *msg)
{
  (void)p;
  return gs_gpu_missing(msg);
}

void jw_plan_gpu_release(gs_jwt_plan *p) { (void)p; }

gs_status jw_plan_gpu_execute(const gs_jwt_plan *p, const jw_layout *y, int analysis, gs_progress_fn progress,
                              char *msg)
{
  (void)p, (void)y, (void)analysis, (void)progress;
  return gs_gpu_missing(msg);
}

size_t jw_plan_gpu_work_bytes(const gs_jwt_plan *p, long ncol, int analysis)
{
  (void)p, (void)ncol, (void)analysis;
  return 0;
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

gs_status gs_bench_sht_gpu(int device, int lmax, int reps, double out[5], char *msg)
{
  (void)device, (void)lmax, (void)reps, (void)out;
  return gs_gpu_missing(msg);
}
