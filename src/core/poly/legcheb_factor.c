/* The Hankel factor of the Toeplitz-Hankel Legendre <-> Chebyshev
 * conversions (legcheb_th.c on the CPU, legcheb_cuda.cu on the GPU): for
 * each parity, the pivoted Cholesky factor of the scaled Hankel matrix and
 * the diagonal scalings, and the row of degree 0 that Chebyshev -> Legendre
 * adds apart. The method, its parts and the scaling are described in
 * legcheb_th.c; this file needs no FFT library, so both backends share one
 * factorisation: the same pivots, and the factor's rows by the same
 * arithmetic, on the CPU here or on the GPU (legcheb_factor_cuda.cu). */
#include <float.h>
#include <math.h>
#include <stdlib.h>

#include "gs_cpu.h"
#include "gs_poly.h"
#include "legcheb_internal.h"
#include "legcheb_math.h"

static long part_size(long n, long off) { return n > off ? (n - off + 1) / 2 : 0; }

/* The smallest 2^a 3^b 5^c 7^d >= x, the fastest lengths of FFTW and cuFFT. */
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

static inline double gram(const th_gram *g, long i, long j) { return legcheb_gram(g->hs, g->w, i, j); }

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
    l[q] = legcheb_factor_entry(gram(g, i, piv[q]), l, 1, lpp + q * ld, q);
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
 * leaves them scalar) on data in the cache. lpp: pt->rank x pt->rank,
 * leading dimension ld. */
GS_CPU_DISPATCH static void factor_block(legcheb_part *pt, const th_gram *g, const long *piv, const double *lpp, int ld,
                                         double *d, long b, long e)
{
  const long m = pt->m;
  const int K = pt->rank;
  for (long i = b; i < e; ++i) d[i] = gram(g, i, i);
  for (int q = 0; q < K; ++q) {
    double *restrict lq = pt->l + (size_t)q * m;
    for (long i = b; i < e; ++i) lq[i] = gram(g, i, piv[q]);
    for (int s = 0; s < q; ++s) {
      const double *restrict ls = pt->l + (size_t)s * m;
      const double f = lpp[q * ld + s];
#pragma omp simd
      for (long i = b; i < e; ++i) lq[i] -= ls[i] * f;
    }
    const double piv_q = lpp[q * ld + q];
#pragma omp simd
    for (long i = b; i < e; ++i) {
      lq[i] /= piv_q;
      d[i] -= lq[i] * lq[i];
    }
  }
}

/* Whether the caller asks to stop (progress returns non-zero). */
static int stop_asked(const legcheb_progress *progress) { return progress->fn && progress->fn(progress->done); }

/* Every row of the factor, in blocks of rows on nt threads: O(m K^2); the
 * row of largest remaining diagonal (the first on a tie) and that diagonal.
 * The blocks run in rounds of about 2^27 operations, a fraction of a second,
 * with a check for an interrupt after each: 0 when the caller asks to stop. */
