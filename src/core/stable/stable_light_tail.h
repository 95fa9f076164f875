/* Alpha-stable laws: the light tail of the totally skewed laws (alpha != 1,
 * the side of zeta where h is bounded below by h0 > 0: alpha < 1, beta = 1
 * or alpha > 1, beta = -1, after the reflection of stable_point_prepare).
 *
 * There the density and the probability of that side are exp(-h0) times
 * integrals of h e^-(h - h0), h0 up to 700 where the density is a normal
 * number. An absolute error e in log h0 or in log h is a relative error
 * h0 e in the result, so each is computed here without the cancellation
 * of its terms:
 *  - log h0 = log(|eps| / |cos(pi alpha / 2)|) - (alpha / eps) log y,
 *    y = x1 |cos(pi alpha / 2)| / alpha, in double-double from the inputs,
 *    which are exact (x1 |cos| is formed as x |cos| + sin(pi alpha / 2):
 *    x1 = x + B carries a rounding that alpha / eps would magnify, 1000 at
 *    alpha = 0.999);
 *  - log(h / h0) = r(w), w the offset of u from that end, by its series
 *    in w^2, all of whose terms are positive (below).
 * The series takes over where the terms of log h, which each diverge at
 * the end, cancel: the direct form carried h0 times their rounding, up to
 * 2e-12 relative in the density. */
#ifndef GS_STABLE_LIGHT_TAIL_H
#define GS_STABLE_LIGHT_TAIL_H

#include <math.h>
#include "dd_math.h"
#include "gs_common.h"

/* sin z in double-double, 0 <= z <= pi/2, as z (1 + c) with
 * c = -z^2/3! + z^4/5! - ...: its leading term in double-double, the rest
 * (below z^4 / 120 < 0.052 relative) in double. */
GS_HD static inline gs_dd stable_dd_sin(gs_dd z)
{
  gs_dd z2 = gs_dd_two_prod(z.hi, z.hi);
  z2 = gs_dd_make(z2.hi, z2.lo + 2.0 * z.hi * z.lo);
  double term = z2.hi * z2.hi / 120.0, rest = 0.0;
  for (int k = 3; k <= 12; k++) {
    rest += term;
    term *= -z2.hi / ((2 * k) * (2 * k + 1));
  }
  gs_dd c = gs_dd_add(gs_dd_div_d(z2, -6.0), gs_dd_make(rest, 0.0));
  return gs_dd_add(z, gs_dd_mul(z, c));
}

/* log h0 in double-double (hi returned, lo into *lo), alpha != 1, with
 * eps = 1 - alpha in double-double too (it is not exact below 1/2).
 * x the S0 argument after the reflection where x1 = x + B was formed from
 * it, else NaN (x1 given exactly, pm = 1). |cos(pi alpha / 2)| = sin z and
 * 1 - sin(pi alpha / 2) = 2 sin^2(z / 2), z = (pi / 2) |eps| (below
 * alpha = 1/2 sin(pi alpha / 2) itself), in double-double: the ulp of libm's sin would be magnified with the rest
 * (by alpha / eps near alpha = 1 at pm = 1; next to zeta at small alpha,
 * where x1 |cos| is the difference of x |cos| and sin(pi alpha / 2)). */
