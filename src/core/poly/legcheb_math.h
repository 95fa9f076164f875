/* The entries of the Legendre <-> Chebyshev connection matrices, shared by
 * the direct method (legcheb_cpu.c) and the Toeplitz-Hankel method
 * (legcheb_factor.c, legcheb_th.c): CPU only (long double), so not GS_HD;
 * the tables they fill are uploaded to the GPU. The Hankel factor's row
 * arithmetic and the per-element arithmetic of the Toeplitz products at the
 * end are GS_HD, shared by the CPU and GPU paths.
 *
 * With Lambda(z) = Gamma(z + 1/2) / Gamma(z + 1), both matrices are upper
 * triangular, zero where n - k is odd, and for n - k even (Alpert and
 * Rokhlin 1991; Townsend, Webb and Olver, "Fast polynomial transforms based
 * on Toeplitz and Hankel matrices", Math. Comp. 87 (2018) 1913-1934):
 *
 *   Legendre -> Chebyshev, P_n = sum_k M_kn T_k:
 *     M_kn = a_k t(n - k) h(n + k),  a_k = (2 - [k = 0]) / pi,
 *     t(d) = Lambda(d / 2),  h(s) = Lambda(s / 2);
 *
 *   Chebyshev -> Legendre, T_n = sum_k L_kn P_k (n >= 1; L_00 = 1, L_k0 = 0):
 *     L_kn = (k + 1/2) n t(n - k) h(n + k),
 *     t(d) = -Gamma((d - 1) / 2) / (2 Gamma(d / 2 + 1)), that is
 *            -Lambda((d - 2) / 2) / d for d >= 2 and sqrt(pi) for d = 0,
 *     h(s) = Gamma(s / 2) / (2 Gamma(s / 2 + 3 / 2)) = Lambda((s - 1) / 2) / (s + 1).
 *   At n = k this gives the known diagonal sqrt(pi) / (2 Lambda(n)).
 *
 * Each product is a Hadamard product of a Toeplitz factor t(n - k) and a
 * Hankel factor h(n + k), and both Hankel factors are moment matrices of
 * positive measures: Lambda(s / 2) = pi^(-1/2) int_0^1 u^s (1 - u^2)^(-1/2) 2 du
 * and h(s) = pi^(-1/2) int_0^1 u^(s - 1) (1 - u^2)^(1/2) 2 du (s >= 1),
 * so they are positive definite and a pivoted Cholesky factorisation of
 * rank O(log n) represents them to rounding error (the paper proves this rank bound). */
#ifndef GS_LEGCHEB_MATH_H
#define GS_LEGCHEB_MATH_H

#include <math.h>

#include "gs_common.h"
#include "poly_lambda.h"

/* The Toeplitz and Hankel factors above; d even and >= 0, s >= 1 for
 * Chebyshev -> Legendre (h(0) is infinite there; the k = n = 0 entry is
 * handled apart). */
static inline long double legcheb_toeplitz(int to_chebyshev, long d)
{
  if (to_chebyshev) return poly_lambda_half(d);
  return d == 0 ? POLY_SQRT_PI_L : -poly_lambda_half(d - 2) / d;
}

static inline long double legcheb_hankel(int to_chebyshev, long s)
{
  return to_chebyshev ? poly_lambda_half(s) : poly_lambda_half(s - 1) / (s + 1.0L);
}

/* The row scaling: a_k (Legendre -> Chebyshev) or k + 1/2. */
static inline long double legcheb_row_scale(int to_chebyshev, long k)
{
  return to_chebyshev ? (k == 0 ? 1.0L : 2.0L) / POLY_PI_L : k + 0.5L;
}

/* The column scaling: 1 or n (with column 0 of Chebyshev -> Legendre apart). */
static inline long double legcheb_col_scale(int to_chebyshev, long n) { return to_chebyshev ? 1.0L : (long double)n; }

/* The Hankel part's Gram matrix G_ij = w_i w_j hs[i + j] (W H W), which the
 * pivoted Cholesky factor represents. */
static inline GS_HD double legcheb_gram(const double *hs, const double *w, long i, long j)
{
  return w[i] * w[j] * hs[i + j];
}

/* Entry q of a row of that factor, from v = G(i, piv[q]), the row's earlier
 * entries l[s * stride] (s < q) and row q of the pivots' factor lpp_q: the
 * one arithmetic of the CPU's rows (legcheb_factor.c) and the GPU's
 * (legcheb_factor_cuda.cu). */
static inline GS_HD double legcheb_factor_entry(double v, const double *l, long stride, const double *lpp_q, int q)
{
  for (int s = 0; s < q; ++s) v -= l[s * stride] * lpp_q[s];
  return v / lpp_q[q];
}

/* The input of the Toeplitz product of term r at row j of a part:
 * l_r(j) (col_j x_j). */
static inline GS_HD double legcheb_spread(double l, double col, double x) { return l * (col * x); }

/* The spectrum of the Toeplitz column from its FFT (re, im): its conjugate
 * divided by len. y_i = sum_{j >= i} t(j - i) x_j is the circular
 * correlation of x with the zero-padded column, so the unnormalised inverse
 * FFT of FFT(x) times this spectrum is y. */
static inline GS_HD void legcheb_toeplitz_spectrum(double *re, double *im, long len)
{
  *re /= len;
  *im /= -(double)len;
}

/* (re, im) times the Toeplitz spectrum's (tr, ti). */
static inline GS_HD void legcheb_spectrum_product(double *re, double *im, double tr, double ti)
{
  const double a = *re, b = *im;
  *re = a * tr - b * ti;
  *im = a * ti + b * tr;
}

#endif
