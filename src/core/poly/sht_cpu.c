/* Spherical-harmonic transforms of real fields on the CPU: an FFT along
 * each latitude (FFTW), then for each order m the associated Legendre sums
 * over the latitudes, by the recurrence in l of the orthonormal functions
 * with a scaled seed (poly_math.h). Orders are spread over the threads. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gs_cpu.h"
#include "gs_poly.h"
#include "poly_internal.h"
#include "poly_fftw.h"
#include "poly_math.h"
#include "sht_internal.h"

#ifdef GS_HAVE_FFTW

typedef struct {
  const gs_sht_args *a;
  double *gc, *gs; /* nlat x (lmax + 1): the longitude parts of one field */
} sht_field;

/* Rows per FFT task: SHT_ROWS consecutive latitudes are read and written
 * together, one cache line of R's column-major values per longitude. */
#define SHT_ROWS 8

/* The FFTs of rows i0 .. i0 + SHT_ROWS - 1 (those below nlat), through the
 * task's buffers r (SHT_ROWS x nlon) and s (SHT_ROWS x nspec). */
static void sht_rows(const sht_field *f, fftw_plan p, double *vals, long i0, int analysis, double *r, fftw_complex *s)
{
  const gs_sht_args *a = f->a;
  const long nlon = a->nlon, nlat = a->nlat, nspec = nlon / 2 + 1, nk = nlat - i0 < SHT_ROWS ? nlat - i0 : SHT_ROWS;
  const double dphi = 2.0 * M_PI / nlon, r2 = sqrt(2.0);
  if (analysis) {
    for (long j = 0; j < nlon; ++j)
      for (long k = 0; k < SHT_ROWS; ++k) r[k * nlon + j] = k < nk ? vals[i0 + k + j * nlat] : 0.0;
    fftw_execute_dft_r2c(p, r, s);
    for (int m = 0; m <= a->lmax; ++m)
      for (long k = 0; k < nk; ++k) {
        const double sc = m ? dphi * r2 : dphi;
        f->gc[i0 + k + nlat * m] = sc * s[k * nspec + m][0];
        f->gs[i0 + k + nlat * m] = -sc * s[k * nspec + m][1];
      }
    return;
  }
  memset(s, 0, (size_t)SHT_ROWS * nspec * sizeof(fftw_complex));
  for (int m = 0; m <= a->lmax; ++m)
    for (long k = 0; k < nk; ++k) {
      s[k * nspec + m][0] = m ? f->gc[i0 + k + nlat * m] / r2 : f->gc[i0 + k];
      s[k * nspec + m][1] = m ? -f->gs[i0 + k + nlat * m] / r2 : 0.0;
    }
  fftw_execute_dft_c2r(p, s, r);
  for (long j = 0; j < nlon; ++j)
    for (long k = 0; k < nk; ++k) vals[i0 + k + j * nlat] = r[k * nlon + j];
}

/* The FFTs along the latitudes of one field: analysis turns row i of the
 * values into gc/gs[i + nlat m] (the cos and sin integrals over longitude
 * of the real harmonics); synthesis the reverse. One plan (SHT_ROWS rows)
 * serves all tasks, each with its own buffers. */
