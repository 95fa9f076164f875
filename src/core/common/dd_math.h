/* Double-double arithmetic: a value carried as the unevaluated sum
 * hi + lo, |lo| <= ulp(hi) / 2, about 32 digits. For the few per-point
 * quantities whose rounding a large factor would magnify; the products
 * use fma, so the compiler must not reassociate (no -ffast-math). */
#ifndef GS_DD_MATH_H
#define GS_DD_MATH_H

#include <math.h>
#include "gs_common.h"

typedef struct {
  double hi, lo;
} gs_dd;

GS_HD static inline gs_dd gs_dd_make(double hi, double lo)
{
  gs_dd r;
  r.hi = hi + lo;
  r.lo = lo - (r.hi - hi);
  return r;
}

/* a + b exactly, for any a and b */
GS_HD static inline gs_dd gs_dd_two_sum(double a, double b)
{
  gs_dd r;
  r.hi = a + b;
  double bb = r.hi - a;
  r.lo = (a - (r.hi - bb)) + (b - bb);
  return r;
}

/* a b exactly */
GS_HD static inline gs_dd gs_dd_two_prod(double a, double b)
{
  gs_dd r;
  r.hi = a * b;
  r.lo = fma(a, b, -r.hi);
  return r;
}

GS_HD static inline gs_dd gs_dd_add(gs_dd a, gs_dd b)
{
  gs_dd s = gs_dd_two_sum(a.hi, b.hi);
  return gs_dd_make(s.hi, s.lo + (a.lo + b.lo));
}

GS_HD static inline gs_dd gs_dd_mul(gs_dd a, gs_dd b)
{
  gs_dd p = gs_dd_two_prod(a.hi, b.hi);
  return gs_dd_make(p.hi, p.lo + (a.hi * b.lo + a.lo * b.hi));
}

/* a / b; an infinite quotient with a zero low part (the residual is NaN) */
GS_HD static inline gs_dd gs_dd_div_d(gs_dd a, double b)
{
  double q = a.hi / b;
  gs_dd r = {q, 0.0};
  return isinf(q) ? r : gs_dd_make(q, (fma(-q, b, a.hi) + a.lo) / b);
}

/* log a, a > 0 finite: a = 2^k f with f in [1/sqrt 2, sqrt 2), and
 * log f = 2 atanh(w), w = (f - 1) / (f + 1), |w| < 0.172, by its series
 * 2 w (1 + w^2/3 + w^4/5 + ...), whose sum past the 1 is only needed to
 * double precision. Else log(a.hi). */
GS_HD static inline gs_dd gs_dd_log(gs_dd a)
{
  const gs_dd ln2 = {0.6931471805599453, 2.3190468138462996e-17};
  if (!(a.hi > 0.0 && a.hi < INFINITY)) return gs_dd_make(log(a.hi), 0.0);
  int k;
  double m = frexp(a.hi, &k);
  if (m < 0.70710678118654752) k--;
  /* f - 1, exact in its high part (f.hi in [1/2, 2]) */
  gs_dd d = gs_dd_two_sum(ldexp(a.hi, -k) - 1.0, ldexp(a.lo, -k));
  gs_dd den = gs_dd_two_sum(2.0, d.hi);
  double w = d.hi / den.hi;
  double w_lo = (fma(-w, den.hi, d.hi) + d.lo - w * (den.lo + d.lo)) / den.hi;
  double w2 = w * w, pw = 1.0, c = 0.0;
  for (int j = 1; j <= 12; j++) {
    pw *= w2;
    c += pw / (2 * j + 1);
  }
  gs_dd lf = gs_dd_make(2.0 * w, 2.0 * (w * c + w_lo));
  gs_dd kl = gs_dd_two_prod((double)k, ln2.hi);
  kl.lo += k * ln2.lo;
  return gs_dd_add(lf, kl);
}

#endif
