/* Modified Bessel function of the second kind, K_nu(x), for real nu >= 0 and
 * x > 0: one implementation shared by the CPU loops and the CUDA kernels.
 *
 * Method. Write nu = mu + n with n = floor(nu + 1/2), |mu| <= 1/2. The pair
 * K_mu, K_{mu+1} comes from
 *   - Temme's series (x < BESSEL_K_TEMME_MAX), with 1/Gamma(1 +- mu) from the
 *     Taylor series of 1/Gamma(1 + z), so no cancellation as mu -> 0;
 *   - otherwise the trapezoid rule on exp(x) K_mu(x) =
 *     int_0^inf exp(-2 x sinh(t/2)^2) cosh(mu t) dt. The integrand is even and
 *     entire, so the rule converges geometrically; the step h = (1.8 x + 16)^-1/2
 *     follows the peak width (about x^-1/2 for large x) and 12 to 18 nodes give
 *     full double precision for every x >= 1;
 *   - closed forms at half-integer orders (mu = -1/2);
 *   - Hankel's expansion for x >= BESSEL_K_HUGE_X, where the nodes of the
 *     rule would underflow.
 * Forward recurrence K_{k+1} = K_{k-1} + (2k/x) K_k then reaches nu; it is
 * stable for K and adds only positive terms. From nu = 1000 on, Debye's
 * uniform asymptotic expansion replaces the recurrence. Values are carried as
 * m * 2^e2 * exp(-xs), so log K and exp(x) K never overflow or underflow.
 *
 * The derivative in nu uses the same decomposition: d/dnu of the integral is
 * int t sinh(mu t) exp(...) dt, and the recurrence differentiated in the order
 * carries it up to nu. */
#ifndef GS_BESSEL_K_MATH_H
#define GS_BESSEL_K_MATH_H

#include <math.h>

#include "gs_common.h"

#define BESSEL_K_TEMME_MAX 1.0
/* Recurrence values are renormalised by 2^-600 once they pass 2^600. */
#define BESSEL_K_RESCALE_AT 0x1p600
#define BESSEL_K_RESCALE_BITS 600
/* Below this x, steps of the recurrence could overflow between two
 * renormalisations: every order step then carries an explicit factor 2^tbits. */
#define BESSEL_K_TINY_X 0x1p-400
/* From this x on, exp(x) K_nu(x) = sqrt(pi / (2x)) (1 + (4 nu^2 - 1) / (8x))
 * to double precision for every nu < BESSEL_K_DEBYE_NU: the next term of
 * Hankel's expansion is below (nu^2 / (2x))^2 / 2 < 1e-19. (The trapezoid
 * rule's order derivative, about nu / x, is off by 5e-14 at x = 1e17.) */
#define BESSEL_K_HUGE_X 0x1p50
/* Trapezoid tail: t_max is where x (cosh t - 1) reaches this (the cosh(mu t)
 * weights, up to e^{1.5 t}, still leave the neglected tail near 1e-16 of the
 * integral; 30 already gives full double accuracy on a 30-digit check from
 * x = 1 to 700). */
#define BESSEL_K_TAIL_LOG 34.0

/* From this order on, Debye's uniform asymptotic expansion replaces the
 * recurrence (which would take one step per unit of order): its first
 * neglected term, u_5(p) / nu^5, is below 1e-16 for every x. */
#define BESSEL_K_DEBYE_NU 1000.0

/* What bessel_k_value returns. */
enum { BESSEL_K_PLAIN = 0, BESSEL_K_SCALED = 1, BESSEL_K_LOG = 2, BESSEL_K_LOG_SCALED = 3 };

/* Constants that depend on the order only: computed once per order, so the
 * Matérn kernels, whose order is fixed across a matrix, reuse them. */
typedef struct {
  double mu;       /* reduced order, |mu| <= 1/2 */
  int n;           /* nu = mu + n */
  double gam1;     /* (1/Gamma(1-mu) - 1/Gamma(1+mu)) / (2 mu) */
  double gam2;     /* (1/Gamma(1-mu) + 1/Gamma(1+mu)) / 2 */
  double gamma_p;  /* Gamma(1+mu) */
  double gamma_m;  /* Gamma(1-mu) */
  double rgamma_p; /* 1/Gamma(1+mu) */
  double fact;     /* pi mu / sin(pi mu) */
} bessel_k_order;

/* A positive value m * 2^e2 * exp(-xs). */
typedef struct {
  double m;
  int e2;
  double xs;
} bessel_k_scaled;

