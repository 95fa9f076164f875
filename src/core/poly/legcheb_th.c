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
 * their size, which the ill-conditioned inverse conversion then amplifies. */
#include <float.h>
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

/* One parity: rows and columns k = 2 i + off, i < m. */
typedef struct {
  long m, off;
  int rank;
  size_t l_cap;        /* doubles allocated at l (kept from one parity to the next) */
  double *l;           /* m x rank: the Cholesky factor of W H W */
  double *row;         /* m: D1 / W */
  double *col;         /* m: D2 / W */
  fftw_complex *tfft;  /* len / 2 + 1: conj(FFT(Toeplitz column, zero-padded)) / len */
} th_part;

/* The FFTs of one call: plans for length len and per-thread buffers. */
typedef struct {
  long len, re_stride, sp_stride; /* strides keep every thread's buffers aligned as planned */
  int nt;
  fftw_plan fwd, inv;
  double *re;          /* nt x len */
  fftw_complex *sp;    /* nt x (len / 2 + 1) */
  double *acc;         /* nt x m of the largest part */
} th_fft;

static long part_size(long n, long off) { return n > off ? (n - off + 1) / 2 : 0; }

/* The smallest 2^a 3^b 5^c 7^d >= x, FFTW's fastest lengths. */
static long smooth_length(long x)
{
  for (long len = x > 1 ? x : 1;; ++len) {
    long r = len;
    for (int p = 2; p <= 7; ++p)
      while (r % p == 0) r /= p;
    if (r == 1) return len;
  }
}

/* The matrix the Cholesky factor represents, G_ij = w_i w_j hs[i + j]
 * (W H W), and the tolerance on its remaining diagonal. */
typedef struct {
  long m;
  const double *hs, *w;
  double tol;
} th_gram;

static inline double gram(const th_gram *g, long i, long j) { return g->w[i] * g->w[j] * g->hs[i + j]; }

/* The greedy pivoted Cholesky factorisation of G restricted to the rows
 * `rows` (ns of them), until the largest remaining diagonal entry is at
 * most tol: the pivots (as rows of G) in order, their number returned, or
 * -1 when out of memory. O(ns K^2). */
static int sample_pivots(const th_gram *g, const long *rows, long ns, long *piv)
{
  double *l = (double *)malloc((size_t)ns * ns * sizeof(double)), *d = (double *)malloc((size_t)ns * sizeof(double));
  int k = l && d ? 0 : -1;
  for (long a = 0; k == 0 && a < ns; ++a) d[a] = gram(g, rows[a], rows[a]);
  while (k >= 0 && k < ns) {
    long p = 0;
    for (long a = 1; a < ns; ++a)
      if (d[a] > d[p]) p = a;
    if (d[p] <= g->tol) break;
    const double piv_sqrt = sqrt(d[p]);
    for (long a = 0; a < ns; ++a) {
      double v = gram(g, rows[a], rows[p]);
      for (int r = 0; r < k; ++r) v -= l[a + r * ns] * l[p + r * ns];
      l[a + k * ns] = v / piv_sqrt;
      d[a] -= l[a + k * ns] * l[a + k * ns];
    }
    d[p] = 0.0;
    piv[k++] = rows[p];
  }
  free(l);
  free(d);
  return k;
}

/* Row i of the factor with pivots piv (lpp: the factor's rows at the
 * pivots, K x K row-major, lower triangular): the forward substitution
 * l_q = (G_{i p_q} - sum_{s<q} l_s lpp_qs) / lpp_qq, which is the arithmetic
 * of the greedy algorithm's step q at row i. Returns G_ii - |l|^2. */
static double factor_row(const th_gram *g, const long *piv, const double *lpp, int ld, int K, long i, double *l)
{
  double d = gram(g, i, i);
  for (int q = 0; q < K; ++q) {
    double v = gram(g, i, piv[q]);
    for (int s = 0; s < q; ++s) v -= l[s] * lpp[q * ld + s];
    l[q] = v / lpp[q * ld + q];
    d -= l[q] * l[q];
  }
  return d;
}

/* The factor's rows at the pivots, in pivot order (each needs only the
 * earlier ones): the number of pivots kept, fewer than K only where
 * rounding left a pivot not positive. */
static int pivot_rows(const th_gram *g, const long *piv, int K, double *lpp)
{
  for (int r = 0; r < K; ++r) {
    const double d = factor_row(g, piv, lpp, K, r, piv[r], lpp + r * K);
    if (!(d > 0.0)) return r;
    lpp[r * K + r] = sqrt(d);
    for (int q = r + 1; q < K; ++q) lpp[r * K + q] = 0.0;
  }
  return K;
}

