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

/* Newton's method on P_n(cos theta) in theta, in long double (where it has
 * a 64-bit mantissa the nodes and weights are then correctly rounded to a
 * few units in the last place of double for n in the thousands). */
gs_status gs_gauss_legendre(long n, double *x, double *x_lo, double *w, char *msg)
{
  if (n < 1) return gs_set_msg(msg, GS_ERR_ARG, "a Gauss-Legendre rule needs at least one node");
  for (long k = 0; k < (n + 1) / 2; ++k) {
    long double theta = 3.14159265358979323846264338327950288L * (4.0L * k + 3.0L) / (4.0L * n + 2.0L), dp = 1.0L;
    for (int it = 0; it < 100; ++it) {
      const long double c = cosl(theta), s = sinl(theta);
      long double p = c, pm1 = 1.0L; /* P_1, P_0 */
      for (long j = 2; j <= n; ++j) {
        const long double pj = ((2.0L * j - 1.0L) * c * p - (j - 1.0L) * pm1) / j;
        pm1 = p;
        p = pj;
      }
      dp = n * (c * p - pm1) / s; /* dP_n / dtheta */
      const long double step = p / dp;
      theta -= step;
      if (fabsl(step) < 1e-20L) break;
    }
    x[k] = (double)cosl(theta);
    x[n - 1 - k] = -x[k];
    if (x_lo) x_lo[n - 1 - k] = -(x_lo[k] = (double)(cosl(theta) - x[k]));
    w[k] = w[n - 1 - k] = (double)(2.0L / (dp * dp));
  }
  if (n % 2) x[n / 2] = 0.0;
  if (n % 2 && x_lo) x_lo[n / 2] = 0.0;
  return GS_OK;
}

#ifdef GS_HAVE_FFTW

/* The recurrence coefficients of order m, and the seed factor of Pbar_m^m. */
static double alp_setup(int m, int lmax, double *A, double *B)
{
  for (int l = m + 1; l <= lmax; ++l) {
    A[l] = alp_rec_a(l, m);
    B[l] = alp_rec_b(l, m);
  }
  return alp_seed(m);
}

/* Pbar_l^m(x + x_lo) for l = m .. lmax into p[l]. */
static void alp_column(int m, int lmax, double x, double x_lo, double seed, const double *A, const double *B, double *p)
{
  alp_iter it = alp_start(m, alp_sin(x, x_lo), seed);
  p[m] = it.u * it.f;
  for (int l = m + 1; l <= lmax; ++l) {
    alp_next(&it, A[l], B[l], x, x_lo);
    p[l] = it.u * it.f;
  }
}

typedef struct {
  const gs_sht_args *a;
  double *gc, *gs; /* nlat x (lmax + 1): the longitude parts of one field */
} sht_field;

/* Legendre sums of one order m: analysis a_lm = sum_i w_i Pbar g_i, or
 * synthesis g_i = sum_l a_lm Pbar. Cloned for CPUs with FMA: the recurrence
 * calls fma() at every step. */
GS_CPU_DISPATCH static void sht_order(const sht_field *f, int m, long field, int analysis, double *work)
{
  const gs_sht_args *a = f->a;
  const int lmax = a->lmax, L = lmax + 1;
  double *A = work, *B = work + L, *p = work + 2 * L;
  const double seed = alp_setup(m, lmax, A, B);
  double *cp = a->cos_part + (size_t)field * L * L + (size_t)m * L, *sp = a->sin_part + (size_t)field * L * L + (size_t)m * L;
  double *gc = f->gc + (size_t)m * a->nlat, *gs = f->gs + (size_t)m * a->nlat;
  if (analysis) {
    memset(cp, 0, L * sizeof(double));
    memset(sp, 0, L * sizeof(double));
  }
  for (long i = 0; i < a->nlat; ++i) {
    alp_column(m, lmax, a->x[i], a->x_lo ? a->x_lo[i] : 0.0, seed, A, B, p);
    if (analysis) {
      const double wc = a->w[i] * gc[i], ws = a->w[i] * gs[i];
      for (int l = m; l <= lmax; ++l) cp[l] += wc * p[l], sp[l] += ws * p[l];
    } else {
      double c = 0.0, s = 0.0;
      for (int l = m; l <= lmax; ++l) c += cp[l] * p[l], s += sp[l] * p[l];
      gc[i] = c;
      gs[i] = s;
    }
  }
}