GS_HD static inline double stable_light_log_h0(double alpha, double x, double x1, double *lo)
{
  const gs_dd half_pi = {1.5707963267948966, 6.123233995736766e-17};
  gs_dd eps = gs_dd_two_sum(1.0, -alpha), ae = eps;
  if (eps.hi < 0.0) {
    ae.hi = -eps.hi;
    ae.lo = -eps.lo;
  }
  gs_dd ca = stable_dd_sin(gs_dd_mul(half_pi, ae));
  /* x1 |cos| = x |cos| + sin */
  gs_dd P;
  if (isnan(x)) {
    P = gs_dd_mul(ca, gs_dd_make(x1, 0.0));
  } else {
    /* sin(pi alpha / 2) from alpha itself below 1/2, where it is small */
    gs_dd sa;
    if (alpha < 0.5) {
      sa = stable_dd_sin(gs_dd_mul(half_pi, gs_dd_make(alpha, 0.0)));
    } else {
      gs_dd sh = stable_dd_sin(gs_dd_mul(gs_dd_make(0.5 * half_pi.hi, 0.5 * half_pi.lo), ae));
      gs_dd sh2 = gs_dd_mul(sh, sh);
      sa = gs_dd_add(gs_dd_make(1.0, 0.0), gs_dd_make(-2.0 * sh2.hi, -2.0 * sh2.lo));
    }
    P = gs_dd_add(gs_dd_mul(ca, gs_dd_make(x, 0.0)), sa);
  }
  /* x1 within the rounding of x + B of zeta: h0 infinite or 0 */
  if (!(P.hi > 0.0)) P = gs_dd_make(0.0, 0.0);
  gs_dd ly = gs_dd_log(gs_dd_div_d(P, alpha));
  double q = alpha / eps.hi, r0 = ae.hi / ca.hi;
  /* log(|eps| / |cos|) with the roundings of the quotient, eps and ca */
  gs_dd lead = gs_dd_make(log(r0), (fma(-r0, ca.hi, ae.hi) + ae.lo - r0 * ca.lo) / ae.hi);
  if (!isfinite(ly.hi)) {
    *lo = 0.0;
    return lead.hi - q * ly.hi;
  }
  gs_dd qq = gs_dd_make(q, (fma(-q, eps.hi, alpha) - q * eps.lo) / eps.hi);
  gs_dd s = gs_dd_add(lead, gs_dd_mul(qq, gs_dd_make(-ly.hi, -ly.lo)));
  *lo = s.lo;
  return s.hi;
}

/* Beyond this w max(alpha, 1) the direct form takes over from the series
 * below, whose terms fall like (max(alpha, 1) w / pi)^2k: by 10 at least
 * here, where log(h / h0) >= alpha (1 + alpha) / 6 max(alpha, 1)^2 and
 * the integrands have fallen below exp(-h0 / 7), negligible where h0 is
 * large enough for the direct form's rounding to matter. */
#define STABLE_LIGHT_SERIES_W 1.0

/* r = log(h / h0) at the offset w of u from the end where h = h0, and
 * dr/dw into *dr_dw. With L(z) = log(sin z / z) = -sum_k c_k z^2k,
 * c_k = zeta(2k) / (k pi^2k),
 *     r = -(alpha / eps) (L(w) - L(alpha w)) + L(eps w) - L(w)
 *       = sum_k c_k w^2k ((alpha / eps) (1 - alpha^2k) + 1 - eps^2k),
 * whose terms are all positive (1 - alpha^2k has the sign of eps), so
 * that r is accurate to its last digits (a few roundings) however small,
 * and near alpha = 1 too: 1 - alpha^2k = d_k by d_(k+1) = d_1 + alpha^2 d_k,
 * every term of the same sign. Converges for max(alpha, 1) w < pi. */
GS_HD static inline double stable_light_log_ratio(double alpha, double eps, double w,
                                                  double *dr_dw)
{
  const double c[18] = {1.66666666666666657e-01, 5.55555555555555577e-03, 3.52733686067019424e-04,
                        2.64550264550264561e-05, 2.13777991555769346e-06, 1.80367023400533102e-07,
                        1.56613913227669828e-08, 1.38841304937372988e-09, 1.25043591760049969e-10,
                        1.14025756022960914e-11, 1.05029239086375574e-12, 9.75487784159370135e-14,
                        9.12346823085909817e-15, 8.58371976189560950e-16, 8.11731800972778919e-17,
                        7.71052751411627337e-18, 7.35284493271200219e-19, 7.03610121039065211e-20};
  double q = alpha / eps, a2 = alpha * alpha, e2 = eps * eps, w2 = w * w;
  double d1 = eps * (1.0 + alpha), d = d1, ek = e2, pw = w2, r = 0.0, dr = 0.0;
  for (int k = 0; k < 18; k++) {
    double term = c[k] * (q * d + (1.0 - ek)) * pw;
    r += term;
    dr += (2 * k + 2) * term;
    if (term <= 1e-17 * r) break;
    d = d1 + a2 * d;
    ek *= e2;
    pw *= w2;
  }
  *dr_dw = dr / w;
  return r;
}

#endif