/* Rows b .. e - 1 of the factor (column-major into pt->l) and of the
 * remaining diagonal d: factor_row's arithmetic, column by column so that
 * the inner loops run along rows (vectorised: omp simd, since R's -O2
 * leaves them scalar) on data in the cache. */
GS_CPU_DISPATCH static void factor_block(th_part *pt, const th_gram *g, const long *piv, const double *lpp, double *d,
                                         long b, long e)
{
  const long m = pt->m;
  const int K = pt->rank;
  for (long i = b; i < e; ++i) d[i] = gram(g, i, i);
  for (int q = 0; q < K; ++q) {
    double *restrict lq = pt->l + (size_t)q * m;
    for (long i = b; i < e; ++i) lq[i] = gram(g, i, piv[q]);
    for (int s = 0; s < q; ++s) {
      const double *restrict ls = pt->l + (size_t)s * m;
      const double f = lpp[q * K + s];
#pragma omp simd
      for (long i = b; i < e; ++i) lq[i] -= ls[i] * f;
    }
    const double piv_q = lpp[q * K + q];
#pragma omp simd
    for (long i = b; i < e; ++i) {
      lq[i] /= piv_q;
      d[i] -= lq[i] * lq[i];
    }
  }
}

/* Every row of the factor, in blocks of rows on nt threads: O(m K^2). */
static void factor_all_rows(th_part *pt, const th_gram *g, const long *piv, const double *lpp, double *d, int nt)
{
  const long block = 128;
#pragma omp parallel for num_threads(nt) schedule(static)
  for (long b = 0; b < pt->m; b += block) factor_block(pt, g, piv, lpp, d, b, b + block < pt->m ? b + block : pt->m);
}

/* The rows the pivots are first sought in: all of them up to 1024, else the
 * first 64 and then a geometric progression of ratio 1.02 to the last: the
 * remaining diagonal of these smooth Hankel matrices varies slowly in the
 * row index, and any row the sample misses is added below. */
static long initial_sample(long m, long *rows)
{
  long ns = 0;
  for (long i = 0; i < m; i = (i < 64 || m <= 1024) ? i + 1 : (long)(i * 1.02) + 1) rows[ns++] = i;
  if (ns > 0 && rows[ns - 1] != m - 1) rows[ns++] = m - 1;
  return ns;
}

/* *buf holds at least need doubles (reallocated when *cap is less); 0
 * when out of memory (*buf then unchanged). */
static int grow(double **buf, size_t *cap, size_t need)
{
  if (need <= *cap) return 1;
  double *b = (double *)realloc(*buf, need * sizeof(double));
  if (!b) return 0;
  *buf = b;
  *cap = need;
  return 1;
}

/* The pivoted Cholesky factor of G = W H W into pt->l, stopped when the
 * largest remaining diagonal entry is at most the tolerance of
 * FastTransforms.jl's hankel_partialchol, eps log(m) times the largest
 * diagonal entry. The greedy algorithm passes over all m rows at each of
 * its K steps (O(m K^2) memory traffic), so the pivots are chosen on a
 * sample of rows, all rows are then factored at once from the cache, and a
 * row whose remaining diagonal is still above the tolerance joins the
 * sample and the pivots are chosen again: the result meets the same
 * stopping rule on every row. */
static int part_cholesky(th_part *pt, int to_chebyshev, int nt)
{
  const long m = pt->m;
  double *hs = (double *)malloc((size_t)(2 * m) * sizeof(double)), *lpp = NULL;
  size_t lpp_cap = 0;
  double *w = (double *)malloc((size_t)m * sizeof(double)), *d = (double *)malloc((size_t)m * sizeof(double));
  long *rows = (long *)malloc((size_t)m * sizeof(long)), *piv = (long *)malloc((size_t)m * sizeof(long));
  char *sampled = (char *)calloc((size_t)m, 1);
  int ok = hs && w && d && rows && piv && sampled;
  for (long s = 0; ok && s < 2 * m - 1; ++s) hs[s] = (double)legcheb_hankel(to_chebyshev, 2 * (s + pt->off));
  double dmax = 0.0;
  for (long i = 0; ok && i < m; ++i) {
    w[i] = 1.0 / sqrt(hs[2 * i]);
    dmax = fmax(dmax, w[i] * w[i] * hs[2 * i]);
  }
  const th_gram g = {.m = m, .hs = hs, .w = w, .tol = DBL_EPSILON * dmax * (m > 3 ? log((double)m) : 1.0)};
  long ns = ok ? initial_sample(m, rows) : 0;
  for (long a = 0; a < ns; ++a) sampled[rows[a]] = 1;
  while (ok) {
    const int K = sample_pivots(&g, rows, ns, piv);
    if (K < 0 || !grow(&pt->l, &pt->l_cap, (size_t)K * m) || !grow(&lpp, &lpp_cap, (size_t)K * K)) {
      ok = 0;
      break;
    }
    pt->rank = pivot_rows(&g, piv, K, lpp);
    factor_all_rows(pt, &g, piv, lpp, d, nt);
    long p = 0;
    for (long i = 1; i < m; ++i)
      if (d[i] > d[p]) p = i;
    /* a sampled row above the tolerance differs from its value in the sample
     * by rounding only (the vectorised arithmetic here): the rule is met */
    if (d[p] <= g.tol || sampled[p]) break;
    sampled[p] = 1;
    rows[ns++] = p;
  }
  for (long i = 0; ok && i < m; ++i) {
    pt->row[i] = (double)(legcheb_row_scale(to_chebyshev, 2 * i + pt->off) / w[i]);
    pt->col[i] = (double)(legcheb_col_scale(to_chebyshev, 2 * i + pt->off) / w[i]);
  }
  free(hs);
  free(w);
  free(d);
  free(rows);
  free(piv);
  free(sampled);
  free(lpp);
  return ok;
}

