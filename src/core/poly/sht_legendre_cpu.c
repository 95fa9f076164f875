/* The Legendre sums of the CPU spherical-harmonic transforms. For each order
 * m (spread over the threads) the latitudes run in blocks of SHT_LANES lanes,
 * from the equator towards the poles: the recurrence of poly_math.h gives
 * Pbar_l^m of a whole block for l = m .. lmax (one vector loop per l), then
 * synthesis sums them against the coefficients, analysis against the
 * longitude integrals. A lane carries a latitude and its mirror, so one
 * recurrence serves both (the even and odd degrees are summed apart). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gs_cpu.h"
#include "poly_internal.h"
#include "poly_math.h"
#include "sht_internal.h"

#define NL SHT_LANES

static int lane_cmp(const void *p, const void *q)
{
  const double a = fabs(((const double *)p)[0]), b = fabs(((const double *)q)[0]);
  return (a > b) - (a < b);
}

/* Pairs i with nlat - 1 - i where the nodes are exactly opposite (Gauss
 * grids), then sorts the lanes by |x| (key, north, south). */
gs_status sht_lanes_make(const gs_sht_args *a, sht_lanes *ln)
{
  const long nlat = a->nlat;
  double *key = (double *)malloc(3 * (size_t)nlat * sizeof(double));
  long n = 0;
  memset(ln, 0, sizeof *ln);
  if (!key) return GS_ERR_NOMEM;
  for (long i = 0; i < (nlat + 1) / 2; ++i) {
    const long j = nlat - 1 - i;
    const double lo_i = a->x_lo ? a->x_lo[i] : 0.0, lo_j = a->x_lo ? a->x_lo[j] : 0.0;
    const int pair = i < j && a->x[j] == -a->x[i] && lo_j == -lo_i;
    key[3 * n] = a->x[i], key[3 * n + 1] = (double)i, key[3 * n + 2] = pair ? (double)j : -1.0;
    ++n;
    if (i < j && !pair) key[3 * n] = a->x[j], key[3 * n + 1] = (double)j, key[3 * n + 2] = -1.0, ++n;
  }
  qsort(key, (size_t)n, 3 * sizeof(double), lane_cmp);
  ln->n = (n + NL - 1) / NL * NL;
  const size_t sz = (size_t)ln->n;
  ln->north = (long *)malloc(2 * sz * sizeof(long));
  ln->x = (double *)malloc(5 * sz * sizeof(double));
  if (!ln->north || !ln->x) {
    free(key);
    sht_lanes_free(ln);
    return GS_ERR_NOMEM;
  }
  ln->south = ln->north + sz;
  ln->x_lo = ln->x + sz, ln->sin_t = ln->x + 2 * sz, ln->w_n = ln->x + 3 * sz, ln->w_s = ln->x + 4 * sz;
  for (long k = 0; k < ln->n; ++k) {
    const long i = k < n ? (long)key[3 * k + 1] : -1, j = k < n ? (long)key[3 * k + 2] : -1;
    ln->north[k] = i, ln->south[k] = j;
    ln->x[k] = i >= 0 ? a->x[i] : 0.0;
    ln->x_lo[k] = i >= 0 && a->x_lo ? a->x_lo[i] : 0.0;
    ln->sin_t[k] = alp_sin(ln->x[k], ln->x_lo[k]);
    ln->w_n[k] = i >= 0 ? a->w[i] : 0.0;
    ln->w_s[k] = j >= 0 ? a->w[j] : 0.0;
  }
  free(key);
  return GS_OK;
}

void sht_lanes_free(sht_lanes *ln)
{
  free(ln->north);
  free(ln->x);
  memset(ln, 0, sizeof *ln);
}

/* The recurrence state of a block. A lane stays scaled (on = 0, its values
 * dropped) until its exponent reaches ALP_MIN_EXP; its
 * mantissas are then multiplied by their scale (exact, a power of 2) and it
 * runs on the values themselves (on = 1), which stay below a few units. */
typedef struct {
  double u[NL], um1[NL], on[NL], x[NL], x_lo[NL];
  int e[NL], scaled;
} sht_block;

static inline GS_HD void block_unscale(sht_block *b, int k)
{
  if (b->on[k] == 0.0 && b->e[k] >= ALP_MIN_EXP) {
    const double f = ldexp(1.0, b->e[k]);
    b->u[k] *= f, b->um1[k] *= f, b->e[k] = 0, b->on[k] = 1.0;
    --b->scaled;
  }
}

/* Steps of the scaled recurrence from degree l while any lane is scaled;
 * returns the next degree. */
