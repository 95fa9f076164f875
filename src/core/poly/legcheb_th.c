/* The fast Legendre <-> Chebyshev conversions by the Toeplitz-Hankel method
 * of Townsend, Webb and Olver ("Fast polynomial transforms based on Toeplitz
 * and Hankel matrices", Math. Comp. 87 (2018) 1913-1934).
 *
 * Each connection matrix is D1 (T o H) D2 (legcheb_math.h) with T Toeplitz
 * and H a positive definite Hankel matrix. A pivoted Cholesky factorisation
 * stopped when the largest remaining pivot falls below a tolerance near
 * machine epsilon times the largest diagonal entry gives H ~ sum_r l_r l_r^T
 * with O(log n) terms (the paper proves this rank bound), and then
 *   (T o H) x = sum_r diag(l_r) T diag(l_r) x,
 * each Toeplitz product by FFTs of a circulant embedding: O(n log^2 n) in all.
 *
 * Since the matrices vanish where n - k is odd, the even and the odd degrees
 * are two independent problems of half the size ("parts"): with
 * k = 2 i + off and n = 2 j + off, T_ij = t(2 (j - i)) is again an upper
 * triangular Toeplitz matrix and H_ij = h(2 (i + j) + 2 off) a Hankel one.
 * Chebyshev -> Legendre leaves out degree 0 of the even part (off = 2): its
 * column is e_0 and its row, an O(n) dot product, is added apart, because
 * h(0) is infinite.
 *
 * The Hankel factor is factored scaled to a unit diagonal, G = W H W with
 * W = diag(h(2k)^(-1/2)) (and D1 (T o H) D2 = D1 W^-1 (T o G) W^-1 D2), so
 * that the tolerance on the remaining pivots is relative to every entry:
 * unscaled, the entries of large degree, smaller than the largest by a factor
 * up to n^(1/2) (Legendre -> Chebyshev) or, with the column scaling n folded
 * in as FastTransforms.jl does, the entries of small degree
 * (Chebyshev -> Legendre), would carry errors that much larger relative to
 * their size, which the ill-conditioned inverse conversion then amplifies.
 *
 * The factor and the scalings come from legcheb_factor.c (shared with the
 * GPU path); this file applies them with FFTW. */
#include <math.h>
#include <stdlib.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "gs_cpu.h"
#include "gs_poly.h"
#include "legcheb_internal.h"
#include "legcheb_math.h"
#include "poly_fftw.h"
#include "poly_internal.h"

#ifdef GS_HAVE_FFTW

/* The FFTs of one call: plans for length len, per-thread buffers and the
 * Toeplitz spectrum of the current part. */
typedef struct {
  long len, re_stride, sp_stride; /* strides keep every thread's buffers aligned as planned */
  int nt;
  fftw_plan fwd, inv;
  double *re;          /* nt x len */
  fftw_complex *sp;    /* nt x (len / 2 + 1) */
  double *acc;         /* nt x m of the largest part */
  fftw_complex *tfft;  /* len / 2 + 1: the Toeplitz spectrum (legcheb_toeplitz_spectrum) */
} th_fft;

/* The Toeplitz column of the part, zero-padded to len, transformed once. */
static void part_toeplitz(const legcheb_part *pt, int to_chebyshev, const th_fft *f)
{
  legcheb_toeplitz_column(pt, to_chebyshev, f->len, f->re);
  fftw_execute_dft_r2c(f->fwd, f->re, f->tfft);
  for (long q = 0; q <= f->len / 2; ++q) legcheb_toeplitz_spectrum(&f->tfft[q][0], &f->tfft[q][1], f->len);
}

/* Rank terms per round of part_apply: nt, or as many more as keep a round
 * near 2^22 FFT points, so that short transforms do not pay for a parallel
 * region per term and long ones check for an interrupt every nt FFTs. */
static int terms_per_round(int nt, long len)
{
  const long k = (1L << 22) / len;
  return nt * (k > 1 ? (k < 1024 ? (int)k : 1024) : 1);
}

/* Terms r0 .. r1 - 1 of the part, each thread summing into its own
 * accumulator. */
static void part_terms(const legcheb_part *pt, const th_fft *f, int nt, int r0, int r1, const double *x)
{
  const long m = pt->m, len = f->len, half = len / 2 + 1;
#pragma omp parallel num_threads(nt)
  {
    int t = 0;
#ifdef _OPENMP
    t = omp_get_thread_num();
#endif
    double *re = f->re + (size_t)t * f->re_stride, *acc = f->acc + (size_t)t * m;
    fftw_complex *sp = f->sp + (size_t)t * f->sp_stride;
#pragma omp for schedule(static)
    for (int r = r0; r < r1; ++r) {
      const double *lr = pt->l + (size_t)r * m;
      for (long j = 0; j < m; ++j) re[j] = legcheb_spread(lr[j], pt->col[j], x[2 * j + pt->off]);
      for (long j = m; j < len; ++j) re[j] = 0.0;
      fftw_execute_dft_r2c(f->fwd, re, sp);
      for (long q = 0; q < half; ++q) legcheb_spectrum_product(&sp[q][0], &sp[q][1], f->tfft[q][0], f->tfft[q][1]);
      fftw_execute_dft_c2r(f->inv, sp, re);
      for (long i = 0; i < m; ++i) acc[i] += lr[i] * re[i];
    }
  }
}

