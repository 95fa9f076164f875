/* Arithmetic shared by the CPU and GPU polynomial transforms: numbers with
 * an extra binary exponent (for recurrences whose seeds underflow), the
 * Jones-Worland connection coefficients and the three-term recurrences of
 * orthonormal Jacobi and associated Legendre functions. */
#ifndef GS_POLY_MATH_H
#define GS_POLY_MATH_H

#include <math.h>

#include "gs_common.h"

/* A value m * 2^e whose exponent e is kept apart: r^l and sin^m(theta)
 * underflow in double long before the polynomial they seed becomes small
 * again, so recurrences run on the mantissa and the exponent is applied at
 * the end (as SHTns and libsharp do with their scaled numbers). */
#define POLY_SCALE_BITS 400
#define POLY_SCALE_BIG 0x1p400

/* Moves powers of 2^POLY_SCALE_BITS from the pair (a, b), which a
 * three-term recurrence carries, into *e, when a has grown large. */
static inline GS_HD void poly_rescale(double *a, double *b, int *e)
{
  if (fabs(*a) > POLY_SCALE_BIG) {
    *a = ldexp(*a, -POLY_SCALE_BITS);
    *b = ldexp(*b, -POLY_SCALE_BITS);
    *e += POLY_SCALE_BITS;
  }
}

/* x^p as m * 2^e (0 < x, p >= 0), by repeated squaring of the mantissa. */
static inline GS_HD double poly_pow_scaled(double x, int p, int *e)
{
  int eb, ex;
  double base = frexp(x, &eb), m = 1.0;
  *e = 0;
  while (p > 0) {
    if (p & 1) {
      m = frexp(m * base, &ex);
      *e += ex + eb;
    }
    p >>= 1;
    if (p > 0) {
      base = frexp(base * base, &ex);
      eb = 2 * eb + ex;
    }
  }
  return m;
}

/* ---- orthonormal Jacobi polynomials p_n^(alpha, beta) on [-1, 1] -------------
 * x p_n = a_{n+1} p_{n+1} + b_n p_n + a_n p_{n-1}; s = alpha + beta. The
 * factors (n + s) / (2n + s - 1) at n = 1 and (beta^2 - alpha^2) / s at
 * n = 0 are cancelled by hand, so that s = -1 (Chebyshev) needs no special case. */
static inline GS_HD double jacobi_rec_a(int n, double alpha, double beta)
{
  if (n == 0) return 0.0; /* p_{-1} = 0 */
  const double s = alpha + beta, t = 2.0 * n + s;
  double q = (double)n * (n + alpha) * (n + beta) / (t + 1.0);
  if (n > 1) q *= (n + s) / (t - 1.0);
  return 2.0 / t * sqrt(q);
}

static inline GS_HD double jacobi_rec_b(int n, double alpha, double beta)
{
  const double s = alpha + beta, t = 2.0 * n + s;
  return n == 0 ? (beta - alpha) / (s + 2.0) : (beta - alpha) * (beta + alpha) / (t * (t + 2.0));
}

/* ---- Jones-Worland connection (alpha = -1/2) ----------------------------------
 * (1 + x) p_n^(a, b) = mu_n^b p_n^(a, b-1) + nu_n^b p_{n+1}^(a, b-1), and
 * p_n^(a, b-1) = mu_n^b p_n^(a, b) + nu_{n-1}^b p_{n-1}^(a, b): one pair of
 * bidiagonals per b serves both directions. */
#define JW_ALPHA (-0.5)

static inline GS_HD double jw_mu(int n, double beta)
{
  const double a = JW_ALPHA, s = a + beta;
  if (n == 0) return sqrt(2.0 * beta / (s + 1.0)); /* (n + s) / (2n + s) = 1 at n = 0 */
  return sqrt(2.0 * (n + beta) * (n + s) / ((2.0 * n + s) * (2.0 * n + s + 1.0)));
}

static inline GS_HD double jw_nu(int n, double beta)
{
  const double a = JW_ALPHA, s = a + beta;
  return sqrt(2.0 * (n + 1.0) * (n + a + 1.0) / ((2.0 * n + s + 1.0) * (2.0 * n + s + 2.0)));
}