/* The Toeplitz column t(2 r), r < m, zero-padded to len, transformed once:
 * y_i = sum_{j >= i} t(2 (j - i)) x_j is the circular correlation of x with
 * that column, so its spectrum is conj(FFT(column)) FFT(x) (1 / len for the
 * unnormalised inverse). */
static void part_toeplitz(th_part *pt, int to_chebyshev, const th_fft *f)
{
  double *c = f->re;
  for (long r = 0; r < f->len; ++r) c[r] = r < pt->m ? (double)legcheb_toeplitz(to_chebyshev, 2 * r) : 0.0;
  fftw_execute_dft_r2c(f->fwd, c, pt->tfft);
  for (long q = 0; q <= f->len / 2; ++q) {
    pt->tfft[q][0] /= f->len;
    pt->tfft[q][1] /= -(double)f->len;
  }
}

/* Buffers for parts of up to mmax rows; the factor grows as needed. */
static int part_alloc(th_part *pt, long mmax, const th_fft *f)
{
  pt->row = (double *)malloc((size_t)(mmax + 1) * sizeof(double));
  pt->col = (double *)malloc((size_t)(mmax + 1) * sizeof(double));
  pt->tfft = f ? fftw_alloc_complex((size_t)(f->len / 2 + 1)) : NULL;
  return pt->row && pt->col && (!f || pt->tfft);
}

static void part_free(th_part *pt)
{
  free(pt->l);
  free(pt->row);
  free(pt->col);
  if (pt->tfft) fftw_free(pt->tfft);
}

/* The part of parity p (0: even degrees), its first degree off. */
static long part_offset(int to_chebyshev, int p) { return to_chebyshev ? p : (p ? 1 : 2); }

/* Sets pt to the part of parity p: factor and Toeplitz spectrum. */
static int part_prepare(th_part *pt, int to_chebyshev, int p, long n, const th_fft *f, int nt)
{
  pt->off = part_offset(to_chebyshev, p);
  pt->m = part_size(n, pt->off);
  pt->rank = 0;
  if (pt->m == 0) return 1;
  if (!part_cholesky(pt, to_chebyshev, nt)) return 0;
  if (f) part_toeplitz(pt, to_chebyshev, f);
  return 1;
}

/* out[2 i + off] = row_i sum_r l_r(i) (T (l_r o col o x_part))_i for one column:
 * the rank terms spread over the threads, each summing into its own
 * accumulator; the accumulators are added in thread order (reproducible). */
static void part_apply(const th_part *pt, const th_fft *f, const double *x, double *y)
{
  const long m = pt->m, len = f->len, half = len / 2 + 1;
  const int nt = f->nt < pt->rank ? f->nt : pt->rank;
#pragma omp parallel num_threads(nt)
  {
    int t = 0;
#ifdef _OPENMP
    t = omp_get_thread_num();
#endif
    double *re = f->re + (size_t)t * f->re_stride, *acc = f->acc + (size_t)t * m;
    fftw_complex *sp = f->sp + (size_t)t * f->sp_stride;
    for (long i = 0; i < m; ++i) acc[i] = 0.0;
#pragma omp for schedule(static)
    for (int r = 0; r < pt->rank; ++r) {
      const double *lr = pt->l + (size_t)r * m;
      for (long j = 0; j < m; ++j) re[j] = lr[j] * (pt->col[j] * x[2 * j + pt->off]);
      for (long j = m; j < len; ++j) re[j] = 0.0;
      fftw_execute_dft_r2c(f->fwd, re, sp);
      for (long q = 0; q < half; ++q) {
        const double a = sp[q][0], b = sp[q][1], c = pt->tfft[q][0], e = pt->tfft[q][1];
        sp[q][0] = a * c - b * e;
        sp[q][1] = a * e + b * c;
      }
      fftw_execute_dft_c2r(f->inv, sp, re);
      for (long i = 0; i < m; ++i) acc[i] += lr[i] * re[i];
    }
  }
  for (long i = 0; i < m; ++i) {
    double s = 0.0;
    for (int t = 0; t < nt; ++t) s += f->acc[(size_t)t * m + i];
    y[2 * i + pt->off] = pt->row[i] * s;
  }
}

