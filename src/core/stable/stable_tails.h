/* Alpha-stable laws: the values of the standard law at one point, and the
 * regimes that need no quadrature (the far-tail series, the power law at
 * alpha = 1, the exponentially thin tails at beta = +-1). */
#ifndef GS_STABLE_TAILS_H
#define GS_STABLE_TAILS_H

#include "stable_level.h"

/* Values of the standard S0 law at one x; dlog_pdf, d log pdf / dx, is NaN
 * unless STABLE_NEED_DLOG_PDF asked for it and the rule used gives it. */
typedef struct {
  double pdf, log_pdf, cdf, ccdf, log_cdf, log_ccdf, dlog_pdf;
} stable_value;

GS_HD static inline void stable_value_set(stable_value *r, double log_pdf, double cdf, double ccdf,
                                          double log_cdf, double log_ccdf)
{
  r->dlog_pdf = NAN;
  r->log_pdf = log_pdf;
  r->pdf = exp(log_pdf);
  r->cdf = cdf;
  r->ccdf = ccdf;
  r->log_cdf = log_cdf;
  r->log_ccdf = log_ccdf;
}

/* The bound on the rounding of the tail series that it must stay below,
 * relative to each sum. The bound adds the worst case of every term, so it
 * is pessimistic: on 20,000 random points (x in [-100, 100], alpha in
 * [0.5, 2], beta in [-1, 1]) the 85 % that the series took at this bound
 * agreed with the integrals to 1.4e-14 (at 1e-15 it took 5 %). */
#define STABLE_SERIES_RTOL 1e-13

/* The far-tail series at x1 = exp(log_x1), in z = sqrt(1 + B^2) x1^-alpha:
 *   pdf  = 1/(pi x1) sum_k (-1)^(k+1) Gamma(alpha k + 1)/k! sin(k alpha T) z^k,
 *   ccdf = 1/pi      sum_k (-1)^(k+1) Gamma(alpha k)/k!     sin(k alpha T) z^k,
 * and d log pdf / dx1 (term k of pdf goes like x1^-(1 + alpha k)) into
 * *dlog_pdf. The sums are taken relative to z (term k carries z^(k-1)), so
 * that the logs of both stay finite where z underflows (x1 beyond the
 * largest double too, given by its log). Returns 0 where it does not reach full accuracy (terms
 * stop shrinking, or cancel). */
GS_HD static inline int stable_tail_series(const stable_point *p, double log_x1, double *log_pdf,
                                           double *log_ccdf, double *dlog_pdf)
{
  double lz = 0.5 * log1p(p->B * p->B) - p->alpha * log_x1;
  if (lz > -1.0) return 0;
  /* err bounds the rounding in the sum, mostly from sin(k alpha T) near
   * its zeros (beta = -1 for alpha > 1, where the tail is not a power law) */
  double sp = 0.0, sc = 0.0, sd = 0.0, prev = INFINITY, err = 0.0, log_factorial = 0.0;
  for (int k = 1; k <= 60; k++) {
    log_factorial += log((double)k);
    double lm = lgamma(p->alpha * k + 1.0) - log_factorial + (k - 1) * lz;
    double m = exp(lm), sn = sin(k * p->aT);
    if (m > prev) return 0;
    prev = m;
    double term = (k & 1 ? 1.0 : -1.0) * m * sn;
    sp += term;
    sc += term / (p->alpha * k);
    sd += term * (1.0 + p->alpha * k);
    err += m * (fabs(sn) + k * p->aT) * 4e-16;
    if (m < 1e-17 * fabs(sp) && m < 1e-17 * fabs(sc) * p->alpha * k) {
      if (!(sp > 0.0) || !(sc > 0.0) || err > STABLE_SERIES_RTOL * sc ||
          err > STABLE_SERIES_RTOL * sp)
        return 0;
      *log_pdf = log(sp) + lz - STABLE_LOG_PI - log_x1;
      *log_ccdf = log(sc) + lz - STABLE_LOG_PI;
      *dlog_pdf = -sd / sp * exp(-log_x1);
      return 1;
    }
  }
  return 0;
}

/* Beyond this |x| at alpha = 1 the law is its power-law tail to rounding:
 * the next term is smaller by (4/pi) |beta| log|x| / |x| for the density
 * (half that for the tail; measured against the integrals from |x| = 1e3
 * to 1e17), 1e-16 here. The integrals reach further, but their rounding
 * grows with log h's terms (2e-13 at |x| = 1e100) and the density
 * underflows their scale from |x| = 1e154. */
#define STABLE_ALPHA1_POWER_LAW 1e18

/* Beyond this log h0 (h bounded below by h0 > 1e15 at beta = +-1), the
 * density and the thin tail are exp(-h0) times factors that change log h0
 * by less than its own rounding: no quadrature. */
#define STABLE_THIN_TAIL 35.0

#endif