/* Taylor coefficients of 1/Gamma(1+z) (c_k, k even and k odd) to 1e-21 at
 * |z| = 1/2, as polynomials in z2 = z^2 evaluated by Horner's rule; when
 * deriv is non-null, also their derivative in z2 (the order derivative at
 * tiny x needs it; elsewhere the compiler drops the dead second chain). */
#define BESSEL_K_HORNER(c)                                                                         \
  d = fma(d, z2, s);                                                                               \
  s = fma(s, z2, c);

GS_HD static inline double bessel_k_rgamma_even(double z2, double *deriv)
{
  double s = -2.05832605356650678322243e-14, d = 0.0;
  BESSEL_K_HORNER(1.04342671169110051049154e-10)
  BESSEL_K_HORNER(5.002007644469222930055665e-9)
  BESSEL_K_HORNER(-2.056338416977607103450154e-7)
  BESSEL_K_HORNER(-1.250493482142670657345359e-6)
  BESSEL_K_HORNER(1.280502823881161861531986e-4)
  BESSEL_K_HORNER(-1.165167591859065112113971e-3)
  BESSEL_K_HORNER(-9.621971527876973562114922e-3)
  BESSEL_K_HORNER(1.665386113822914895017008e-1)
  BESSEL_K_HORNER(-6.558780715202538810770195e-1)
  BESSEL_K_HORNER(1.0)
  if (deriv) *deriv = d;
  return s;
}

GS_HD static inline double bessel_k_rgamma_odd(double z2, double *deriv)
{
  double s = 5.100370287454475979015481e-13, d = 0.0;
  BESSEL_K_HORNER(7.782263439905071254049937e-12)
  BESSEL_K_HORNER(-1.181274570487020144588127e-9)
  BESSEL_K_HORNER(6.116095104481415817862499e-9)
  BESSEL_K_HORNER(1.13302723198169588237413e-6)
  BESSEL_K_HORNER(-2.013485478078823865568939e-5)
  BESSEL_K_HORNER(-2.1524167411495097281573e-4)
  BESSEL_K_HORNER(7.21894324666309954239501e-3)
  BESSEL_K_HORNER(-4.21977345555443367482083e-2)
  BESSEL_K_HORNER(-4.200263503409523552900393e-2)
  BESSEL_K_HORNER(5.772156649015328606065121e-1)
  if (deriv) *deriv = d;
  return s;
}
#undef BESSEL_K_HORNER

/* Order constants for 0 <= nu < BESSEL_K_DEBYE_NU. */
GS_HD static inline bessel_k_order bessel_k_order_prepare(double nu)
{
  bessel_k_order o;
  double n = floor(nu + 0.5);
  o.n = (int)n;
  o.mu = nu - n; /* exact (Sterbenz) */
  double mu2 = o.mu * o.mu;
  double even = bessel_k_rgamma_even(mu2, 0);
  double odd = o.mu * bessel_k_rgamma_odd(mu2, 0); /* g(mu) = even + odd */
  o.gam1 = -bessel_k_rgamma_odd(mu2, 0);
  o.gam2 = even;
  o.rgamma_p = even + odd;
  o.gamma_p = 1.0 / (even + odd);
  o.gamma_m = 1.0 / (even - odd);
  double pm = M_PI * o.mu;
  o.fact = (o.mu == 0.0) ? 1.0 : pm / sin(pm);
  return o;
}

/* sinh(e)/e without cancellation near 0. */
GS_HD static inline double bessel_k_sinhc(double e, double ex, double exi)
{
  if (fabs(e) >= 0.5) return 0.5 * (ex - exi) / e;
  double e2 = e * e;
  double s = 1.0 / 1307674368000.0;
  s = fma(s, e2, 1.0 / 6227020800.0);
  s = fma(s, e2, 1.0 / 39916800.0);
  s = fma(s, e2, 1.0 / 362880.0);
  s = fma(s, e2, 1.0 / 5040.0);
  s = fma(s, e2, 1.0 / 120.0);
  s = fma(s, e2, 1.0 / 6.0);
  return fma(s, e2, 1.0);
}

/* log(2/x) for 0 < x < 1: 0.5 x loses bits, or is 0, for subnormal x. */
GS_HD static inline double bessel_k_log_2_over(double x)
{
  return (x >= 0x1p-1000) ? -log(0.5 * x) : M_LN2 - log(x);
}