/* Plans and buffers for parts of up to m rows, on nt threads. FFTW's planner
 * is not thread-safe: it runs here, on the calling thread, and the threads
 * only execute (new-array execute on buffers of the planned alignment). */
static int fft_make(th_fft *f, long m, int nt)
{
  f->len = smooth_length(2 * m - 1);
  f->nt = nt;
  f->re_stride = (f->len + 7) / 8 * 8;
  f->sp_stride = (f->len / 2 + 1 + 3) / 4 * 4;
  f->re = fftw_alloc_real((size_t)nt * f->re_stride);
  f->sp = fftw_alloc_complex((size_t)nt * f->sp_stride);
  f->acc = (double *)malloc((size_t)nt * (m + 1) * sizeof(double));
  if (!f->re || !f->sp || !f->acc) return 0;
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
  free(f->acc);
}

/* Chebyshev -> Legendre, the row and column of degree 0 that the even part
 * leaves out: out_0 = x_0 + sum_{n >= 2 even} (1/2) n t(n) h(n) x_n. */
static int degree_zero_row(long n, double **row)
{
  *row = (double *)malloc((size_t)(n / 2 + 1) * sizeof(double));
  if (!*row) return 0;
  (*row)[0] = 1.0;
  for (long j = 2; j < n; j += 2)
    (*row)[j / 2] = (double)(0.5L * j * legcheb_toeplitz(0, j) * legcheb_hankel(0, j));
  return 1;
}

static void add_degree_zero(const double *row, long n, const double *x, double *y)
{
  double s = 0.0;
  for (long j = n - 1 - (n - 1) % 2; j >= 0; j -= 2) s += row[j / 2] * x[j];
  y[0] = s;
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
  const int nt = part_threads(threads, smooth_length(n));
  gs_status st = GS_OK;
  th_part pt = {.l = NULL};
  if (!fft_make(&f, (n + 1) / 2, nt) || !part_alloc(&pt, (n + 1) / 2, &f) ||
      (!a->to_chebyshev && !degree_zero_row(n, &row0)))
    st = gs_set_msg(msg, GS_ERR_NOMEM, "no memory for the Toeplitz-Hankel transform of size %ld", n);
  for (int p = 0; p < 2 && st == GS_OK; ++p) {
    if (!part_prepare(&pt, a->to_chebyshev, p, n, &f, nt))
      st = gs_set_msg(msg, GS_ERR_NOMEM, "no memory for the Toeplitz-Hankel transform of size %ld", n);
    for (long c = 0; c < a->ncol && st == GS_OK && pt.m > 0; ++c) {
      part_apply(&pt, &f, a->in + c * n, a->out + c * n);
      if (progress && progress((p * a->ncol + c + 1.0) / (2.0 * a->ncol))) st = gs_interrupted(msg);
    }
  }
  part_free(&pt);
  for (long c = 0; c < a->ncol && st == GS_OK && row0; ++c) add_degree_zero(row0, n, a->in + c * n, a->out + c * n);
  free(row0);
  fft_free(&f);
  return st;
}

gs_status gs_legcheb_toeplitz_hankel(const gs_legcheb_args *a, int threads, gs_progress_fn progress, char *msg)
{
  if (a->n > 1073741823L) return gs_set_msg(msg, GS_ERR_ARG, "a conversion of size %ld is too long", a->n);
  return th_run(a, threads, progress, msg);
}

int gs_legcheb_rank(long n, int to_chebyshev, int parity)
{
  th_part pt = {.l = NULL};
  const int ok = part_alloc(&pt, (n + 1) / 2, NULL) &&
                 part_prepare(&pt, to_chebyshev, parity, n, NULL, gs_cpu_threads(0));
  part_free(&pt);
  return ok ? pt.rank : -1;
}

#else

gs_status gs_legcheb_toeplitz_hankel(const gs_legcheb_args *a, int threads, gs_progress_fn progress, char *msg)
{
  (void)a, (void)threads, (void)progress;
  return gs_poly_no_fftw(msg);
}

int gs_legcheb_rank(long n, int to_chebyshev, int parity)
{
  (void)n, (void)to_chebyshev, (void)parity;
  return -1;
}

#endif
