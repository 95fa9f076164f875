/* The steps of a Jones-Worland plan on one column, shared by the CPU loops
 * and the GPU kernels (the chains themselves are in poly_math.h). */
#ifndef GS_JW_MATH_H
#define GS_JW_MATH_H

#include "gs_common.h"
#include "poly_math.h"

/* The slot of column j in a call's layout: the k with first[k] <= j <
 * first[k + 1], for first ascending from first[0] = 0 and j < first[nslot]
 * (slots without columns are never the answer). */
static inline GS_HD int jw_slot_of(const long *first, int nslot, long j)
{
  int lo = 0, hi = nslot; /* first[lo] <= j < first[hi] */
  while (hi - lo > 1) {
    const int mid = lo + (hi - lo) / 2;
    if (first[mid] <= j) lo = mid;
    else hi = mid;
  }
  return lo;
}

/* Synthesis of one column of degree l: its ncoef coefficients c, chained
 * down to those of W^(l mod 2) and scaled for the DCT, into t (nr entries,
 * zero above the chain's ncoef + l / 2). mu, nu: the bidiagonals of the
 * parity of l, len entries per beta. */
static inline GS_HD void jw_column_down(const double *mu, const double *nu, long len, int l, long ncoef, long nr,
                                        const double *c, double *t)
{
  const int l0 = l % 2;
  const long top = ncoef + l / 2;
  for (long n = 0; n < nr; ++n) t[n] = n < ncoef ? c[n] : 0.0;
  jw_chain_down(mu, nu, len, l0, l, ncoef, t);
  for (long n = 0; n < top; ++n) t[n] *= jw_dct_scale(l0, n, 0, nr);
}

/* Analysis of one column of degree l: the DCT outputs t (nr entries,
 * overwritten) scaled and chained up into the ncoef coefficients c. */
static inline GS_HD void jw_column_up(const double *mu, const double *nu, long len, int l, long ncoef, long nr,
                                      double *t, double *c)
{
  const int l0 = l % 2;
  const long top = ncoef + l / 2;
  for (long n = 0; n < top; ++n) t[n] *= jw_dct_scale(l0, n, 1, nr);
  jw_chain_up(mu, nu, len, l0, l, ncoef, t);
  for (long n = 0; n < ncoef; ++n) c[n] = t[n];
}

/* The DCT of the columns of parity l0: DCT-III (synthesis) or DCT-II
 * (analysis) for W^0 = T_2n, DCT-IV for W^1 = T_2n+1. */
static inline GS_HD int jw_dct_type(int l0, int analysis) { return l0 ? 4 : (analysis ? 2 : 3); }

#endif