/* Temme's series for 0 < x < BESSEL_K_TEMME_MAX: *k0 = K_mu(x) and
 * *k1 = K_{mu+1}(x) * (x/2) * tm, where tm is the recurrence step factor
 * (2/x, or 2^-511/x for tiny x, see bessel_k_step_factor). Unscaled (xs = 0). */
GS_HD static inline void bessel_k_temme(const bessel_k_order *o, double x, double tm,
                                        double *k0, double *k1)
{
  const double mu = o->mu, mu2 = mu * mu;
  double d = bessel_k_log_2_over(x);
  double e = mu * d;
  /* (2/x)^mu: exp(mu d) carries the rounding of d, up to 1e-13 at d = 745,
   * into K; below 2^-64 pow's few ulps are better */
  double ex = (x >= 0x1p-64) ? exp(e) : exp2(mu) * pow(x, -mu), exi = 1.0 / ex;
  double ff = o->fact * (o->gam1 * 0.5 * (ex + exi) + o->gam2 * bessel_k_sinhc(e, ex, exi) * d);
  double p = 0.5 * ex * o->gamma_p;
  double q = 0.5 * exi * o->gamma_m;
  double c = 1.0, dd = 0.25 * x * x;
  double sum = ff, sum1 = p;
  for (int i = 1; i < 60; ++i) {
    double fi = (double)i;
    double den = fi * fi - mu2;
    double r2 = 1.0 / (fi * den);
    double r = fi * r2;           /* 1/(i^2 - mu^2) */
    ff = (fi * ff + p + q) * r;
    p *= (fi + mu) * r;           /* p / (i - mu) */
    q *= (fi - mu) * r;           /* q / (i + mu) */
    c *= dd * (den * r2);         /* c * dd / i */
    double del = c * ff;
    sum += del;
    sum1 += c * (p - fi * ff);
    if (fabs(del) < 1e-17 * fabs(sum)) break;
  }
  *k0 = sum;
  *k1 = sum1 * tm;
}

/* (sinh(a t), cosh(a t)) -> (sinh(a (t + h)), cosh(a (t + h))), given
 * sinh(a h) and cosh(a h). */
GS_HD static inline void bessel_k_sinh_step(double *sh, double *ch, double sh_h, double ch_h)
{
  const double next = fma(*sh, ch_h, *ch * sh_h);
  *ch = fma(*ch, ch_h, *sh * sh_h);
  *sh = next;
}

/* Trapezoid rule for exp(x) K_mu(x) and exp(x) K_{mu+1}(x) (x >= 1 in the fast
 * path; any BESSEL_K_TINY_X <= x < BESSEL_K_HUGE_X is accurate, with more
 * nodes as x -> 0: below, e^t and e^{(mu+1) t} overflow before t reaches
 * log(2/x); above, the squared node offsets underflow). When dk0 is
 * non-null, also the derivatives in the order, d/dmu, with the same scaling. */