/* out[2 i + off] = row_i sum_r l_r(i) (T (l_r o col o x_part))_i for one column:
 * the rank terms spread over the threads in rounds, each thread summing
 * into its own accumulator, added in thread order at the end (reproducible
 * for a given n and number of threads). Between rounds, a check for an
 * interrupt: 0 when progress (reporting `done`) asks to stop. */
static int part_apply(const legcheb_part *pt, const th_fft *f, const double *x, double *y, gs_progress_fn progress,
                      double done)
{
  const long m = pt->m;
  const int nt = f->nt < pt->rank ? f->nt : pt->rank, round = terms_per_round(nt, f->len);
  for (size_t i = 0; i < (size_t)nt * m; ++i) f->acc[i] = 0.0;
  for (int r0 = 0; r0 < pt->rank; r0 += round) {
    const int r1 = pt->rank - r0 < round ? pt->rank : r0 + round;
    part_terms(pt, f, nt, r0, r1, x);
    if (r1 < pt->rank && progress && progress(done)) return 0;
  }
  for (long i = 0; i < m; ++i) {
    double s = 0.0;
    for (int t = 0; t < nt; ++t) s += f->acc[(size_t)t * m + i];
    y[2 * i + pt->off] = pt->row[i] * s;
  }
  return 1;
}

/* Plans and buffers for size n on nt threads. FFTW's planner is not
 * thread-safe: it runs here, on the calling thread, and the threads only
 * execute (new-array execute on buffers of the planned alignment). */
static int fft_make(th_fft *f, long n, int nt)
{
  const long m = (n + 1) / 2;
  f->len = legcheb_fft_length(n);
  f->nt = nt;
  f->re_stride = (f->len + 7) / 8 * 8;
  f->sp_stride = (f->len / 2 + 1 + 3) / 4 * 4;
  f->re = fftw_alloc_real((size_t)nt * f->re_stride);
  f->sp = fftw_alloc_complex((size_t)nt * f->sp_stride);
  f->acc = (double *)malloc((size_t)nt * (m + 1) * sizeof(double));
  f->tfft = fftw_alloc_complex((size_t)(f->len / 2 + 1));
  if (!f->re || !f->sp || !f->acc || !f->tfft) return 0;
  f->fwd = fftw_plan_dft_r2c_1d((int)f->len, f->re, f->sp, FFTW_ESTIMATE);
  f->inv = fftw_plan_dft_c2r_1d((int)f->len, f->sp, f->re, FFTW_ESTIMATE);
  return f->fwd && f->inv;
}

static void fft_free(th_fft *f)
{
  if (f->fwd) fftw_destroy_plan(f->fwd);
  if (f->inv) fftw_destroy_plan(f->inv);
  fftw_free(f->re);
  fftw_free(f->sp);
  fftw_free(f->tfft);
  free(f->acc);
}

/* The threads for one column: work of 2 rank FFTs of length len. */
static int part_threads(int threads, long len)
{
  return gs_cpu_threads_for(threads, 2.0 * 32 * 5.0 * len * log2((double)len + 1) / POLY_FLOPS_PER_WORK);
}

static gs_status th_run(const gs_legcheb_args *a, int threads, gs_progress_fn progress, char *msg)
{
  const long n = a->n;
  th_fft f = {.fwd = NULL};
  double *row0 = NULL;
  const int nt = part_threads(threads, legcheb_fft_length(n));
  gs_status st = GS_OK;
  legcheb_part pt;
  if (!legcheb_part_alloc(&pt, (n + 1) / 2) || !fft_make(&f, n, nt) ||
      (!a->to_chebyshev && !(row0 = legcheb_degree_zero_row(n))))
    st = gs_set_msg(msg, GS_ERR_NOMEM, "no memory for the Toeplitz-Hankel transform of size %ld", n);
  for (int p = 0; p < 2 && st == GS_OK; ++p) {
    const legcheb_progress at_start = {.fn = progress, .done = p / 2.0};
    st = legcheb_part_prepare(&pt, a->to_chebyshev, p, n, nt, NULL, &at_start, msg);
    if (st == GS_OK && pt.m > 0) part_toeplitz(&pt, a->to_chebyshev, &f);
    for (long c = 0; c < a->ncol && st == GS_OK && pt.m > 0; ++c) {
      const double done = (p * a->ncol + c) / (2.0 * a->ncol);
      if (!part_apply(&pt, &f, a->in + c * n, a->out + c * n, progress, done) ||
          (progress && progress(done + 1.0 / (2.0 * a->ncol))))
        st = gs_interrupted(msg);
    }
  }
  legcheb_part_free(&pt);
  for (long c = 0; c < a->ncol && st == GS_OK && row0; ++c) a->out[c * n] = legcheb_degree_zero(row0, n, a->in + c * n);
  free(row0);
  fft_free(&f);
  return st;
}

gs_status gs_legcheb_toeplitz_hankel(const gs_legcheb_args *a, int threads, gs_progress_fn progress, char *msg)
{
  if (a->n > 1073741823L) return gs_set_msg(msg, GS_ERR_ARG, "a conversion of size %ld is too long", a->n);
  return th_run(a, threads, progress, msg);
}

#else

gs_status gs_legcheb_toeplitz_hankel(const gs_legcheb_args *a, int threads, gs_progress_fn progress, char *msg)
{
  (void)a, (void)threads, (void)progress;
  return gs_poly_no_fftw(msg);
}

#endif