static inline GS_HD int block_scaled(sht_block *b, int l, int m, int lmax, const double *A, const double *B, double *p)
{
  for (; l <= lmax && b->scaled; ++l) {
    double *pl = p + (size_t)(l - m) * NL;
    int big = 0;
#pragma omp simd reduction(| : big)
    for (int k = 0; k < NL; ++k) {
      const double next = alp_step(b->u[k], b->um1[k], A[l], B[l], b->x[k], b->x_lo[k]);
      b->um1[k] = b->u[k], b->u[k] = next;
      pl[k] = next * b->on[k];
      big |= fabs(next) > POLY_SCALE_BIG;
    }
    for (int k = 0; big && k < NL; ++k) {
      if (b->on[k] != 0.0) continue;
      poly_rescale(&b->u[k], &b->um1[k], &b->e[k]);
      block_unscale(b, k);
    }
  }
  return l;
}

/* Starts lanes k0 .. k0 + NL - 1 at order m and runs the scaled recurrence
 * while any lane is scaled, with Pbar_l^m into p[(l - m) NL + k]; returns
 * the first degree left to the plain recurrence. */
static inline GS_HD int block_begin(sht_block *b, const sht_lanes *ln, long k0, int m, int lmax, double seed,
                                    const double *A, const double *B, double *p)
{
  b->scaled = NL;
  for (int k = 0; k < NL; ++k) {
    const alp_iter it = alp_start(m, ln->sin_t[k0 + k], seed);
    b->u[k] = it.u, b->um1[k] = 0.0, b->e[k] = it.e, b->on[k] = 0.0;
    b->x[k] = ln->x[k0 + k], b->x_lo[k] = ln->x_lo[k0 + k];
    block_unscale(b, k);
    p[k] = b->u[k] * b->on[k];
  }
  return block_scaled(b, m + 1, m, lmax, A, B, p);
}

/* The synthesis sums (sum[0], sum[1]: cos and sin of even l - m; sum[2],
 * sum[3]: odd) over the degrees m .. l1 - 1 of the buffer p. */
static inline GS_HD void synthesis_buffer(int m, int l1, const double *cp, const double *sp, const double *p,
                                          double sum[4][NL])
{
  for (int l = m; l < l1; ++l) {
    const double *pl = p + (size_t)(l - m) * NL;
    double *sc = sum[2 * ((l - m) & 1)], *ss = sum[2 * ((l - m) & 1) + 1];
    for (int k = 0; k < NL; ++k) sc[k] += cp[l] * pl[k], ss[k] += sp[l] * pl[k];
  }
}

/* The synthesis sums over the degrees l .. lmax, the recurrence of
 * unscaled lanes and the sums fused in one loop, two degrees a step. */
static inline GS_HD void synthesis_plain(const sht_block *b, int l, int m, int lmax, const double *A, const double *B,
                                         const double *cp, const double *sp, double sum[4][NL])
{
  double u[NL], um1[NL], x[NL], x_lo[NL], c0[NL] = {0}, s0[NL] = {0}, c1[NL] = {0}, s1[NL] = {0};
  const int odd = (l - m) & 1;
  memcpy(u, b->u, sizeof u), memcpy(um1, b->um1, sizeof um1), memcpy(x, b->x, sizeof x), memcpy(x_lo, b->x_lo, sizeof x_lo);
  for (; l < lmax; l += 2) {
    const double a0 = A[l], b0 = B[l], a1 = A[l + 1], b1 = B[l + 1], cc0 = cp[l], ss0 = sp[l], cc1 = cp[l + 1], ss1 = sp[l + 1];
#pragma omp simd
    for (int k = 0; k < NL; ++k) {
      const double p0 = alp_step(u[k], um1[k], a0, b0, x[k], x_lo[k]);
      const double p1 = alp_step(p0, u[k], a1, b1, x[k], x_lo[k]);
      c0[k] += cc0 * p0, s0[k] += ss0 * p0, c1[k] += cc1 * p1, s1[k] += ss1 * p1;
      um1[k] = p0, u[k] = p1;
    }
  }
  for (int k = 0; l == lmax && k < NL; ++k) {
    const double p0 = alp_step(u[k], um1[k], A[l], B[l], x[k], x_lo[k]);
    c0[k] += cp[l] * p0, s0[k] += sp[l] * p0;
  }
  for (int k = 0; k < NL; ++k) {
    sum[2 * odd][k] += c0[k], sum[2 * odd + 1][k] += s0[k];
    sum[2 - 2 * odd][k] += c1[k], sum[3 - 2 * odd][k] += s1[k];
  }
}