GS_HD static inline void bessel_k_trapezoid(double mu, double x, double *k0, double *k1,
                                            double *dk0, double *dk1)
{
  const double h = 1.0 / sqrt(fma(1.8, x, 16.0));
  /* x (cosh t - 1) >= BESSEL_K_TAIL_LOG past t_max: cosh t - 1 >= t^2 / 2 and
   * >= e^t / 2 - 1 give two sufficient bounds; the smaller wins. */
  const double tail = 2.0 * BESSEL_K_TAIL_LOG / x;
  const double tmax = fmin(log(2.0 + tail), sqrt(tail));
  const int nodes = (int)ceil(tmax / h);
  /* e^t, e^-t, e^t - 1 and e^{+-mu t} at t = k h by recurrence, so a node costs
   * one exp; e^t - 1 is kept separately so cosh t - 1 = w^2 e^-t / 2 has no
   * cancellation near t = 0. */
  const double eh = exp(h), emh = 1.0 / eh, em1 = expm1(h);
  const double ev = exp(mu * h), evi = 1.0 / ev;
  /* sinh(a t) for the order derivatives (a = mu and mu + 1) by the addition
   * theorems, sinh(a (t + h)) = sinh(a t) cosh(a h) + cosh(a t) sinh(a h) and
   * cosh(a (t + h)) = cosh(a t) cosh(a h) + sinh(a t) sinh(a h): the terms of
   * each have one sign, so the values keep full relative accuracy (also as
   * a t -> 0, where (e^{a t} - e^{-a t}) / 2 would lose digits), and a node
   * costs no sinh() call (which took a third of a Vecchia fit with free
   * smoothness). */
  const double s0h = sinh(mu * h), c0h = cosh(mu * h), s1h = sinh((mu + 1.0) * h), c1h = cosh((mu + 1.0) * h);
  double u = 1.0, ui = 1.0, w = 0.0, v = 1.0, vi = 1.0, sh0 = 0.0, ch0 = 1.0, sh1 = 0.0, ch1 = 1.0;
  double s0 = 0.0, s1 = 0.0, d0 = 0.0, d1 = 0.0;
  for (int k = 1; k <= nodes; ++k) {
    w = fma(u, em1, w);
    u *= eh;
    ui *= emh;
    v *= ev;
    vi *= evi;
    double g = exp(-x * (0.5 * w * w * ui));
    s0 = fma(g, v + vi, s0);
    s1 = fma(g, fma(v, u, vi * ui), s1);
    if (dk0) {
      bessel_k_sinh_step(&sh0, &ch0, s0h, c0h);
      bessel_k_sinh_step(&sh1, &ch1, s1h, c1h);
      const double gt = g * (k * h);
      d0 = fma(gt, sh0, d0);
      d1 = fma(gt, sh1, d1);
    }
  }
  /* h (f(0)/2 + sum_k f(t_k)), with f(0) = 1 and cosh = (e^a + e^-a)/2 */
  *k0 = h * fma(0.5, s0, 0.5);
  *k1 = h * fma(0.5, s1, 0.5);
  if (dk0) {
    *dk0 = h * d0;
    *dk1 = h * d1;
  }
}

/* The recurrence works on b_k = K_{mu+k}(x) 2^{-k tbits}: with step factor
 * tm = 2^{-tbits} 2/x it reads b_{k+1} = s2 b_{k-1} + (mu + k) tm b_k,
 * s2 = 2^{-2 tbits}. tbits = 0 except for tiny x, where 2/x is huge. */
typedef struct {
  double tm, s2;
  int tbits;
} bessel_k_step;

GS_HD static inline bessel_k_step bessel_k_step_factor(double x)
{
  bessel_k_step s;
  if (x < BESSEL_K_TINY_X) {
    /* tm in (1, 2]: each step then grows b by at most twice the order. From
     * the exponent of x, not of 2/x, which overflows for subnormal x. */
    s.tbits = -ilogb(x);
    s.tm = 2.0 / ldexp(x, s.tbits);
    s.s2 = ldexp(1.0, -2 * s.tbits); /* 2^-800 or less: the term is negligible */
  } else {
    s.tbits = 0;
    s.tm = 2.0 / x;
    s.s2 = 1.0;
  }
  return s;
}

/* b_0 = K_mu, b_1 = K_{mu+1} 2^-tbits; *xs = x when the pair is exp(x)-scaled. */
GS_HD static inline void bessel_k_start(const bessel_k_order *o, double x, const bessel_k_step *st,
                                        double *b0, double *b1, double *xs)
{
  if (o->mu == -0.5) {
    /* K_{-1/2} = K_{1/2} = sqrt(pi / (2x)) exp(-x), exactly; x is scaled by
     * 2^64 (exactly) so that pi / (2x) cannot overflow for subnormal x */
    double k = sqrt(M_PI_2 / (x * 0x1p64)) * 0x1p32;
    *b0 = k;
    *b1 = k * 0.5 * x * st->tm;
    *xs = x;
  } else if (x < BESSEL_K_TEMME_MAX) {
    bessel_k_temme(o, x, st->tm, b0, b1);
    *xs = 0.0;
  } else {
    bessel_k_trapezoid(o->mu, x, b0, b1, 0, 0);
    *xs = x;
  }
}

/* K_nu(x) for x >= BESSEL_K_HUGE_X and nu < BESSEL_K_DEBYE_NU from Hankel's
 * expansion, as m exp(-x); optionally the partial derivatives of log K. In
 * the order derivative the term a2 / x^2, a2 = (4 nu^2 - 1)(4 nu^2 - 9) / 128,
 * still counts (nu^2 / (8x) relative, up to 1e-10); later terms do not. */