static gs_status sht_longitude(const sht_field *f, long field, int analysis, int threads, char *msg)
{
  const gs_sht_args *a = f->a;
  const long nlon = a->nlon, nlat = a->nlat, nspec = nlon / 2 + 1;
  double *vals = a->values + (size_t)field * nlat * nlon;
  double *row = fftw_alloc_real((size_t)SHT_ROWS * nlon);
  fftw_complex *spec = fftw_alloc_complex((size_t)SHT_ROWS * nspec);
  const int n = (int)nlon;
  fftw_plan p = NULL;
  if (row && spec)
    p = analysis ? fftw_plan_many_dft_r2c(1, &n, SHT_ROWS, row, NULL, 1, n, spec, NULL, 1, (int)nspec, FFTW_ESTIMATE)
                 : fftw_plan_many_dft_c2r(1, &n, SHT_ROWS, spec, NULL, 1, (int)nspec, row, NULL, 1, n, FFTW_ESTIMATE);
  fftw_free(row);
  fftw_free(spec);
  if (!p) return gs_set_msg(msg, GS_ERR_NOMEM, "FFTW could not plan an FFT of length %ld", nlon);
  const int nt = gs_cpu_threads_for(threads, 5.0 * nlat * nlon * (1.0 + log((double)nlon)) / POLY_FLOPS_PER_WORK);
  int failed = 0;
#pragma omp parallel num_threads(nt)
  {
    double *r = fftw_alloc_real((size_t)SHT_ROWS * nlon);
    fftw_complex *s = fftw_alloc_complex((size_t)SHT_ROWS * nspec);
    if (!r || !s) {
#pragma omp atomic write
      failed = 1;
    }
#pragma omp for schedule(static)
    for (long i0 = 0; i0 < nlat; i0 += SHT_ROWS)
      if (r && s) sht_rows(f, p, vals, i0, analysis, r, s);
    fftw_free(r);
    fftw_free(s);
  }
  fftw_destroy_plan(p);
  return failed ? gs_set_msg(msg, GS_ERR_NOMEM, "no memory for the FFTs") : GS_OK;
}

/* The Legendre sums of field k, with sht_legendre's status given its message. */
static gs_status sht_field_legendre(const gs_sht_args *a, const sht_lanes *ln, const sht_field *f, long k, int analysis,
                                    int threads, gs_progress_fn progress, char *msg)
{
  const gs_status st = sht_legendre(a, ln, f->gc, f->gs, k, analysis, threads, progress);
  if (st == GS_ERR_INTERRUPTED) return gs_interrupted(msg);
  return st == GS_OK ? GS_OK : gs_set_msg(msg, GS_ERR_NOMEM, "no memory for the Legendre sums");
}

static gs_status sht_run(const gs_sht_args *a, int analysis, int threads, gs_progress_fn progress, char *msg)
{
  if (a->lmax < 0 || 2L * a->lmax >= a->nlon || a->nlat < 1)
    return gs_set_msg(msg, GS_ERR_ARG, "a grid of %ld x %ld points is too small for degree %d", a->nlat, a->nlon,
                      a->lmax);
  const size_t g = (size_t)a->nlat * (a->lmax + 1);
  sht_field f = {.a = a, .gc = (double *)malloc(g * sizeof(double)), .gs = (double *)malloc(g * sizeof(double))};
  sht_lanes ln = {0};
  gs_status st = (f.gc && f.gs && sht_lanes_make(a, &ln) == GS_OK)
                     ? GS_OK
                     : gs_set_msg(msg, GS_ERR_NOMEM, "no memory for the transform");
  for (long k = 0; k < a->nfield && st == GS_OK; ++k) {
    if (analysis) {
      st = sht_longitude(&f, k, 1, threads, msg);
      if (st == GS_OK) st = sht_field_legendre(a, &ln, &f, k, 1, threads, progress, msg);
    } else {
      st = sht_field_legendre(a, &ln, &f, k, 0, threads, progress, msg);
      if (st == GS_OK) st = sht_longitude(&f, k, 0, threads, msg);
    }
    if (st == GS_OK && progress && k + 1 < a->nfield && progress((double)(k + 1) / a->nfield))
      st = gs_interrupted(msg);
  }
  sht_lanes_free(&ln);
  free(f.gc);
  free(f.gs);
  return st;
}

gs_status gs_sht_analysis_cpu(const gs_sht_args *a, int threads, gs_progress_fn progress, char *msg)
{
  return sht_run(a, 1, threads, progress, msg);
}

gs_status gs_sht_synthesis_cpu(const gs_sht_args *a, int threads, gs_progress_fn progress, char *msg)
{
  return sht_run(a, 0, threads, progress, msg);
}

#else

gs_status gs_sht_analysis_cpu(const gs_sht_args *a, int threads, gs_progress_fn progress, char *msg)
{
  (void)a, (void)threads, (void)progress;
  return gs_poly_no_fftw(msg);
}

gs_status gs_sht_synthesis_cpu(const gs_sht_args *a, int threads, gs_progress_fn progress, char *msg)
{
  (void)a, (void)threads, (void)progress;
  return gs_poly_no_fftw(msg);
}

#endif