/* The grid r_k = cos(pi (2k + 1) / (4 nr)), its weight pi / (2 nr), and the
 * factor between the unit coefficients of W^0 or W^1 (l0) and the DCT
 * inputs (synthesis: DCT-III or IV) or outputs (analysis, times the
 * weight: DCT-II or IV): the unit W_0^0 = sqrt(2 / pi), W_n^0 =
 * (2 / sqrt(pi)) T_2n and W_n^1 = (2 / sqrt(pi)) T_2n+1, against the DCTs'
 * own factors of 2. */
static inline GS_HD double jw_node(long k, long nr) { return cos(3.14159265358979323846 * (2.0 * k + 1.0) / (4.0 * nr)); }
static inline GS_HD double jw_weight(long nr) { return 1.5707963267948966 / nr; }
static inline GS_HD double jw_dct_scale(int l0, long n, int analysis, long nr)
{
  const double s = 0.56418958354775628695; /* 1 / sqrt(pi) */
  if (l0 == 1 || n > 0) return analysis ? jw_weight(nr) * s : s;
  return analysis ? jw_weight(nr) * s * 0.70710678118654752440 : s * 1.4142135623730950488;
}

/* The connection chains on one column t. mu, nu: the bidiagonals of
 * beta = l0 + b + 1/2 at [b * len + n], b = 0 .. l - l0 - 1 (len entries
 * each). Synthesis (down) turns ncoef coefficients of W^l into the
 * ncoef + (l - l0) / 2 of W^l0 by e = U^-1 A_beta c per step of 2, with A_beta
 * multiplying by 1 + x and U = A_(beta-1)^T; analysis (up) is the transpose,
 * A_beta^T A_(beta-1)^-1, from ncoef + (l - l0) / 2 entries down to ncoef. */
static inline GS_HD void jw_chain_down(const double *mu_tab, const double *nu_tab, long len_tab, int l0, int l,
                                       long ncoef, double *t)
{
  long len = ncoef;
  for (int j = l; j > l0; j -= 2) {
    const double *mu = mu_tab + (j - l0 - 1) * len_tab, *nu = nu_tab + (j - l0 - 1) * len_tab;
    const double *mu1 = mu - len_tab, *nu1 = nu - len_tab;
    t[len] = nu[len - 1] * t[len - 1];
    for (long n = len - 1; n > 0; --n) t[n] = mu[n] * t[n] + nu[n - 1] * t[n - 1];
    t[0] *= mu[0];
    ++len;
    t[len - 1] /= mu1[len - 1];
    for (long n = len - 2; n >= 0; --n) t[n] = (t[n] - nu1[n] * t[n + 1]) / mu1[n];
  }
}

static inline GS_HD void jw_chain_up(const double *mu_tab, const double *nu_tab, long len_tab, int l0, int l,
                                     long ncoef, double *t)
{
  long len = ncoef + (l - l0) / 2;
  for (int j = l0 + 2; j <= l; j += 2) {
    const double *mu = mu_tab + (j - l0 - 1) * len_tab, *nu = nu_tab + (j - l0 - 1) * len_tab;
    const double *mu1 = mu - len_tab, *nu1 = nu - len_tab;
    t[0] /= mu1[0];
    for (long n = 1; n < len; ++n) t[n] = (t[n] - nu1[n - 1] * t[n - 1]) / mu1[n];
    --len;
    for (long n = 0; n < len; ++n) t[n] = mu[n] * t[n] + nu[n] * t[n + 1];
  }
}

/* The unit Jones-Worland polynomials W_0..W_{count-1} of degree l at r, into
 * out[n * stride]: W_n = r^l q0 u_n(2 r^2 - 1), where q0 = W_0 / r^l and
 * u_n = p_n / p_0 follows the Jacobi recurrence (beta = l - 1/2). r^l and
 * u_n carry separate exponents, so that neither the seed's underflow nor the
 * growth of u_n near r = 0 for large l loses the product. */