GS_HD static inline bessel_k_scaled bessel_k_hankel(double x, double nu, double *dlog_dnu,
                                                    double *dlog_dx)
{
  const double a1 = (4.0 * nu * nu - 1.0) / 8.0, s = 1.0 + a1 / x;
  bessel_k_scaled out;
  out.m = sqrt(M_PI_2) / sqrt(x) * s; /* pi / (2x) would be subnormal near the largest x */
  out.e2 = 0;
  out.xs = x;
  if (dlog_dnu) *dlog_dnu = nu / x * (1.0 + (8.0 * nu * nu - 10.0) / (16.0 * x)) / s;
  if (dlog_dx) *dlog_dx = -1.0 - (0.5 + a1 / (x * s)) / x;
  return out;
}

/* Debye's expansion K_nu(nu z) ~ sqrt(pi / (2 nu)) exp(-nu eta) (1 + z^2)^-1/4
 * sum_k (-1)^k u_k(p) / nu^k, p = (1 + z^2)^-1/2 (DLMF 10.41.4), with
 * u_1 .. u_4 from DLMF 10.41.10. Returns the sum S; *ds_dp its derivative
 * in p and *ds_dnu its derivative in nu at fixed p. */
GS_HD static inline double bessel_k_debye_sum(double p, double nu, double *ds_dp, double *ds_dnu)
{
  const double p2 = p * p, in = 1.0 / nu;
  /* u_k = p^k q_k(p^2); q and q' by Horner */
  double q1 = (3.0 - 5.0 * p2) / 24.0, dq1 = -5.0 / 24.0;
  double q2 = ((385.0 * p2 - 462.0) * p2 + 81.0) / 1152.0;
  double dq2 = (770.0 * p2 - 462.0) / 1152.0;
  double q3 = (((-425425.0 * p2 + 765765.0) * p2 - 369603.0) * p2 + 30375.0) / 414720.0;
  double dq3 = ((-1276275.0 * p2 + 1531530.0) * p2 - 369603.0) / 414720.0;
  double q4 = ((((185910725.0 * p2 - 446185740.0) * p2 + 349922430.0) * p2 - 94121676.0) * p2 + 4465125.0) /
              39813120.0;
  double dq4 = (((743642900.0 * p2 - 1338557220.0) * p2 + 699844860.0) * p2 - 94121676.0) / 39813120.0;
  /* u_k = p^k q_k(p^2): du_k/dp = k p^(k-1) q_k + 2 p^(k+1) q_k' */
  double u1 = p * q1, u2 = p2 * q2, u3 = p2 * p * q3, u4 = p2 * p2 * q4;
  double du1 = q1 + 2.0 * p2 * dq1, du2 = 2.0 * p * q2 + 2.0 * p2 * p * dq2;
  double du3 = 3.0 * p2 * q3 + 2.0 * p2 * p2 * dq3, du4 = 4.0 * p2 * p * q4 + 2.0 * p2 * p2 * p * dq4;
  double s = 1.0 + in * (-u1 + in * (u2 + in * (-u3 + in * u4)));
  *ds_dp = in * (-du1 + in * (du2 + in * (-du3 + in * du4)));
  *ds_dnu = -in * in * (-u1 + in * (2.0 * u2 + in * (-3.0 * u3 + in * 4.0 * u4)));
  return s;
}

/* K_nu(x) for nu >= BESSEL_K_DEBYE_NU, as m exp(-xs), of exp(x) K_nu(x) when
 * scaled is set; optionally the partial derivatives of log K. */
GS_HD static inline bessel_k_scaled bessel_k_debye(double x, double nu, int scaled, double *dlog_dnu,
                                                   double *dlog_dx)
{
  const double z = x / nu, r = hypot(1.0, z), p = 1.0 / r;
  const double q = 1.0 / (r + z); /* r - z without cancellation */
  /* sqrt(1 + z^2) - eta = log((1 + r) / z), as log1p((1 + q) / z) so that it
   * keeps its relative accuracy at large z, where the scaled exponent
   * nu (q - lg) is a difference of two small terms; below 2^-1000, where
   * (1 + r) / z would overflow, r = 1 */
  const double lg = (z > 0x1p-1000) ? log1p((1.0 + q) / z) : M_LN2 + log(nu) - log(x);
  double ds_dp, ds_dnu;
  double sum = bessel_k_debye_sum(p, nu, &ds_dp, &ds_dnu);
  bessel_k_scaled out;
  out.m = sqrt(M_PI_2 / nu) / sqrt(r) * sum;
  out.e2 = 0;
  /* nu eta, or nu eta - x = nu (r - z - lg) for exp(x) K, without the
   * cancellation of subtracting x afterwards */
  out.xs = nu * ((scaled ? q : r) - lg);
  if (dlog_dnu) {
    /* p depends on nu through z = x / nu; z p = z / r, so that z^2 cannot overflow */
    const double zp2 = (z * p) * (z * p), dp_dnu = zp2 * p / nu;
    /* -1/(2 nu) + z^2 / (2 nu r^2) = -p^2 / (2 nu): no cancellation at large z */
    *dlog_dnu = lg - 0.5 * p * p / nu + (ds_dp * dp_dnu + ds_dnu) / sum;
  }
  if (dlog_dx) {
    const double dp_dx = -(z * p) * p * p / nu;
    /* r / z = (r / x) nu: z underflows for tiny x */
    *dlog_dx = -(r / x) * nu - 0.5 * (z * p) * p / nu + ds_dp * dp_dx / sum;
  }
  return out;
}

