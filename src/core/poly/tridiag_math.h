/* The arithmetic of the GPU's batched tridiagonal solve (tridiag_cuda.cu),
 * the partition method: the n rows of a system are split into 32 chunks of
 * M rows, one per lane of a warp (rows past n are identity rows). Each lane
 * eliminates the interior of its chunk, dividing each row by its pivot on
 * the way (the rows are not scaled beforehand: one division per row), which
 * leaves every row with a unit diagonal and in terms of the chunk's first
 * and last unknowns; the first and last rows of all chunks form a
 * tridiagonal system of 64 unit-diagonal rows, which cyclic reduction
 * solves (tridiag_reduce at distances 1, 2, 4, ..., 32); substituting its
 * unknowns gives the interior. The rows are scaled first
 * (tridiag_row_scale), and a step whose elimination grows
 * (tridiag_grew) marks the system for the CPU's pivoting solve. GS_HD, so that the C tests of the core
 * (tools/core-test) check this arithmetic on the CPU. */
#ifndef GS_TRIDIAG_MATH_H
#define GS_TRIDIAG_MATH_H

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "gs_common.h"

/* The power of two that brings the largest magnitude of a row (l, g, u) into
 * [0.5, 1) (within 2^-1022 .. 2^1021, so rows past 2^1023 come to [0.5, 4)): rows scaled by it, and their
 * right-hand sides with them, neither overflow in the elimination nor lose
 * a bit. A zero row keeps 1 (its zero pivot says it is singular). From the
 * exponent bits rather than frexp and ldexp, which are calls on the CPU. */
static inline GS_HD double tridiag_row_scale(double l, double g, double u)
{
  /* not fmax, a call on the CPU; the entries are finite */
  const double al = fabs(l), ag = fabs(g), au = fabs(u), lg = al > ag ? al : ag, big = lg > au ? lg : au;
  uint64_t bits;
  memcpy(&bits, &big, sizeof bits);
  const int e = (int)(bits >> 52); /* biased: big in [2^(e - 1023), 2^(e - 1022)) */
  if (big == 0.0 || e == 0x7ff) return 1.0;
  int se = 2045 - (e == 0 ? 1 : e); /* the biased exponent of 2^(1022 - (e - 1023) - 1023) */
  se = se < 1 ? 1 : (se > 2045 ? 2045 : se);
  bits = (uint64_t)se << 52;
  double scale;
  memcpy(&scale, &bits, sizeof scale);
  return scale;
}

/* Growth of the elimination without pivoting: a step subtracts
 * s = l c (the row's multiple of the row above) from a diagonal entry of a
 * row scaled to at most 1. Diagonally dominant and symmetric positive
 * definite matrices keep |s| <= 1; where it exceeds this bound, the step may
 * have lost up to log10 |s| digits, and the system is solved with pivoting
 * instead. */
#define TRIDIAG_GROWTH_MAX 16.0
static inline GS_HD int tridiag_grew(double s) { return !(fabs(s) <= TRIDIAG_GROWTH_MAX); }

/* A row with unit diagonal, a x_{j-s} + x_j + c x_{j+s} = d. */
typedef struct {
  double a, c, d;
} tridiag_row;

/* Rows per chunk for order n: odd (the lanes' strided shared-memory
 * accesses then hit distinct banks) and at least 3 (the sweeps below need
 * an interior row). */
static inline GS_HD long tridiag_chunk_rows(long n)
{
  const long m = (n + 31) / 32;
  return (m < 3 ? 3 : m) | 1;
}

/* One cyclic-reduction step: row r with its neighbours m (at j - s) and p
 * (at j + s; identity rows, all zero, past the ends) eliminated, rescaled
 * to a unit diagonal: the result couples j to j - 2s and j + 2s. */
static inline GS_HD tridiag_row tridiag_reduce(tridiag_row r, tridiag_row m, tridiag_row p)
{
  const double inv = 1.0 / (1.0 - r.a * m.c - r.c * p.a);
  tridiag_row o;
  o.a = -inv * r.a * m.a;
  o.c = -inv * r.c * p.c;
  o.d = inv * (r.d - r.a * m.d - r.c * p.d);
  return o;
}

/* Whether that step grew: it subtracts r.a m.c + r.c p.a from a unit
 * diagonal. */
static inline GS_HD int tridiag_reduce_grew(tridiag_row r, tridiag_row m, tridiag_row p)
{
  return tridiag_grew(fabs(r.a * m.c) + fabs(r.c * p.a));
}

/* A chunk of M >= 3 rows l_k x_{k-1} + g_k x_k + u_k x_{k+1} = b_k, in
 * place: afterwards (l, u, b) hold unit-diagonal rows (a, c, d), row k
 * reading a_k x_0 + x_k + c_k x_{M-1} = d_k for 0 < k < M - 1, row 0
 * a_0 x_{-1} + x_0 + c_0 x_{M-1} = d_0 and row M - 1
 * a x_0 + x_{M-1} + c x_M = d: rows 0 and M - 1 are the chunk's two rows of
 * the reduced system. g is only read. One division per row. Returns 1
 * where an elimination step grew (tridiag_grew), for rows scaled by
 * tridiag_row_scale. Each sweep
 * reads the next row before it stores the current one, so that those
 * loads overlap the arithmetic (the compiler cannot tell the arrays
 * apart). */
static inline GS_HD int tridiag_chunk_eliminate(int M, double *l, const double *g, double *u, double *b)
{
  int grew = 0;
  /* downward, row k in terms of x_0 and x_{k+1}; the state before row 1
   * (ap = -1, cp = dp = 0) stands for x_0 = x_0, so that row 1 keeps its
   * own coupling to x_0 */
  double ap = -1.0, cp = 0.0, dp = 0.0;
  double lk = l[1], gk = g[1], uk = u[1], bk = b[1];
  for (int k = 1; k < M; ++k) {
    const int next = k + 1 < M ? k + 1 : k;
    const double ln = l[next], gn = g[next], un = u[next], bn = b[next];
    grew |= tridiag_grew(lk * cp);
    const double inv = 1.0 / (gk - lk * cp);
    dp = inv * (bk - lk * dp);
    ap = -inv * lk * ap;
    cp = inv * uk;
    l[k] = ap, u[k] = cp, b[k] = dp;
    lk = ln, gk = gn, uk = un, bk = bn;
  }
  /* upward, row k in terms of x_0 and x_{M-1} */
  double an = l[M - 2], cn = u[M - 2], dn = b[M - 2];
  double ak = l[M - 3], ck = u[M - 3], dk = b[M - 3];
  for (int k = M - 3; k >= 1; --k) {
    const double a_above = l[k - 1], c_above = u[k - 1], d_above = b[k - 1];
    dn = dk - ck * dn;
    an = ak - ck * an;
    cn = -ck * cn;
    l[k] = an, u[k] = cn, b[k] = dn;
    ak = a_above, ck = c_above, dk = d_above;
  }
  /* row 0 without x_1 */
  const double u0 = u[0], inv = 1.0 / (g[0] - u0 * l[1]);
  b[0] = inv * (b[0] - u0 * b[1]);
  l[0] *= inv;
  u[0] = -inv * u0 * u[1];
  return grew | tridiag_grew(u0 * l[1]);
}

/* The solution of the chunk into d from its first and last unknowns. */
static inline GS_HD void tridiag_chunk_substitute(int M, const double *a, const double *c, double *d, double x0,
                                                  double xl)
{
  for (int k = 1; k < M - 1; ++k) d[k] -= a[k] * x0 + c[k] * xl;
  d[0] = x0;
  d[M - 1] = xl;
}

#endif
