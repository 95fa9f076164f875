/* The GPU spherical-harmonic transforms in parts (sht_cuda.cu), for the
 * transforms themselves and their benchmark (sht_bench_cuda.cu): a run set
 * up for one grid, the device-resident pass of one field (cuFFT and the
 * Legendre sums, data in the run's buffers), and the run's release. */
#ifndef GS_SHT_CUDA_CUH
#define GS_SHT_CUDA_CUH

#include <cufft.h>

#include "gs_gpu_ctx.cuh"
#include "gs_poly.h"

/* The lanes on the device, padded to whole blocks (padding: no latitude, weight 0). */
typedef struct {
  int lmax, nblk; /* nblk blocks of lanes per order */
  long nlat, nspec;
  const int *north, *south;
  const double *x, *x_lo, *sin_t, *w_n, *w_s, *seed; /* seed[m] = alp_seed(m) */
  const unsigned char *needed; /* needed[m * nblk + b] */
  double dphi; /* 2 pi / nlon */
} sht_dev;

/* The host side of the lanes, padded to nblk blocks of SHT_BLOCK * K lanes,
 * and the seeds of every order, in one buffer laid out as on the device. */
typedef struct {
  size_t nl; /* padded lanes */
  int *north, *south;
  double *x, *x_lo, *sin_t, *w_n, *w_s, *seed;
  void *buf;
  size_t bytes;
} sht_host_lanes;

typedef struct {
  gs_gpu_ctx *c;
  cufftHandle plan;
  int planned, K, nblk; /* K lanes a thread, nblk blocks of lanes an order */
  sht_host_lanes lanes;
  sht_dev d;
  size_t vbytes, sbytes, cbytes; /* a field's values, half spectrum, cos (or sin) coefficients */
  double2 *spec;
  double *v, *cs, *sn; /* values nlat x nlon, coefficients (lmax + 1)^2 each, column-major */
} sht_gpu_run;

/* Sets up r for a's grid and degree (analysis: the forward FFT plan, else
 * the inverse); sht_gpu_close(r) releases it, also after a failure. */
gs_status sht_gpu_open(int device, const gs_sht_args *a, int analysis, sht_gpu_run *r, char *msg);

/* Analysis: r->cs, r->sn from r->v; synthesis the reverse; queued on the
 * context's stream 0. */
gs_status sht_gpu_pass(const sht_gpu_run *r, int analysis, char *msg);

void sht_gpu_close(sht_gpu_run *r);

#endif