/* K_nu(x) = m 2^e2 exp(-xs) for x > 0 finite and the order of o. */
GS_HD static inline bessel_k_scaled bessel_k_scaled_eval(const bessel_k_order *o, double x)
{
  if (x >= BESSEL_K_HUGE_X) return bessel_k_hankel(x, o->n + o->mu, 0, 0); /* n + mu = nu exactly */
  bessel_k_step st = bessel_k_step_factor(x);
  double a, b, xs;
  bessel_k_start(o, x, &st, &a, &b, &xs);
  int e2 = 0;
  for (int k = 1; k < o->n; ++k) {
    double c = fma((o->mu + k) * st.tm, b, st.s2 * a);
    a = b;
    b = c;
    if (b > BESSEL_K_RESCALE_AT) {
      a = ldexp(a, -BESSEL_K_RESCALE_BITS);
      b = ldexp(b, -BESSEL_K_RESCALE_BITS);
      e2 += BESSEL_K_RESCALE_BITS;
    }
  }
  bessel_k_scaled r;
  r.m = (o->n == 0) ? a : b;
  r.e2 = e2 + st.tbits * o->n;
  r.xs = xs;
  return r;
}

/* ln 2 split so that e2 * BESSEL_K_LN2_HI is exact for |e2| < 2^20. */
#define BESSEL_K_LN2_HI 6.93147180369123816490e-01
#define BESSEL_K_LN2_LO 1.90821492927058770002e-10

GS_HD static inline double bessel_k_scaled_log(bessel_k_scaled r)
{
  return log(r.m) + (r.e2 * BESSEL_K_LN2_HI + (r.e2 * BESSEL_K_LN2_LO - r.xs));
}

/* m 2^e2 exp(shift) without spurious overflow or underflow on the way. */
GS_HD static inline double bessel_k_scaled_value(bessel_k_scaled r, double shift)
{
  if (shift == 0.0) return ldexp(r.m, r.e2);
  if (fabs(shift) < 600.0) return ldexp(r.m * exp(shift), r.e2);
  return exp(log(r.m) + (r.e2 * BESSEL_K_LN2_HI + (r.e2 * BESSEL_K_LN2_LO + shift)));
}

/* The value bessel_k() returns for one element. x and nu as given by the user;
 * NaN propagates, x < 0 is NaN (the caller warns), K_{-nu} = K_nu. */
GS_HD static inline double bessel_k_value(double x, double nu, int mode)
{
  if (isnan(x) || isnan(nu)) return x + nu;
  if (x < 0.0 || isinf(nu)) return NAN;
  if (x == 0.0) return INFINITY;
  int scaled = (mode == BESSEL_K_SCALED || mode == BESSEL_K_LOG_SCALED);
  int logged = (mode == BESSEL_K_LOG || mode == BESSEL_K_LOG_SCALED);
  if (isinf(x)) return logged ? -INFINITY : 0.0;
  bessel_k_scaled r;
  if (fabs(nu) >= BESSEL_K_DEBYE_NU) {
    r = bessel_k_debye(x, fabs(nu), scaled, 0, 0);
  } else {
    bessel_k_order o = bessel_k_order_prepare(fabs(nu));
    r = bessel_k_scaled_eval(&o, x);
    if (scaled) r.xs -= x; /* exp(x) K: exactly 0 on the exp(x)-scaled paths */
  }
  if (logged) return bessel_k_scaled_log(r);
  return bessel_k_scaled_value(r, -r.xs);
}