static inline GS_HD void jw_unit_values(int l, int count, double r, double q0, double *out, long stride)
{
  const double x = fma(2.0 * r, r, -1.0), beta = l - 0.5;
  int e, eu = 0;
  const double m = r > 0.0 ? poly_pow_scaled(r, l, &e) : (l == 0 ? 1.0 : 0.0);
  if (!(r > 0.0)) e = 0;
  double u = 1.0, um1 = 0.0;
  for (int n = 0; n < count; ++n) {
    out[n * stride] = ldexp(u * m * q0, e + eu);
    const double next = ((x - jacobi_rec_b(n, JW_ALPHA, beta)) * u - jacobi_rec_a(n, JW_ALPHA, beta) * um1) /
                        jacobi_rec_a(n + 1, JW_ALPHA, beta);
    um1 = u;
    u = next;
    poly_rescale(&u, &um1, &eu);
  }
}

/* ---- orthonormal associated Legendre functions ----------------------------------
 * Pbar_l^m = A_l^m (x Pbar_{l-1}^m - B_l^m Pbar_{l-2}^m), with
 * A = sqrt((4l^2 - 1) / (l^2 - m^2)) and B = 1 / A_{l-1}^m. */
static inline GS_HD double alp_rec_a(int l, int m)
{
  const double L = l, M = m;
  return sqrt((4.0 * L * L - 1.0) / ((L - M) * (L + M)));
}

static inline GS_HD double alp_rec_b(int l, int m)
{
  const double L = l - 1.0, M = m;
  return sqrt((L - M) * (L + M) / (4.0 * L * L - 1.0));
}


/* The seed factor (-1)^m sqrt((2m + 1) c_m) of Pbar_m^m = factor *
 * sin^m(theta), c_m = 1 / (4 pi) prod_{k<=m} (2k - 1) / (2k): c_0 is
 * ALP_SEED_C0, c_m = alp_seed_c(c_{m-1}, m), so that a table of all orders
 * (the GPU's) runs the product once and equals alp_seed() bit for bit. */
#define ALP_SEED_C0 0.079577471545947667884 /* 1 / (4 pi) */
static inline GS_HD double alp_seed_c(double c, int m) { return c * ((2.0 * m - 1.0) / (2.0 * m)); }

static inline GS_HD double alp_seed_of(double c, int m) { return (m % 2 ? -1.0 : 1.0) * sqrt((2.0 * m + 1.0) * c); }

static inline GS_HD double alp_seed(int m)
{
  double c = ALP_SEED_C0;
  for (int k = 1; k <= m; ++k) c = alp_seed_c(c, k);
  return alp_seed_of(c, m);
}

/* The start of the recurrence in l of Pbar_l^m at one x = cos(theta):
 * Pbar_m^m = u 2^e, u the mantissa the recurrence runs on. Below
 * 2^ALP_MIN_EXP times the largest mantissa (2^400) a value is < 2^-600
 * and is dropped, as SHTns and libsharp drop them (the CPU's sht_block and
 * the GPU's lane_state keep a lane scaled until then). */
#define ALP_MIN_EXP (-1000)
typedef struct {
  double u;
  int e;
} alp_iter;

/* sin(theta) at the node x + x_lo. */
static inline GS_HD double alp_sin(double x, double x_lo)
{
  return sqrt(((1.0 - x) - x_lo) * ((1.0 + x) + x_lo));
}

static inline GS_HD alp_iter alp_start(int m, double s, double seed)
{
  alp_iter it;
  it.e = 0;
  it.u = seed * (m > 0 ? poly_pow_scaled(s, m, &it.e) : 1.0);
  return it;
}

/* From Pbar_{l-1}^m (u) and Pbar_{l-2}^m (um1) to Pbar_l^m, with
 * A = alp_rec_a(l, m), B = alp_rec_b(l, m), at the node x + x_lo: a node
 * rounded to double moves by up to an ulp of x, which near the poles is a
 * relative change of 1e-16 / sin(theta) in theta, and the recurrence at low
 * orders amplifies it by up to l^2 (a round trip at degree 4095 of order 0
 * erred by 5e-12 without x_lo, 2e-13 with it). */
static inline GS_HD double alp_step(double u, double um1, double A, double B, double x, double x_lo)
{
  return A * (fma(x, u, x_lo * u) - B * um1);
}

#endif
