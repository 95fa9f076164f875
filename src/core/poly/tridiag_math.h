/* The arithmetic of the GPU's batched tridiagonal solve (tridiag_cuda.cu),
 * the partition method: the n rows of a system are split into 32 chunks of
 * M rows, one per lane of a warp (rows past n are identity rows). Each row
 * is first divided by its diagonal; each lane then eliminates the interior
 * of its chunk, which leaves every row in terms of the chunk's first and
 * last unknowns; the first and last rows of all chunks form a tridiagonal
 * system of 64 unit-diagonal rows, which cyclic reduction solves
 * (tridiag_reduce at distances 1, 2, 4, ..., 32); substituting its
 * unknowns gives the interior. GS_HD, so that the C tests of the core
 * (tools/core-test) check this arithmetic on the CPU. */
#ifndef GS_TRIDIAG_MATH_H
#define GS_TRIDIAG_MATH_H

#include "gs_common.h"

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

/* The row lower x_{i-1} + diag x_i + upper x_{i+1} = rhs with unit diagonal. */
static inline GS_HD tridiag_row tridiag_unit_row(double lower, double diag, double upper, double rhs)
{
  const double inv = 1.0 / diag;
  tridiag_row r;
  r.a = lower * inv;
  r.c = upper * inv;
  r.d = rhs * inv;
  return r;
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

/* A chunk of M >= 3 unit-diagonal rows (a couples to the row before, c to
 * the row after): afterwards row k reads a_k x_0 + x_k + c_k x_{M-1} = d_k
 * for 0 < k < M - 1, row 0 a_0 x_{-1} + x_0 + c_0 x_{M-1} = d_0 and row
 * M - 1 a x_0 + x_{M-1} + c x_M = d: rows 0 and M - 1 are the chunk's two
 * rows of the reduced system. One division per row. */
static inline GS_HD void tridiag_chunk_eliminate(int M, double *a, double *c, double *d)
{
  double ap = a[1], cp = c[1], dp = d[1];
  for (int k = 2; k < M; ++k) { /* row k in terms of x_0 and x_{k+1} */
    const double ak = a[k], inv = 1.0 / (1.0 - ak * cp);
    dp = inv * (d[k] - ak * dp);
    ap = -inv * ak * ap;
    cp = inv * c[k];
    a[k] = ap, c[k] = cp, d[k] = dp;
  }
  double an = a[M - 2], cn = c[M - 2], dn = d[M - 2];
  for (int k = M - 3; k >= 1; --k) { /* row k in terms of x_0 and x_{M-1} */
    const double ck = c[k];
    dn = d[k] - ck * dn;
    an = a[k] - ck * an;
    cn = -ck * cn;
    a[k] = an, c[k] = cn, d[k] = dn;
  }
  const double c0 = c[0], inv = 1.0 / (1.0 - c0 * a[1]); /* row 0 without x_1 */
  d[0] = inv * (d[0] - c0 * d[1]);
  a[0] *= inv;
  c[0] = -inv * c0 * c[1];
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