/* Synthesis of a block: its sums, added for the north latitude and
 * subtracted for its mirror. */
static inline GS_HD void block_synthesis(const sht_lanes *ln, long k0, const sht_block *b, int l, int m, int lmax,
                                         const double *A, const double *B, const double *cp, const double *sp,
                                         const double *p, double *gc, double *gs, long nlat)
{
  double sum[4][NL] = {{0}};
  synthesis_buffer(m, l, cp, sp, p, sum);
  synthesis_plain(b, l, m, lmax, A, B, cp, sp, sum);
  for (int k = 0; k < NL; ++k) {
    const long i = ln->north[k0 + k], j = ln->south[k0 + k];
    if (i >= 0) gc[i + nlat * m] = sum[0][k] + sum[2][k], gs[i + nlat * m] = sum[1][k] + sum[3][k];
    if (j >= 0) gc[j + nlat * m] = sum[0][k] - sum[2][k], gs[j + nlat * m] = sum[1][k] - sum[3][k];
  }
}

/* The analysis sums over degrees l .. lmax, fused with the recurrence as
 * synthesis_plain: acc as in block_analysis, g[0..3] the lanes' integrals
 * for even (cos, sin) and odd (cos, sin) l - m. */
static inline GS_HD void analysis_plain(const sht_block *b, int l, int m, int lmax, const double *A, const double *B,
                                        double g[4][NL], double *acc)
{
  double u[NL], um1[NL], x[NL], x_lo[NL], gc0[NL], gs0[NL], gc1[NL], gs1[NL];
  const int odd = (l - m) & 1;
  memcpy(u, b->u, sizeof u), memcpy(um1, b->um1, sizeof um1), memcpy(x, b->x, sizeof x), memcpy(x_lo, b->x_lo, sizeof x_lo);
  memcpy(gc0, g[2 * odd], sizeof gc0), memcpy(gs0, g[2 * odd + 1], sizeof gs0);
  memcpy(gc1, g[2 - 2 * odd], sizeof gc1), memcpy(gs1, g[3 - 2 * odd], sizeof gs1);
  for (; l < lmax; l += 2) {
    const double a0 = A[l], b0 = B[l], a1 = A[l + 1], b1 = B[l + 1];
    double *ac = acc + (size_t)2 * (l - m) * NL;
#pragma omp simd
    for (int k = 0; k < NL; ++k) {
      const double p0 = alp_step(u[k], um1[k], a0, b0, x[k], x_lo[k]);
      const double p1 = alp_step(p0, u[k], a1, b1, x[k], x_lo[k]);
      ac[k] += gc0[k] * p0, ac[NL + k] += gs0[k] * p0, ac[2 * NL + k] += gc1[k] * p1, ac[3 * NL + k] += gs1[k] * p1;
      um1[k] = p0, u[k] = p1;
    }
  }
  for (int k = 0; l == lmax && k < NL; ++k) {
    const double p0 = alp_step(u[k], um1[k], A[l], B[l], x[k], x_lo[k]);
    double *ac = acc + (size_t)2 * (l - m) * NL;
    ac[k] += gc0[k] * p0, ac[NL + k] += gs0[k] * p0;
  }
}

/* Analysis of a block: acc[2 (l - m) NL + k] (cos) and acc[(2 (l - m) + 1) NL + k]
 * (sin) += the weighted longitude integrals of the pair, summed for even l - m
 * and subtracted for odd, times Pbar_l^m. */
static inline GS_HD void block_analysis(const sht_lanes *ln, long k0, const sht_block *b, int l, int m, int lmax,
                                        const double *A, const double *B, const double *gc, const double *gs,
                                        long nlat, const double *p, double *acc)
{
  double g[4][NL]; /* even cos, even sin, odd cos, odd sin */
  for (int k = 0; k < NL; ++k) {
    const long i = ln->north[k0 + k], j = ln->south[k0 + k];
    const double cn = i >= 0 ? ln->w_n[k0 + k] * gc[i + nlat * m] : 0.0, sn = i >= 0 ? ln->w_n[k0 + k] * gs[i + nlat * m] : 0.0;
    const double cs = j >= 0 ? ln->w_s[k0 + k] * gc[j + nlat * m] : 0.0, ss = j >= 0 ? ln->w_s[k0 + k] * gs[j + nlat * m] : 0.0;
    g[0][k] = cn + cs, g[1][k] = sn + ss, g[2][k] = cn - cs, g[3][k] = sn - ss;
  }
  for (int j = 0; j < l - m; ++j) {
    const double *pj = p + (size_t)j * NL, *gcj = g[2 * (j & 1)], *gsj = g[2 * (j & 1) + 1];
    double *ac = acc + (size_t)2 * j * NL, *as = ac + NL;
    for (int k = 0; k < NL; ++k) ac[k] += gcj[k] * pj[k], as[k] += gsj[k] * pj[k];
  }
  analysis_plain(b, l, m, lmax, A, B, g, acc);
}