static int factor_all_rows(legcheb_part *pt, const th_gram *g, const long *piv, const double *lpp, int ld, double *d,
                           int nt, const legcheb_progress *progress, long *argmax, double *dmax)
{
  const long block = 128, per_row = 1 + (long)pt->rank * pt->rank;
  const long round_rows = ((1L << 27) / per_row / block + 1) * block;
  for (long r0 = 0; r0 < pt->m; r0 += round_rows) {
    const long r1 = pt->m - r0 < round_rows ? pt->m : r0 + round_rows;
#pragma omp parallel for num_threads(nt) schedule(static)
    for (long b = r0; b < r1; b += block) factor_block(pt, g, piv, lpp, ld, d, b, b + block < r1 ? b + block : r1);
    if (r1 < pt->m && stop_asked(progress)) return 0;
  }
  long p = 0;
  for (long i = 1; i < pt->m; ++i)
    if (d[i] > d[p]) p = i;
  *argmax = p;
  *dmax = d[p];
  return 1;
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

/* The Hankel table hs(s) = h(2 (s + off)), s < 2 m - 1, on nt threads
 * (long double arithmetic per entry, rounded once), the weights w_i =
 * hs(2 i)^(-1/2) that give G a unit diagonal, and the largest diagonal entry
 * of G. */
static double hankel_table(long m, long off, int to_chebyshev, int nt, double *hs, double *w)
{
#pragma omp parallel for num_threads(nt) schedule(static)
  for (long s = 0; s < 2 * m - 1; ++s) hs[s] = (double)legcheb_hankel(to_chebyshev, 2 * (s + off));
  double dmax = 0.0;
  for (long i = 0; i < m; ++i) {
    w[i] = 1.0 / sqrt(hs[2 * i]);
    dmax = fmax(dmax, w[i] * w[i] * hs[2 * i]);
  }
  return dmax;
}

/* The pivoted Cholesky factor of G = W H W, stopped when the largest
 * remaining diagonal entry is at most the tolerance of FastTransforms.jl's
 * hankel_partialchol, eps log(m) times the largest diagonal entry. The
 * greedy algorithm passes over all m rows at each of its K steps (O(m K^2)
 * memory traffic), so the pivots are chosen on a sample of rows, all rows
 * are then factored at once (into pt->l on nt threads, or by `rows`), and a
 * row whose remaining diagonal is still above the tolerance joins the
 * sample and the pivots are chosen again: the result meets the same
 * stopping rule on every row. */
static gs_status part_cholesky(legcheb_part *pt, int to_chebyshev, int nt, const legcheb_rows *rows_by,
                               const legcheb_progress *progress, char *msg)
{
  const long m = pt->m;
  double *hs = (double *)malloc((size_t)(2 * m) * sizeof(double)), *lpp = NULL;
  size_t lpp_cap = 0;
  double *w = (double *)malloc((size_t)m * sizeof(double));
  double *d = rows_by ? NULL : (double *)malloc((size_t)m * sizeof(double));
  long *rows = (long *)malloc((size_t)m * sizeof(long)), *piv = (long *)malloc((size_t)m * sizeof(long));
  char *sampled = (char *)calloc((size_t)m, 1);
  int ok = hs && w && (d || rows_by) && rows && piv && sampled, stopped = 0;
  const double dmax = ok ? hankel_table(m, pt->off, to_chebyshev, nt, hs, w) : 0.0;
  const th_gram g = {.m = m, .hs = hs, .w = w, .tol = DBL_EPSILON * dmax * (m > 3 ? log((double)m) : 1.0)};
  long ns = ok ? initial_sample(m, rows) : 0;
  for (long a = 0; a < ns; ++a) sampled[rows[a]] = 1;
  for (int first = 1; ok; first = 0) {
    const int K = sample_pivots(&g, rows, ns, piv);
    if (K < 0 || (!rows_by && !grow(&pt->l, &pt->l_cap, (size_t)K * m)) || !grow(&lpp, &lpp_cap, (size_t)K * K)) {
      ok = 0;
      break;
    }
    pt->rank = pivot_rows(&g, piv, K, lpp);
    long p = 0;
    double dp = 0.0;
    if (rows_by) ok = rows_by->rows(rows_by->ctx, pt, first, hs, w, piv, lpp, K, &p, &dp);
    else stopped = !factor_all_rows(pt, &g, piv, lpp, K, d, nt, progress, &p, &dp);
    if (stopped || (ok && stop_asked(progress))) {
      stopped = 1;
      break;
    }
    /* a sampled row above the tolerance differs from its value in the sample
     * by rounding only (the vectorised arithmetic here): the rule is met */
    if (!ok || dp <= g.tol || sampled[p]) break;
    sampled[p] = 1;
    rows[ns++] = p;
  }
  for (long i = 0; ok && !stopped && i < m; ++i) {
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
  if (stopped) return gs_interrupted(msg);
  return ok ? GS_OK : gs_set_msg(msg, GS_ERR_NOMEM, "no memory for the Toeplitz-Hankel factor of %ld rows", m);
}

long legcheb_fft_length(long n) { return smooth_length(2 * ((n + 1) / 2) - 1); }

int legcheb_part_alloc(legcheb_part *pt, long mmax)
{
  pt->l = NULL;
  pt->l_cap = 0;
  pt->row = (double *)malloc((size_t)(mmax + 1) * sizeof(double));
  pt->col = (double *)malloc((size_t)(mmax + 1) * sizeof(double));
  return pt->row && pt->col;
}

void legcheb_part_free(legcheb_part *pt)
{
  free(pt->l);
  free(pt->row);
  free(pt->col);
}

/* The part of parity p (0: even degrees), its first degree off. */
static long part_offset(int to_chebyshev, int p) { return to_chebyshev ? p : (p ? 1 : 2); }

gs_status legcheb_part_prepare(legcheb_part *pt, int to_chebyshev, int parity, long n, int nt, const legcheb_rows *rows,
                               const legcheb_progress *progress, char *msg)
{
  pt->off = part_offset(to_chebyshev, parity);
  pt->m = part_size(n, pt->off);
  pt->rank = 0;
  return pt->m == 0 ? GS_OK : part_cholesky(pt, to_chebyshev, nt, rows, progress, msg);
}

void legcheb_toeplitz_column(const legcheb_part *pt, int to_chebyshev, long len, double *c)
{
  for (long r = 0; r < len; ++r) c[r] = r < pt->m ? (double)legcheb_toeplitz(to_chebyshev, 2 * r) : 0.0;
}

double *legcheb_degree_zero_row(long n)
{
  double *row = (double *)malloc((size_t)(n / 2 + 1) * sizeof(double));
  if (!row) return NULL;
  row[0] = 1.0;
  for (long j = 2; j < n; j += 2) row[j / 2] = (double)(0.5L * j * legcheb_toeplitz(0, j) * legcheb_hankel(0, j));
  return row;
}

double legcheb_degree_zero(const double *row, long n, const double *x)
{
  double s = 0.0;
  for (long j = n - 1 - (n - 1) % 2; j >= 0; j -= 2) s += row[j / 2] * x[j];
  return s;
}

int gs_legcheb_rank(long n, int to_chebyshev, int parity)
{
  legcheb_part pt;
  const legcheb_progress none = {.fn = NULL};
  char msg[GS_MSG_LEN];
  const int ok = legcheb_part_alloc(&pt, (n + 1) / 2) &&
                 legcheb_part_prepare(&pt, to_chebyshev, parity, n, gs_cpu_threads(0), NULL, &none, msg) == GS_OK;
  legcheb_part_free(&pt);
  return ok ? pt.rank : -1;
}