/* d log K_nu(x) / dx = -(K_{nu-1} + K_{nu+1}) / (2 K_nu): a sum of positive
 * terms, so no cancellation at any x. For 0 <= nu < 1/2 the recurrence starts
 * at the order -nu instead, whose neighbour 1 - nu gives K_{nu-1}. */
GS_HD static inline double bessel_k_dlog_dx(double x, double anu)
{
  bessel_k_order o = bessel_k_order_prepare(anu);
  if (o.n == 0) o = bessel_k_order_prepare(-anu);
  bessel_k_step st = bessel_k_step_factor(x);
  double a, b, xs, prev = 0.0;
  bessel_k_start(&o, x, &st, &a, &b, &xs);
  if (o.n == 0) return -ldexp(b / a, st.tbits) - anu / x;
  for (int k = 1; k <= o.n; ++k) {
    double c = fma((o.mu + k) * st.tm, b, st.s2 * a);
    prev = a;
    a = b;
    b = c;
    if (b > BESSEL_K_RESCALE_AT) {
      prev = ldexp(prev, -BESSEL_K_RESCALE_BITS);
      a = ldexp(a, -BESSEL_K_RESCALE_BITS);
      b = ldexp(b, -BESSEL_K_RESCALE_BITS);
    }
  }
  /* prev, a, b = b_{n-1}, b_n, b_{n+1}; the halving and the scaling inside
   * ldexp, so that neither ratio overflows before the result does */
  return -(ldexp(prev, -st.tbits - 1) / a + ldexp(b / a, st.tbits - 1));
}

/* d/dmu log(pi mu / sin(pi mu)) = 1/mu - pi cot(pi mu); its Taylor series
 * 2 zeta(2) mu + 2 zeta(4) mu^3 + 2 zeta(6) mu^5 near 0, where the
 * difference cancels (the next term is below 1e-12 of the first). */
GS_HD static inline double bessel_k_dlog_fact(double mu)
{
  if (fabs(mu) >= 0.01) return 1.0 / mu - M_PI / tan(M_PI * mu);
  double m2 = mu * mu;
  return mu * fma(m2, fma(m2, 2.03468612396889827942903585958, 2.16464646742227638303200739308),
                  3.28986813369645287294483033329);
}

/* d/ds (sinh(s) / s) = (s cosh s - sinh s) / s^2; its Taylor series
 * sum_k 2k s^(2k-1) / (2k+1)! for |s| < 1, where the difference cancels. */
GS_HD static inline double bessel_k_sinhc_deriv(double s)
{
  if (fabs(s) >= 1.0) return (s * cosh(s) - sinh(s)) / (s * s);
  double s2 = s * s;
  double t = 1.0 / 6758061133824000.0;
  t = fma(t, s2, 1.0 / 22230464256000.0);
  t = fma(t, s2, 1.0 / 93405312000.0);
  t = fma(t, s2, 1.0 / 518918400.0);
  t = fma(t, s2, 1.0 / 3991680.0);
  t = fma(t, s2, 1.0 / 45360.0);
  t = fma(t, s2, 1.0 / 840.0);
  t = fma(t, s2, 1.0 / 30.0);
  return s * fma(t, s2, 1.0 / 3.0);
}

/* Below this x the order derivative comes from the leading terms of the
 * small-x expansions (bessel_k_tiny_dlog_dmu), exact to x |log x| relative;
 * the trapezoid rule sums 200 to 3000 nodes there and loses up to 1e-13, and
 * below BESSEL_K_TINY_X its nodes would overflow. */
#define BESSEL_K_DNU_SERIES_X 1e-20

/* d log K_mu / dmu (*d0) and d log K_{mu+1} / dmu (*d1), |mu| <= 1/2, for x
 * below BESSEL_K_DNU_SERIES_X. There K_mu is the first term of Temme's
 * series, F (G1 cosh s + G2 d sinh(s)/s), F = pi mu / sin(pi mu), s = mu d,
 * d = log(2/x) (the other terms are below x^2 of it), differentiated term by
 * term; and K_{mu+1} = Gamma(1+mu)/2 (2/x)^(1+mu) (1 + O(x)), whose
 * derivative is psi(1+mu) + d, psi from the series of 1/Gamma(1+mu). */
