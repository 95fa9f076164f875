/* Alpha-stable laws at small alpha (below STABLE_SMALL_ALPHA): the values
 * of the standard law by the integrals taken plainly over y, and the limit
 * law where alpha is so small that it is exact to rounding.
 *
 * As alpha -> 0, |X1|^-alpha tends to a standard exponential variable
 * (X1 = X - zeta, the S1 variable; Cressie 1975), with P(X1 > 0) ->
 * (1 + beta) / 2: h = x1^(-alpha/(1-alpha)) V(u) is near x1^-alpha over the
 * whole range of u, save a layer of width about alpha at the end where it
 * grows (there sin q ~ alpha t + v against cos u ~ v, v = pi/2 - u). The
 * integrands of the general rules, taken by parts, then spread over every
 * scale of the offsets (log h moves by alpha log t), far beyond the range
 * of y where t ~ exp(-1/alpha), and their map finds no peak: the cdf was
 * 3 % low at alpha = 1e-12. Plainly, e^-h dt/dy, (1 - e^-h) dt/dy and
 * h e^-h dt/dy are bounded, smooth, and fall like the logistic density
 * dt/dy beyond the layer at y ~ log(1/alpha); below alpha = 1e-3 the part
 * cut off below y = -700 (where h would fall towards 0) is below e^-700
 * of the whole. */
#ifndef GS_STABLE_SMALL_ALPHA_H
#define GS_STABLE_SMALL_ALPHA_H

#include "stable_quadrature.h"
#include "stable_tails.h"

/* Below this alpha the plain rule here; above it the general rules, within
 * 8.6e-14 of the references at alpha = 5e-3 and 2e-3 (the plain rule 6.7e-14
 * from 1e-3 down, the density; 6.7e-16 the probabilities). The general rules hold
 * on at some points further down (pstable(1, alpha, 0.3) to 3e-16 at
 * alpha = 1e-6) but not at others (2e-4 at 1e-8). */
#define STABLE_SMALL_ALPHA 1e-3
/* Below this alpha the limit law is exact to rounding: the next terms are
 * relative O(alpha log(alpha x1)), below 1e-196 for any double x1. */
#define STABLE_LIMIT_ALPHA 1e-200
/* theta0 = arctan(beta tan(pi alpha / 2)) / alpha is beta pi / 2 within
 * relative (pi alpha)^2 / 12: exact to rounding below this alpha, where
 * the general forms lose relative accuracy once sin(pi alpha / 2) is
 * subnormal. */
#define STABLE_THETA0_LIMIT_ALPHA 1e-9

#define STABLE_SMALL_ALPHA_PANELS 20

/* The angles of a point at small alpha, from their limits (above). */
GS_HD static inline void stable_small_alpha_point(stable_point *p)
{
  if (!(p->alpha < STABLE_THETA0_LIMIT_ALPHA) || p->form == STABLE_FORM_ALPHA1) return;
  p->theta0 = p->beta * STABLE_PI_2;
  p->c0 = (1.0 - p->beta) * STABLE_PI_2;
  p->T = (1.0 + p->beta) * STABLE_PI_2;
  p->aT = p->alpha * p->T;
  p->pa = STABLE_PI - p->aT;
}

/* The breakpoints over y: graded towards the centre of the logistic
 * density and towards the layer at y ~ log(1/alpha). Returns their count. */
GS_HD static inline int stable_small_alpha_breaks(double alpha, double z[STABLE_SMALL_ALPHA_PANELS + 1])
{
  const double centre[9] = {-60.0, -30.0, -15.0, -6.0, -2.0, 2.0, 6.0, 15.0, 30.0};
  const double layer[5] = {-8.0, -3.0, 0.0, 3.0, 8.0};
  double yl = -log(alpha);
  int n = 0, i = 0, j = 0;
  z[n++] = -STABLE_Y_MAX;
  /* merge the two sorted lists, dropping points closer than 1 to the last */
  while (i < 9 || j < 5) {
    double a = i < 9 ? centre[i] : INFINITY, b = j < 5 ? yl + layer[j] : INFINITY;
    double y = a < b ? a : b;
    if (a < b) i++;
    else j++;
    if (y > z[n - 1] + 1.0 && y < STABLE_Y_MAX - 1.0) z[n++] = y;
  }
  z[n++] = STABLE_Y_MAX;
  return n;
}

/* The values from the limit law (alpha below STABLE_LIMIT_ALPHA): h = 1 over
 * the whole range of u, to rounding. */
GS_HD static inline void stable_limit_value(const stable_point *p, stable_value *v)
{
  const double e_inv = 0.36787944117144233;
  double lpdf = log(p->alpha) + log(p->T) - STABLE_LOG_PI - 1.0 - log(p->x1);
  double ccdf = p->T * (1.0 - e_inv) / STABLE_PI, cdf = (p->c0 + p->T * e_inv) / STABLE_PI;
  stable_value_set(v, lpdf, cdf, ccdf, log(cdf), log(ccdf));
}

/* The standard S0 law at the prepared point (alpha < STABLE_SMALL_ALPHA,
 * x1 > 0) into *v; returns STABLE_BY_FAST_RULE, or 0 where fast declines
 * the quadrature (GS_EVAL_*). The integrals of the density and of both
 * tails are each a sum of positive terms; the density's prefactor
 * alpha / (pi eps x1) is taken in logs (it underflows at alpha = 1e-300,
 * x1 = 1e300). */
GS_HD static inline int stable_small_alpha_value(const stable_point *p, int need, int fast,
                                                 stable_value *v)
{
  if (p->alpha < STABLE_LIMIT_ALPHA) {
    stable_limit_value(p, v);
    return STABLE_BY_FAST_RULE;
  }
  if (fast) return 0;
  double z[STABLE_SMALL_ALPHA_PANELS + 1], J[3];
  int nz = stable_small_alpha_breaks(p->alpha, z);
  /* at the adaptive rule's usual tolerance (1e-13) one tail was off by
   * 8e-14 at alpha = 1e-4 to 1e-8; at 1e-15 every value of the references
   * is within rounding */
  stable_integrate(p, STABLE_MODE_PLAIN, z, nz, 0.0, need & STABLE_NEED_ALL, 1e-15, 0.0, J);
  double lpdf = log(J[0]) + log(p->alpha) - STABLE_LOG_PI - log(p->eps) - log(p->x1);
  double cdf = (p->c0 + J[1]) / STABLE_PI, ccdf = J[2] / STABLE_PI;
  stable_value_set(v, lpdf, cdf, ccdf, log(cdf), log(ccdf));
  return STABLE_BY_FAST_RULE;
}

#endif