static gs_status sht_legendre(const sht_field *f, long field, int analysis, int threads)
{
  const int L = f->a->lmax + 1;
  const int nt = gs_cpu_threads_for(threads, 4.0 * L * L * f->a->nlat / POLY_FLOPS_PER_WORK);
  int failed = 0;
#pragma omp parallel num_threads(nt)
  {
    double *work = (double *)malloc(3 * (size_t)L * sizeof(double));
    if (!work) {
#pragma omp atomic write
      failed = 1;
    }
#pragma omp for schedule(dynamic, 1)
    for (int m = 0; m < L; ++m)
      if (work) sht_order(f, m, field, analysis, work);
    free(work);
  }
  return failed ? GS_ERR_NOMEM : GS_OK;
}

/* The FFTs along the latitudes of one field, one row per task: analysis
 * turns row i of the values into gc/gs[i + nlat m] (the cos and sin
 * integrals over longitude of the real harmonics); synthesis the reverse. */
static gs_status sht_longitude(const sht_field *f, long field, int analysis, int threads, char *msg)
{
  const gs_sht_args *a = f->a;
  const long nlon = a->nlon, nlat = a->nlat, nspec = nlon / 2 + 1;
  double *vals = a->values + (size_t)field * nlat * nlon;
  double *row = fftw_alloc_real((size_t)nlon);
  fftw_complex *spec = fftw_alloc_complex((size_t)nspec);
  fftw_plan p = NULL;
  if (row && spec)
    p = analysis ? fftw_plan_dft_r2c_1d((int)nlon, row, spec, FFTW_ESTIMATE | FFTW_UNALIGNED)
                 : fftw_plan_dft_c2r_1d((int)nlon, spec, row, FFTW_ESTIMATE | FFTW_UNALIGNED);
  fftw_free(row);
  fftw_free(spec);
  if (!p) return gs_set_msg(msg, GS_ERR_NOMEM, "FFTW could not plan an FFT of length %ld", nlon);
  const double dphi = 2.0 * M_PI / nlon, r2 = sqrt(2.0);
  const int nt = gs_cpu_threads_for(threads, 5.0 * nlat * nlon * (1.0 + log((double)nlon)) / POLY_FLOPS_PER_WORK);
#pragma omp parallel num_threads(nt)
  {
    double *r = (double *)malloc((size_t)nlon * sizeof(double));
    fftw_complex *s = (fftw_complex *)malloc((size_t)nspec * sizeof(fftw_complex));
#pragma omp for schedule(static)
    for (long i = 0; i < (r && s ? nlat : 0); ++i) {
      if (analysis) {
        for (long j = 0; j < nlon; ++j) r[j] = vals[i + j * nlat];
        fftw_execute_dft_r2c(p, r, s);
        for (int m = 0; m <= a->lmax; ++m) {
          const double sc = m ? dphi * r2 : dphi;
          f->gc[i + nlat * m] = sc * s[m][0];
          f->gs[i + nlat * m] = -sc * s[m][1];
        }
      } else {
        memset(s, 0, (size_t)nspec * sizeof(fftw_complex));
        s[0][0] = f->gc[i];
        for (int m = 1; m <= a->lmax; ++m) {
          s[m][0] = f->gc[i + nlat * m] / r2;
          s[m][1] = -f->gs[i + nlat * m] / r2;
        }
        fftw_execute_dft_c2r(p, s, r);
        for (long j = 0; j < nlon; ++j) vals[i + j * nlat] = r[j];
      }
    }
    free(r);
    free(s);
  }
  fftw_destroy_plan(p);
  return GS_OK;
}

static gs_status sht_run(const gs_sht_args *a, int analysis, int threads, gs_progress_fn progress, char *msg)
{
  if (a->lmax < 0 || 2L * a->lmax >= a->nlon || a->nlat < 1)
    return gs_set_msg(msg, GS_ERR_ARG, "a grid of %ld x %ld points is too small for degree %d", a->nlat, a->nlon,
                      a->lmax);
  const size_t g = (size_t)a->nlat * (a->lmax + 1);
  sht_field f = {.a = a, .gc = (double *)malloc(g * sizeof(double)), .gs = (double *)malloc(g * sizeof(double))};
  gs_status st = (f.gc && f.gs) ? GS_OK : gs_set_msg(msg, GS_ERR_NOMEM, "no memory for the transform");
  for (long k = 0; k < a->nfield && st == GS_OK; ++k) {
    if (analysis) {
      st = sht_longitude(&f, k, 1, threads, msg);
      if (st == GS_OK && sht_legendre(&f, k, 1, threads) != GS_OK) st = gs_set_msg(msg, GS_ERR_NOMEM, "no memory");
    } else {
      st = sht_legendre(&f, k, 0, threads) == GS_OK ? sht_longitude(&f, k, 0, threads, msg)
                                                     : gs_set_msg(msg, GS_ERR_NOMEM, "no memory");
    }
    if (st == GS_OK && progress && k + 1 < a->nfield && progress((double)(k + 1) / a->nfield))
      st = gs_interrupted(msg);
  }
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