GS_HD static inline void bessel_k_tiny_dlog_dmu(const bessel_k_order *o, double x, double *d0,
                                                double *d1)
{
  const double mu = o->mu, mu2 = mu * mu, d = bessel_k_log_2_over(x), s = mu * d;
  double de, dodd;
  double even = bessel_k_rgamma_even(mu2, &de), odd = bessel_k_rgamma_odd(mu2, &dodd);
  /* 1/Gamma(1+mu) = even(mu^2) + mu odd(mu^2) and its derivative */
  double dg = fma(2.0 * mu, de, fma(2.0 * mu2, dodd, odd));
  *d1 = d - dg / fma(mu, odd, even);
  double es = exp(s), esi = 1.0 / es;
  double ch = 0.5 * (es + esi), sc = bessel_k_sinhc(s, es, esi);
  double h = fma(o->gam1, ch, o->gam2 * d * sc);
  /* G1 = -odd(mu^2), G2 = even(mu^2): G1' = -2 mu odd', G2' = 2 mu even' */
  double dh = -2.0 * mu * dodd * ch + o->gam1 * d * (s * sc) + 2.0 * mu * de * d * sc +
              o->gam2 * d * d * bessel_k_sinhc_deriv(s);
  *d0 = bessel_k_dlog_fact(mu) + dh / h;
}

/* d log K_nu(x) / d nu for nu = anu >= 0: the trapezoid rule (or the
 * small-x forms) gives K and dK/dmu at mu and mu + 1, and the recurrence
 * differentiated in the order, D_{k+1} = D_{k-1} + (2(mu+k)/x) D_k + (2/x) K_k,
 * carries both up. x < BESSEL_K_HUGE_X. */
GS_HD static inline double bessel_k_dlog_dnu(double x, double anu)
{
  double n = floor(anu + 0.5), mu = anu - n;
  int flip = (n == 0.0);
  if (flip) mu = -anu; /* K_nu = K_{-nu}: differentiate at -nu, change sign */
  bessel_k_step st = bessel_k_step_factor(x);
  double a, b, da, db;
  if (x < BESSEL_K_DNU_SERIES_X) {
    bessel_k_order o = bessel_k_order_prepare(mu); /* |mu| <= 1/2: o.mu = mu */
    double g0, g1;
    bessel_k_temme(&o, x, st.tm, &a, &b);
    bessel_k_tiny_dlog_dmu(&o, x, &g0, &g1);
    da = a * g0;
    db = b * g1;
  } else {
    bessel_k_trapezoid(mu, x, &a, &b, &da, &db); /* x >= BESSEL_K_TINY_X: tbits = 0 */
  }
  for (int k = 1; k < (int)n; ++k) {
    double f = (mu + k) * st.tm;
    double c = fma(f, b, st.s2 * a);
    double dc = fma(f, db, fma(st.tm, b, st.s2 * da));
    a = b;
    b = c;
    da = db;
    db = dc;
    if (b > BESSEL_K_RESCALE_AT) {
      a = ldexp(a, -BESSEL_K_RESCALE_BITS);
      b = ldexp(b, -BESSEL_K_RESCALE_BITS);
      da = ldexp(da, -BESSEL_K_RESCALE_BITS);
      db = ldexp(db, -BESSEL_K_RESCALE_BITS);
    }
  }
  return flip ? -da / a : db / b;
}

enum { BESSEL_K_WRT_NU = 0, BESSEL_K_WRT_X = 1 };

/* The value bessel_k_deriv() returns for one element. */
GS_HD static inline double bessel_k_deriv_value(double x, double nu, int wrt)
{
  if (isnan(x) || isnan(nu)) return x + nu;
  if (x < 0.0 || isinf(nu)) return NAN;
  double anu = fabs(nu), d;
  if (wrt == BESSEL_K_WRT_X) {
    if (x == 0.0) return -INFINITY;
    if (isinf(x)) return -1.0;
    if (anu >= BESSEL_K_DEBYE_NU) bessel_k_debye(x, anu, 0, 0, &d);
    else if (x >= BESSEL_K_HUGE_X) bessel_k_hankel(x, anu, 0, &d);
    else d = bessel_k_dlog_dx(x, anu);
    return d;
  }
  if (x == 0.0) return (nu == 0.0) ? 0.0 : copysign(INFINITY, nu);
  if (isinf(x)) return 0.0;
  if (anu >= BESSEL_K_DEBYE_NU) bessel_k_debye(x, anu, 0, &d, 0);
  else if (x >= BESSEL_K_HUGE_X) bessel_k_hankel(x, anu, &d, 0);
  else d = bessel_k_dlog_dnu(x, anu);
  return (nu < 0.0) ? -d : d;
}

#endif