/* The Legendre sums of order m. Cloned for CPUs with FMA: the recurrence
 * calls fma() at every step. */
GS_CPU_DISPATCH static void sht_order(const gs_sht_args *a, const sht_lanes *ln, double *gc, double *gs, int m,
                                      long field, int analysis, double *work)
{
  const int lmax = a->lmax, L = lmax + 1;
  double *A = work, *B = work + L, *p = work + 2 * L, *acc = p + (size_t)NL * L;
  for (int l = m + 1; l <= lmax; ++l) A[l] = alp_rec_a(l, m), B[l] = alp_rec_b(l, m);
  const double seed = alp_seed(m);
  double *cp = a->cos_part + (size_t)field * L * L + (size_t)m * L, *sp = a->sin_part + (size_t)field * L * L + (size_t)m * L;
  if (analysis) memset(acc, 0, (size_t)2 * NL * (L - m) * sizeof(double));
  else
    for (long i = 0; i < a->nlat; ++i) gc[i + a->nlat * m] = gs[i + a->nlat * m] = 0.0;
  /* Blocks from the equator: once all values of a block are dropped, those
   * nearer the poles (smaller sin(theta)) are smaller still. */
  for (long k0 = 0; k0 < ln->n; k0 += NL) {
    sht_block b;
    const int l = block_begin(&b, ln, k0, m, lmax, seed, A, B, p);
    if (b.scaled == NL) break;
    if (analysis) block_analysis(ln, k0, &b, l, m, lmax, A, B, gc, gs, a->nlat, p, acc);
    else block_synthesis(ln, k0, &b, l, m, lmax, A, B, cp, sp, p, gc, gs, a->nlat);
  }
  if (!analysis) return;
  for (int l = m; l <= lmax; ++l) {
    const double *ac = acc + (size_t)2 * (l - m) * NL, *as = ac + NL;
    double c = 0.0, s = 0.0;
    for (int k = 0; k < NL; ++k) c += ac[k], s += as[k];
    cp[l] = c, sp[l] = s;
  }
  for (int l = 0; l < m; ++l) cp[l] = sp[l] = 0.0;
}

/* Lane-degree steps between two calls of the progress callback, per thread:
 * a few hundredths of a second. */
#define SHT_STEPS_PER_CHECK 2e7

/* The first order after m0 at which the orders from m0 hold at least
 * `steps` lane-degree steps (order m: (lmax + 1 - m) degrees on every lane). */
static int order_batch_end(int m0, int L, long lanes, double steps)
{
  double done = 0.0;
  int m = m0;
  while (m < L && done < steps) done += (double)(L - m++) * lanes;
  return m;
}

gs_status sht_legendre(const gs_sht_args *a, const sht_lanes *ln, double *gc, double *gs, long field, int analysis,
                       int threads, gs_progress_fn progress)
{
  const int L = a->lmax + 1;
  const int nt = gs_cpu_threads_for(threads, 2.0 * L * L * a->nlat / POLY_FLOPS_PER_WORK);
  const double total = 0.5 * L * (L + 1.0) * ln->n, batch = SHT_STEPS_PER_CHECK * nt;
  int failed = 0, stop = 0;
#pragma omp parallel num_threads(nt)
  {
    double *work = (double *)malloc((2 + 3 * (size_t)NL) * L * sizeof(double));
    if (!work) {
#pragma omp atomic write
      failed = 1;
    }
    /* Batches of orders, the progress callback between them on the thread
     * that entered (every thread computes the same batch ends) */
    for (int m0 = 0; m0 < L && !stop; m0 = order_batch_end(m0, L, ln->n, batch)) {
      const int m1 = order_batch_end(m0, L, ln->n, batch);
#pragma omp for schedule(dynamic, 1)
      for (int m = m0; m < m1; ++m)
        if (work) sht_order(a, ln, gc, gs, m, field, analysis, work);
#pragma omp master
      {
        const double left = 0.5 * (L - m1) * (L - m1 + 1.0) * ln->n;
        if (progress && m1 < L && progress((field + 1.0 - left / total) / a->nfield)) stop = 1;
      }
#pragma omp barrier
    }
    free(work);
  }
  return failed ? GS_ERR_NOMEM : stop ? GS_ERR_INTERRUPTED : GS_OK;
}
