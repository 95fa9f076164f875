/* The spherical-harmonic transforms' benchmark (gs_bench_sht_gpu): on the
 * Gauss grid of degree lmax and random coefficients, in one call, the
 * device-resident synthesis and analysis of one field (cuFFT and the
 * Legendre sums, data on the device, timed with CUDA events, as SHTns
 * reports its GPU transforms) and the host copies that sht_synthesis() and
 * sht_analysis() make around them (wall clock), with the round trip's
 * error as a check that the timed work is the transform. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gs_bench.h"
#include "gs_bench_cuda.cuh"
#include "sht_cuda.cuh"

/* One direction: times its upload, its pass and its download; t[0] the
 * pass, t[1] the two copies. */
static gs_status sht_bench_direction(int device, const gs_sht_args *a, int analysis, int reps, double t[2], char *msg)
{
  gs_status st = GS_OK;
  sht_gpu_run r;
  double t_in = 0.0, t_out = 0.0;
  GS_TRY(sht_gpu_open(device, a, analysis, &r, msg));
  {
    cudaStream_t s = r.c->stream[0];
    auto upload = [&]() -> gs_status {
      gs_status u = analysis ? gs_gpu_copy_to_device(r.c, r.v, a->values, r.vbytes, 0, msg)
                             : gs_gpu_copy_to_device(r.c, r.cs, a->cos_part, r.cbytes, 0, msg);
      if (u == GS_OK && !analysis) u = gs_gpu_copy_to_device(r.c, r.sn, a->sin_part, r.cbytes, 0, msg);
      return u == GS_OK && cudaStreamSynchronize(s) != cudaSuccess ? gs_set_msg(msg, GS_ERR_CUDA, "copy failed") : u;
    };
    auto pass = [&]() { return sht_gpu_pass(&r, analysis, msg) == GS_OK ? cudaSuccess : cudaErrorUnknown; };
    auto download = [&]() -> gs_status {
      gs_status u = analysis ? gs_gpu_copy_to_host(r.c, a->cos_part, r.cs, r.cbytes, 0, msg)
                             : gs_gpu_copy_to_host(r.c, a->values, r.v, r.vbytes, 0, msg);
      return u == GS_OK && analysis ? gs_gpu_copy_to_host(r.c, a->sin_part, r.sn, r.cbytes, 0, msg) : u;
    };
    GS_TRY(bench_wall_time(reps, upload, &t_in, msg));
    GS_TRY(bench_time(s, reps, pass, &t[0], msg));
    GS_TRY(bench_wall_time(reps, download, &t_out, msg));
    t[1] = t_in + t_out;
  }
done:
  sht_gpu_close(&r);
  return st;
}

/* The relative L2 difference of (c1, s1) from (c0, s0), n values each. */
static double rel_l2(const double *c1, const double *c0, size_t n)
{
  double d = 0.0, s = 0.0;
  for (size_t i = 0; i < n; ++i) d += (c1[i] - c0[i]) * (c1[i] - c0[i]), s += c0[i] * c0[i];
  return sqrt(d / s);
}

extern "C" gs_status gs_bench_sht_gpu(int device, int lmax, int reps, double out[5], char *msg)
{
  gs_status st = GS_OK;
  const int L = lmax + 1;
  const long nlat = L, nlon = 2L * L;
  const size_t L2 = (size_t)L * L;
  if (lmax < 1 || lmax > 20000 || reps < 1 || reps > 32)
    return gs_set_msg(msg, GS_ERR_ARG, "the SHT benchmark needs 1 <= lmax <= 20000 and 1 <= reps <= 32");
  double *grid = (double *)malloc(3 * (size_t)nlat * sizeof(double)), *coef = (double *)calloc(4 * L2, sizeof(double));
  double *values = (double *)calloc((size_t)nlat * nlon, sizeof(double));
  if (!grid || !coef || !values) {
    st = gs_set_msg(msg, GS_ERR_NOMEM, "out of host memory");
    goto done;
  }
  GS_TRY(gs_gauss_legendre(nlat, grid, grid + nlat, grid + 2 * nlat, 0, NULL, msg));
  for (int m = 0; m <= lmax; ++m)
    for (int l = m; l <= lmax; ++l) {
      const size_t i = l + (size_t)L * m;
      coef[i] = 2.0 * rng_uniform(41, i) - 1.0;
      coef[L2 + i] = m ? 2.0 * rng_uniform(42, i) - 1.0 : 0.0;
    }
  {
    gs_sht_args a = {.lmax = lmax, .nlat = nlat, .nlon = nlon, .nfield = 1, .x = grid, .w = grid + 2 * nlat,
                     .x_lo = grid + nlat, .values = values, .cos_part = coef, .sin_part = coef + L2};
    double t[2];
    GS_TRY(sht_bench_direction(device, &a, 0, reps, t, msg));
    out[0] = t[0], out[2] = t[1];
    a.cos_part = coef + 2 * L2, a.sin_part = coef + 3 * L2;
    GS_TRY(sht_bench_direction(device, &a, 1, reps, t, msg));
    out[1] = t[0], out[3] = t[1];
    out[4] = rel_l2(coef + 2 * L2, coef, 2 * L2);
  }
done:
  free(grid);
  free(coef);
  free(values);
  return st;
}
